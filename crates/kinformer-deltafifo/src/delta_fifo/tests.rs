use std::sync::Arc;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_core::{DeletedState, Delta, Object, Store};

use super::{DeltaFifo, DeltaFifoConfig};
use crate::tests::{Cache, cm, describe, pop_described};
use crate::{DeltaQueue, Error, KnownObjects, PoppedItem};

fn fifo_with(known: &Arc<Cache>) -> DeltaFifo<ConfigMap> {
    let known: KnownObjects<ConfigMap> = known.clone();
    DeltaFifo::new(
        DeltaFifoConfig::default()
            .with_known_objects(known)
            .with_emit_replaced(true),
    )
}

fn pending(fifo: &DeltaFifo<ConfigMap>, key: &str) -> Vec<String> {
    fifo.deltas(key)
        .unwrap_or_default()
        .iter()
        .map(describe)
        .collect()
}

#[test]
fn add_update_delete_collapse_into_one_pop() {
    let fifo = DeltaFifo::<ConfigMap>::default();
    fifo.add(cm("a", 1)).unwrap();
    fifo.update(cm("a", 2)).unwrap();
    fifo.update(cm("a", 3)).unwrap();
    fifo.delete(cm("a", 3)).unwrap();
    assert_eq!(fifo.queued(), 1);
    let (key, deltas, _) = pop_described(&fifo);
    assert_eq!(key, "ns/a");
    assert_eq!(
        deltas,
        ["Added:a@1", "Updated:a@2", "Updated:a@3", "Deleted:a@3"]
    );
    assert_eq!(fifo.queued(), 0);
}

#[test]
fn no_line_jumping() {
    let fifo = DeltaFifo::<ConfigMap>::default();
    fifo.add(cm("a", 1)).unwrap();
    fifo.add(cm("b", 1)).unwrap();
    fifo.update(cm("a", 2)).unwrap();
    fifo.add(cm("c", 1)).unwrap();
    fifo.update(cm("b", 2)).unwrap();
    assert_eq!(fifo.queued_keys(), ["ns/a", "ns/b", "ns/c"]);
    assert_eq!(pop_described(&fifo).1, ["Added:a@1", "Updated:a@2"]);
    fifo.update(cm("a", 3)).unwrap();
    assert_eq!(fifo.queued_keys(), ["ns/b", "ns/c", "ns/a"]);
}

#[test]
fn only_two_consecutive_deletes_merge_keeping_the_older_unless_a_tombstone() {
    let known = Cache::with(&[cm("a", 1), cm("b", 1)]);
    let fifo = fifo_with(&known);
    fifo.delete(cm("a", 1)).unwrap();
    fifo.delete(cm("a", 2)).unwrap();
    assert_eq!(pending(&fifo, "ns/a"), ["Deleted:a@1"]);

    // A tombstone followed by a real delete: the real one is kept.
    fifo.replace(vec![], "5").unwrap();
    assert_eq!(pending(&fifo, "ns/b"), ["Tombstone:b@1"]);
    fifo.delete(cm("b", 2)).unwrap();
    assert_eq!(pending(&fifo, "ns/b"), ["Deleted:b@2"]);

    // Nothing but deletes is merged.
    let plain = DeltaFifo::<ConfigMap>::default();
    plain.add(cm("c", 1)).unwrap();
    plain.update(cm("c", 1)).unwrap();
    plain.update(cm("c", 1)).unwrap();
    assert_eq!(pending(&plain, "ns/c").len(), 3);
}

#[test]
fn delete_of_a_key_neither_known_nor_queued_is_ignored() {
    let plain = DeltaFifo::<ConfigMap>::default();
    plain.delete(cm("gone", 1)).unwrap();
    assert_eq!(plain.queued(), 0);
    assert!(
        plain.has_synced(),
        "a delete still marks the queue populated"
    );

    let known = Cache::with(&[cm("k", 1)]);
    let fifo = fifo_with(&known);
    fifo.delete(cm("gone", 1)).unwrap();
    assert_eq!(fifo.queued(), 0);
    fifo.delete(cm("k", 1)).unwrap();
    assert_eq!(pending(&fifo, "ns/k"), ["Deleted:k@1"]);
}

#[test]
fn replace_after_a_queued_delete_keeps_the_delete_and_adds_no_tombstone() {
    let known = Cache::with(&[cm("a", 1), cm("b", 1)]);
    let fifo = fifo_with(&known);
    fifo.delete(cm("b", 1)).unwrap();
    fifo.replace(vec![cm("a", 2)], "10").unwrap();
    assert_eq!(pending(&fifo, "ns/b"), ["Deleted:b@1"]);
    assert_eq!(pending(&fifo, "ns/a"), ["Replaced:a@2"]);
    assert_eq!(fifo.queued_keys(), ["ns/b", "ns/a"]);
}

