use std::sync::Arc;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_core::{Object, Store};

use super::{RealFifo, RealFifoConfig};
use crate::tests::{Cache, cm, pop_described};
use crate::{DeltaQueue, KnownObjects};

fn in_order(known: &Arc<Cache>) -> RealFifo<ConfigMap> {
    let known: KnownObjects<ConfigMap> = known.clone();
    RealFifo::new(RealFifoConfig::default().with_known_objects(known))
}

fn drain(fifo: &RealFifo<ConfigMap>) -> Vec<(String, Vec<String>, bool)> {
    (0..fifo.queued()).map(|_| pop_described(fifo)).collect()
}

fn one(key: &str, delta: &str, initial: bool) -> (String, Vec<String>, bool) {
    (key.to_owned(), vec![delta.to_owned()], initial)
}

#[test]
fn every_event_is_kept_in_order_and_popped_alone() {
    let fifo = in_order(&Cache::with(&[]));
    fifo.add(cm("a", 1)).unwrap();
    fifo.add(cm("b", 1)).unwrap();
    fifo.update(cm("a", 2)).unwrap();
    fifo.delete(cm("never-known", 1)).unwrap();
    assert_eq!(
        drain(&fifo),
        [
            one("ns/a", "Added:a@1", false),
            one("ns/b", "Added:b@1", false),
            one("ns/a", "Updated:a@2", false),
            one("ns/never-known", "Deleted:never-known@1", false),
        ]
    );
}

#[test]
fn replace_queues_tombstones_first_then_replaced_and_counts_the_queue() {
    let known = Cache::with(&[cm("known", 1), cm("kept", 1)]);
    let fifo = in_order(&known);
    fifo.add(cm("queued", 1)).unwrap();
    fifo.add(cm("deleted", 1)).unwrap();
    fifo.delete(cm("deleted", 1)).unwrap();
    assert!(
        fifo.has_synced(),
        "adds and deletes mark the queue populated"
    );

    let fresh_known: KnownObjects<ConfigMap> = known;
    let unpopulated = RealFifo::new(RealFifoConfig::default().with_known_objects(fresh_known));
    unpopulated
        .replace(vec![cm("kept", 2), cm("kept", 3)], "5")
        .unwrap();
    assert_eq!(
        unpopulated.queued(),
        3,
        "one tombstone and two Replaced, duplicates included"
    );
    assert_eq!(
        drain(&unpopulated),
        [
            one("ns/known", "Tombstone:known@1", true),
            one("ns/kept", "Replaced:kept@2", true),
            one("ns/kept", "Replaced:kept@3", true),
        ]
    );
    assert!(unpopulated.has_synced());

    fifo.replace(vec![cm("kept", 2)], "6").unwrap();
    assert_eq!(
        drain(&fifo),
        [
            one("ns/queued", "Added:queued@1", false),
            one("ns/deleted", "Added:deleted@1", false),
            one("ns/deleted", "Deleted:deleted@1", false),
            one("ns/queued", "Tombstone:queued@1", false),
            one("ns/known", "Tombstone:known@1", false),
            one("ns/kept", "Replaced:kept@2", false),
        ]
    );
}

#[test]
fn resync_queues_sync_for_known_keys_without_queued_entries() {
    let known = Cache::with(&[cm("a", 1), cm("b", 1)]);
    let fifo = in_order(&known);
    fifo.update(cm("a", 2)).unwrap();
    fifo.resync().unwrap();
    assert_eq!(
        drain(&fifo),
        [
            one("ns/a", "Updated:a@2", false),
            one("ns/b", "Sync:b@1", false)
        ]
    );
}

#[test]
fn atomic_mode_queues_one_item_per_relist_and_resync() {
    let fifo: RealFifo<ConfigMap> = RealFifo::new(RealFifoConfig::default().with_atomic(true));
    assert!(!fifo.has_synced());
    let mut with_fields = ConfigMap::default();
    with_fields.metadata.name = Some("m".into());
    with_fields.metadata.annotations = Some([("a".to_owned(), "b".to_owned())].into());
    fifo.replace(vec![cm("a", 1), Arc::new(with_fields)], "9")
        .unwrap();
    fifo.add(cm("b", 1)).unwrap();
    fifo.resync().unwrap();
    assert_eq!(fifo.queued(), 3);
    let mut task = tokio_test::task::spawn(fifo.pop(|popped| popped));
    let std::task::Poll::Ready(Ok(popped)) = task.poll() else {
        panic!("expected an item")
    };
    drop(task);
    assert!(popped.is_in_initial_list);
    let crate::PoppedItem::ReplacedAll {
        resource_version,
        objects,
    } = popped.item
    else {
        panic!("expected ReplacedAll");
    };
    assert_eq!(resource_version, "9");
    assert_eq!(objects.len(), 2);
    let objects: Vec<_> = objects.iter().map(|o| o.load().unwrap()).collect();
    assert!(
        objects[1].metadata.annotations.is_some(),
        "listed objects are queued as they came"
    );
    assert!(fifo.has_synced());
    assert_eq!(
        drain(&fifo),
        [
            one("ns/b", "Added:b@1", false),
            ("SyncAll".into(), vec![], false)
        ]
    );
    assert!(objects[0].name() == "a");
}
