//! Unit tests of delta processing over a typed cache.

use std::sync::Mutex;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_core::{DeletedState, Store, StoreRead};
use tokio::runtime::Handle;
use tokio::time::Instant;

use super::super::handler::HandlerFns;
use super::super::sync::SyncSignal;
use super::super::testing::{configmap, settle};
use super::*;

fn cm(name: &str, rv: &str) -> Arc<ConfigMap> {
    Arc::new(configmap(name, rv))
}

fn recorder() -> (Arc<Mutex<Vec<String>>>, HandlerFns<ConfigMap>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let (a, u, d) = (log.clone(), log.clone(), log.clone());
    let handler = HandlerFns::new()
        .add_fn(move |o: &Arc<ConfigMap>, initial| {
            a.lock().unwrap().push(format!(
                "add {}@{} {initial}",
                o.name(),
                o.resource_version().unwrap_or("")
            ));
        })
        .update_fn(move |old: &Arc<ConfigMap>, new: &Arc<ConfigMap>| {
            u.lock().unwrap().push(format!(
                "update {}@{}->{}",
                new.name(),
                old.resource_version().unwrap_or(""),
                new.resource_version().unwrap_or("")
            ));
        })
        .delete_fn(move |s: &DeletedState<ConfigMap>| {
            d.lock().unwrap().push(format!(
                "delete {} tombstone={}",
                s.object().name(),
                s.is_tombstone()
            ));
        });
    (log, handler)
}

#[tokio::test(start_paused = true)]
async fn deltas_update_the_cache_before_handlers_hear() {
    let synced = SyncSignal::new();
    let processor = Processor::new(synced.watcher(), Duration::from_secs(5));
    let cache: Indexer<ConfigMap> = Indexer::default();
    let (log, handler) = recorder();
    let (resync_log, resync_handler) = recorder();
    processor
        .add_listener(Arc::new(handler), Duration::ZERO, Vec::new)
        .unwrap();
    processor
        .add_listener(Arc::new(resync_handler), Duration::from_secs(5), Vec::new)
        .unwrap();
    processor.start(Handle::current());

    process_deltas(
        [Delta::Replaced(cm("a", "1").into())],
        true,
        &cache,
        &processor,
    )
    .unwrap();
    process_deltas(
        [
            Delta::Added(cm("b", "2").into()),
            Delta::Updated(cm("b", "3").into()),
        ],
        false,
        &cache,
        &processor,
    )
    .unwrap();
    // A Sync with an unchanged resourceVersion reaches only handlers due for resync.
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert!(processor.should_resync(Instant::now()));
    process_deltas(
        [Delta::Sync(cm("a", "1").into())],
        false,
        &cache,
        &processor,
    )
    .unwrap();
    process_deltas(
        [Delta::Deleted(DeletedState::Unknown {
            key: "ns/b".into(),
            last: cm("b", "3"),
        })],
        false,
        &cache,
        &processor,
    )
    .unwrap();
    settle().await;

    assert_eq!(cache.list_keys(), ["ns/a"]);
    let common = ["add a@1 true", "add b@2 false", "update b@2->3"];
    let deleted = "delete b tombstone=true";
    let mut expected: Vec<&str> = common.to_vec();
    expected.push(deleted);
    assert_eq!(*log.lock().unwrap(), expected);
    let mut expected: Vec<&str> = common.to_vec();
    expected.extend(["update a@1->1", deleted]);
    assert_eq!(*resync_log.lock().unwrap(), expected);
}

#[tokio::test(start_paused = true)]
async fn an_add_of_a_cached_object_is_an_update() {
    let synced = SyncSignal::new();
    let processor = Processor::new(synced.watcher(), Duration::ZERO);
    let cache: Indexer<ConfigMap> = Indexer::default();
    let (log, handler) = recorder();
    processor
        .add_listener(Arc::new(handler), Duration::ZERO, Vec::new)
        .unwrap();
    processor.start(Handle::current());
    process_deltas(
        [
            Delta::Added(cm("a", "1").into()),
            Delta::Added(cm("a", "2").into()),
            Delta::Deleted(DeletedState::Known(cm("a", "3"))),
        ],
        false,
        &cache,
        &processor,
    )
    .unwrap();
    settle().await;
    assert!(cache.is_empty());
    assert_eq!(
        *log.lock().unwrap(),
        ["add a@1 false", "update a@1->2", "delete a tombstone=false"]
    );
}

#[tokio::test(start_paused = true)]
async fn replaced_all_reports_deletions_first_then_list_order() {
    let synced = SyncSignal::new();
    let processor = Processor::new(synced.watcher(), Duration::ZERO);
    let cache: Indexer<ConfigMap> = Indexer::default();
    let (log, handler) = recorder();
    processor
        .add_listener(Arc::new(handler), Duration::ZERO, Vec::new)
        .unwrap();
    processor.start(Handle::current());
    let replace = |objects: Vec<Arc<ConfigMap>>, initial| {
        let item = PoppedItem::ReplacedAll {
            resource_version: "9".into(),
            objects: objects.into_iter().map(Cached::from).collect(),
        };
        Popped::new(item, initial)
    };
    process_item(
        replace(vec![cm("a", "1"), cm("b", "1")], true),
        &cache,
        &processor,
    )
    .unwrap();
    process_item(
        replace(vec![cm("c", "2"), cm("a", "3")], false),
        &cache,
        &processor,
    )
    .unwrap();
    // Everything cached is re-delivered, unchanged, to handlers due for resync only.
    process_item(Popped::new(PoppedItem::SyncAll, false), &cache, &processor).unwrap();
    settle().await;
    assert_eq!(cache.last_sync_resource_version(), "9");
    let mut keys = cache.list_keys();
    keys.sort();
    assert_eq!(keys, ["ns/a", "ns/c"]);
    assert_eq!(
        *log.lock().unwrap(),
        [
            "add a@1 true",
            "add b@1 true",
            "delete b tombstone=true",
            "add c@2 false",
            "update a@1->3"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn sync_all_reaches_handlers_due_for_resync() {
    let synced = SyncSignal::new();
    let processor = Processor::new(synced.watcher(), Duration::from_secs(1));
    let cache: Indexer<ConfigMap> = Indexer::default();
    cache.add(cm("a", "1")).unwrap();
    let (log, handler) = recorder();
    processor
        .add_listener(Arc::new(handler), Duration::from_secs(1), Vec::new)
        .unwrap();
    processor.start(Handle::current());
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(processor.should_resync(Instant::now()));
    let sync_all = || Popped::new(PoppedItem::SyncAll, false);
    process_item(sync_all(), &cache, &processor).unwrap();
    // Not due any more until the next period.
    assert!(!processor.should_resync(Instant::now()));
    process_item(sync_all(), &cache, &processor).unwrap();
    settle().await;
    assert_eq!(*log.lock().unwrap(), ["update a@1->1"]);
}