#[test]
fn replace_tombstones_objects_only_in_the_queue_and_known_objects() {
    let known = Cache::with(&[cm("known", 4)]);
    let fifo = fifo_with(&known);
    fifo.add(cm("queued", 1)).unwrap();
    fifo.update(cm("queued", 2)).unwrap();
    fifo.replace(vec![cm("listed", 3)], "10").unwrap();
    assert_eq!(
        pending(&fifo, "ns/queued"),
        ["Added:queued@1", "Updated:queued@2", "Tombstone:queued@2"]
    );
    assert_eq!(pending(&fifo, "ns/known"), ["Tombstone:known@4"]);
    assert_eq!(pending(&fifo, "ns/listed"), ["Replaced:listed@3"]);
    let Some(Delta::Deleted(DeletedState::Unknown { key, last })) =
        fifo.deltas("ns/known").and_then(|d| d.into_iter().next())
    else {
        panic!("expected a tombstone");
    };
    assert_eq!(key, "ns/known");
    assert!(Arc::ptr_eq(&last, &known.0.lock().unwrap()["ns/known"]));
}

#[test]
fn a_second_replace_unwraps_the_tombstone_and_keeps_one() {
    let known = Cache::with(&[cm("x", 1)]);
    let fifo = fifo_with(&known);
    fifo.replace(vec![], "1").unwrap();
    fifo.replace(vec![], "2").unwrap();
    assert_eq!(pending(&fifo, "ns/x"), ["Tombstone:x@1"]);
    let deltas = fifo.deltas("ns/x").unwrap();
    assert!(
        matches!(&deltas[0], Delta::Deleted(DeletedState::Unknown { last, .. }) if last.name() == "x")
    );
}

#[test]
fn replace_emits_sync_without_the_replaced_option() {
    let fifo = DeltaFifo::<ConfigMap>::default();
    fifo.replace(vec![cm("a", 1)], "1").unwrap();
    assert_eq!(pending(&fifo, "ns/a"), ["Sync:a@1"]);
}

#[test]
fn resync_skips_keys_with_pending_deltas() {
    let known = Cache::with(&[cm("a", 1), cm("b", 1)]);
    let fifo = fifo_with(&known);
    fifo.update(cm("a", 2)).unwrap();
    fifo.resync().unwrap();
    assert_eq!(pending(&fifo, "ns/a"), ["Updated:a@2"]);
    assert_eq!(pending(&fifo, "ns/b"), ["Sync:b@1"]);

    let plain = DeltaFifo::<ConfigMap>::default();
    plain.resync().unwrap();
    assert_eq!(plain.queued(), 0);
}

#[test]
fn has_synced_counts_the_first_replace_population() {
    let fifo = DeltaFifo::<ConfigMap>::default();
    assert!(!fifo.has_synced());
    fifo.replace(vec![cm("a", 1), cm("b", 1), cm("a", 2)], "1")
        .unwrap();
    assert!(!fifo.has_synced());
    assert_eq!(
        pop_described(&fifo),
        (
            "ns/a".into(),
            vec!["Sync:a@1".into(), "Sync:a@2".into()],
            true
        )
    );
    assert!(!fifo.has_synced());
    assert!(pop_described(&fifo).2);
    assert!(fifo.has_synced());
    fifo.add(cm("c", 1)).unwrap();
    assert!(!pop_described(&fifo).2);

    let empty = DeltaFifo::<ConfigMap>::default();
    empty.replace(vec![], "1").unwrap();
    assert!(empty.has_synced());

    let added = DeltaFifo::<ConfigMap>::default();
    added.add(cm("a", 1)).unwrap();
    assert!(
        added.has_synced(),
        "an add marks the queue populated with nothing to count"
    );
}

#[test]
fn has_synced_across_deletions_in_the_first_replace() {
    let known = Cache::with(&[cm("old", 1)]);
    let fifo = fifo_with(&known);
    fifo.replace(vec![cm("a", 1)], "1").unwrap();
    assert_eq!(fifo.queued(), 2);
    assert!(pop_described(&fifo).2);
    assert!(
        !fifo.has_synced(),
        "the tombstone is part of the initial population"
    );
    let (key, deltas, initial) = pop_described(&fifo);
    assert_eq!(
        (key.as_str(), deltas, initial),
        ("ns/old", vec!["Tombstone:old@1".to_owned()], true)
    );
    assert!(fifo.has_synced());
    // Later replaces do not reset the count.
    fifo.replace(vec![cm("b", 1)], "2").unwrap();
    assert!(fifo.has_synced());
}

