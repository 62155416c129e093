//! [`process_deltas`]: apply one key's deltas to the cache, then notify (client-go's
//! `processDeltas`).

use std::sync::Arc;

use std::collections::HashSet;

use kinformer_core::{Delta, Object, Store, StoreError, StoreRead};
use kinformer_indexer::{Indexer, Lazy};

use super::notification::Notification;
use super::processor::Processor;
use kinformer_deltafifo::{Popped, PoppedItem};

/// Applies one popped item to `cache` and notifies the handlers.
///
/// # Errors
/// A cache error; the rest of the item is skipped (a later relist repairs the cache).
pub(crate) fn process_item<K: Object>(
    popped: Popped<K>,
    cache: &Indexer<K>,
    processor: &Processor<K>,
) -> Result<(), StoreError> {
    let initial = popped.is_in_initial_list;
    match popped.item {
        PoppedItem::Deltas { deltas, .. } => process_deltas(deltas, initial, cache, processor),
        PoppedItem::ReplacedAll {
            resource_version,
            objects,
        } => replace_all(objects, &resource_version, initial, cache, processor),
        PoppedItem::SyncAll => {
            for obj in cache.list_lazy() {
                let notification = Notification::Update {
                    old: obj.clone(),
                    new: obj,
                };
                processor.distribute(&notification, true);
            }
            Ok(())
        }
    }
}

/// client-go's atomic replace: swap the cache content in one step, then report deletions
/// (tombstones with the cached object) first, then updates and adds in list order.
fn replace_all<K: Object>(
    objects: Vec<Arc<K>>,
    resource_version: &str,
    initial: bool,
    cache: &Indexer<K>,
    processor: &Processor<K>,
) -> Result<(), StoreError> {
    let key_func = cache.key_func();
    let listed: HashSet<String> = objects.iter().map(|o| key_func.key(o)).collect();
    // Taken without decoding: a compact cache's packed object is decoded on delivery, where a
    // failure reaches the handler instead of losing the delete.
    let deleted: Vec<(Arc<str>, Lazy<K>)> = cache
        .list_keys()
        .into_iter()
        .filter(|key| !listed.contains(key))
        .filter_map(|key| cache.get_lazy(&key).map(|last| (Arc::from(key), last)))
        .collect();
    // What each listed object replaces, taken before the replace and without decoding.
    let previous: Vec<_> = objects.iter().map(|obj| cache.previous_lazy(obj)).collect();
    cache.replace(objects.clone(), resource_version)?;
    for (key, last) in deleted {
        processor.distribute(&Notification::Vanished { key, last }, false);
    }
    for (obj, previous) in objects.iter().zip(previous) {
        let Some(new) = handed_on(cache, obj) else {
            continue;
        };
        match previous {
            Some((old, same_revision)) => {
                processor.distribute(&Notification::Update { old, new }, same_revision);
            }
            None => processor.distribute(&Notification::Add { obj: new, initial }, false),
        }
    }
    Ok(())
}

/// Applies `deltas` (oldest first) to `cache`, and after each change queues the matching
/// notification for the handlers.
///
/// - `Added`, `Updated`, `Replaced`, `Sync`: an update (old, new) when the key is cached, else an
///   add; an update whose resourceVersion did not change is a resync and goes only to handlers
///   due for one.
/// - `Deleted`: removed from the cache, then a delete (tombstones included).
///
/// # Errors
/// A cache error stops processing of the remaining deltas, as in client-go.
fn process_deltas<K: Object>(
    deltas: impl IntoIterator<Item = Delta<K>>,
    is_in_initial_list: bool,
    cache: &Indexer<K>,
    processor: &Processor<K>,
) -> Result<(), StoreError> {
    for delta in deltas {
        match delta {
            Delta::Deleted(state) => {
                cache.delete_state(&state);
                processor.distribute(&Notification::Delete(state), false);
            }
            Delta::Added(obj) | Delta::Updated(obj) | Delta::Replaced(obj) | Delta::Sync(obj) => {
                upsert(obj, is_in_initial_list, cache, processor)?;
            }
        }
    }
    Ok(())
}

fn upsert<K: Object>(
    obj: Arc<K>,
    is_in_initial_list: bool,
    cache: &Indexer<K>,
    processor: &Processor<K>,
) -> Result<(), StoreError> {
    let previous = cache.previous_lazy(&obj);
    match previous {
        Some(_) => cache.update(Arc::clone(&obj))?,
        None => cache.add(Arc::clone(&obj))?,
    }
    let Some(new) = handed_on(cache, &obj) else {
        return Ok(());
    };
    match previous {
        Some((old, same_revision)) => {
            processor.distribute(&Notification::Update { old, new }, same_revision);
        }
        None => {
            let initial = is_in_initial_list;
            processor.distribute(&Notification::Add { obj: new, initial }, false);
        }
    }
    Ok(())
}

/// `obj` as handlers get it, once the cache took it in: a compact cache's stand-in is handed on
/// as the packed object the cache holds. `None` only if the cache lost the entry between the
/// write and this read, which the informer's delta lock rules out; logged, as it would lose a
/// notification.
fn handed_on<K: Object>(cache: &Indexer<K>, obj: &Arc<K>) -> Option<Lazy<K>> {
    let handed_on = cache.lazy_of(obj);
    if handed_on.is_none() {
        tracing::error!(
            key = cache.key_func().key(obj),
            "a listed object is missing from the cache it was just written to; its notification is lost"
        );
    }
    handed_on
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::Duration;

    use k8s_openapi::api::core::v1::ConfigMap;
    use kinformer_core::{DeletedState, StoreRead};
    use tokio::runtime::Handle;
    use tokio::time::Instant;

    use super::super::handler::HandlerFns;
    use super::super::sync::SyncSignal;
    use super::*;

    fn cm(name: &str, rv: &str) -> Arc<ConfigMap> {
        let mut cm = ConfigMap::default();
        cm.metadata.namespace = Some("ns".into());
        cm.metadata.name = Some(name.into());
        cm.metadata.resource_version = Some(rv.into());
        Arc::new(cm)
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

    async fn settle() {
        for _ in 0..20 {
            tokio::task::yield_now().await;
        }
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

        process_deltas([Delta::Replaced(cm("a", "1"))], true, &cache, &processor).unwrap();
        process_deltas(
            [Delta::Added(cm("b", "2")), Delta::Updated(cm("b", "3"))],
            false,
            &cache,
            &processor,
        )
        .unwrap();
        // A Sync with an unchanged resourceVersion reaches only handlers due for resync.
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(processor.should_resync(Instant::now()));
        process_deltas([Delta::Sync(cm("a", "1"))], false, &cache, &processor).unwrap();
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
                Delta::Added(cm("a", "1")),
                Delta::Added(cm("a", "2")),
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
                objects,
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
}