#[test]
fn queues_the_object_it_is_given_without_a_copy() {
    let fifo: DeltaFifo<ConfigMap> = DeltaFifo::default();
    let mut obj = ConfigMap::default();
    obj.metadata.name = Some("a".into());
    obj.metadata.annotations = Some([("a".to_owned(), "b".to_owned())].into());
    let obj = Arc::new(obj);
    fifo.add(Arc::clone(&obj)).unwrap();
    let deltas = fifo.deltas("a").unwrap();
    let queued = deltas[0].object().load().unwrap();
    assert_eq!(queued, obj, "nothing dropped: the queue has no transform");
    assert!(Arc::ptr_eq(&queued, &obj), "no copy was made");
}

#[tokio::test(start_paused = true)]
async fn pop_blocks_until_an_item_arrives() {
    let fifo = Arc::new(DeltaFifo::<ConfigMap>::default());
    let popper = {
        let fifo = Arc::clone(&fifo);
        tokio::spawn(async move { fifo.pop(|p| p.item).await })
    };
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    assert!(!popper.is_finished());
    fifo.add(cm("a", 1)).unwrap();
    let item = popper.await.unwrap().unwrap();
    assert!(matches!(item, PoppedItem::Deltas { ref key, .. } if key == "ns/a"));
}

#[tokio::test(start_paused = true)]
async fn close_delivers_queued_items_then_errors_and_wakes_waiters() {
    let fifo = Arc::new(DeltaFifo::<ConfigMap>::default());
    fifo.add(cm("a", 1)).unwrap();
    fifo.close();
    assert!(fifo.is_closed());
    assert!(fifo.pop(|p| p.item).await.is_ok());
    assert_eq!(fifo.pop(|p| p.item).await.map(|_| ()), Err(Error::Closed));

    let open = Arc::new(DeltaFifo::<ConfigMap>::default());
    let waiter = {
        let open = Arc::clone(&open);
        tokio::spawn(async move { open.pop(|_| ()).await })
    };
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    open.close();
    assert_eq!(waiter.await.unwrap(), Err(Error::Closed));
}

#[tokio::test(start_paused = true)]
async fn synced_resolves_after_the_last_initial_item_is_processed() {
    let fifo = Arc::new(DeltaFifo::<ConfigMap>::default());
    let waiter = {
        let fifo = Arc::clone(&fifo);
        tokio::spawn(async move { fifo.synced().await })
    };
    fifo.replace(vec![cm("a", 1), cm("b", 1)], "1").unwrap();
    fifo.pop(|_| ()).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    assert!(!waiter.is_finished());
    fifo.pop(|_| ()).await.unwrap();
    waiter.await.unwrap();
    assert!(fifo.has_synced());
    // Already synced: resolves at once.
    fifo.synced().await;
}

/// Known objects a compact cache holds packed: a resync queues them packed (decoding
/// nothing), a deleted key's check decodes nothing, and a relist's tombstone carries the last
/// state decoded, whole.
#[test]
fn packed_known_objects_are_queued_as_the_cache_holds_them() {
    use kinformer_indexer::{Compact, Config as IndexerConfig, Indexer};

    let cache = Indexer::<ConfigMap>::new(IndexerConfig::default().with_compact(Compact::json()));
    cache.add(cm("a", 1)).unwrap();
    cache.add(cm("b", 1)).unwrap();
    let known: KnownObjects<ConfigMap> = Arc::new(cache);
    let fifo = DeltaFifo::new(DeltaFifoConfig::default().with_known_objects(known));
    fifo.resync().unwrap();
    let synced = fifo.deltas("ns/a").unwrap();
    assert!(matches!(&synced[0], Delta::Sync(obj) if obj.decoded().is_none()));
    assert_eq!(*synced[0].object().load().unwrap(), *cm("a", 1));
    // `b` is queued already; `c` is neither queued nor known.
    fifo.delete(cm("b", 2)).unwrap();
    fifo.delete(cm("c", 2)).unwrap();
    assert!(fifo.deltas("ns/c").is_none());
    fifo.replace(vec![cm("b", 3)], "3").unwrap();
    assert_eq!(
        pending(&fifo, "ns/a"),
        ["Sync:a@1", "Tombstone:a@1"],
        "the tombstone's last state is the queued object, decoded"
    );
    let Some(Delta::Deleted(DeletedState::Unknown { last, .. })) =
        fifo.deltas("ns/a").unwrap().pop()
    else {
        panic!("expected a tombstone");
    };
    assert_eq!(*last, *cm("a", 1));
}
