//! Delta processing over a compact cache: listed objects arrive packed and are stored as they
//! are, and handlers receive whole objects through relists, tombstones, resyncs and a delta
//! FIFO's one-key deltas.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_core::{DeletedState, StoreRead};
use kinformer_indexer::{Compact, Config as IndexerConfig};
use tokio::runtime::Handle;
use tokio::time::Instant;

use super::super::handler::HandlerFns;
use super::super::sync::SyncSignal;
use super::super::testing::{configmap, settle};
use super::*;

/// A config map `ns/name` at `rv`, with data (so a partial object shows).
fn cm(name: &str, rv: &str) -> Arc<ConfigMap> {
    let mut cm = configmap(name, rv);
    cm.data = Some(BTreeMap::from([("k".to_owned(), format!("{name}{rv}"))]));
    Arc::new(cm)
}

/// `name@rv`, marked when the object is not whole.
fn seen(cm: &ConfigMap) -> String {
    let whole = cm
        .data
        .as_ref()
        .and_then(|d| d.get("k"))
        .map(String::as_str)
        == Some(&format!("{}{}", cm.name(), cm.resource_version().unwrap_or(""))[..]);
    let mark = if whole { "" } else { " (partial)" };
    format!(
        "{}@{}{mark}",
        cm.name(),
        cm.resource_version().unwrap_or("")
    )
}

type Log = Arc<Mutex<Vec<String>>>;

fn recorder() -> (Log, HandlerFns<ConfigMap>) {
    let log = Log::default();
    let (a, u, d) = (log.clone(), log.clone(), log.clone());
    let handler = HandlerFns::new()
        .add_fn(move |o: &Arc<ConfigMap>, _| a.lock().unwrap().push(format!("add {}", seen(o))))
        .update_fn(move |old: &Arc<ConfigMap>, new: &Arc<ConfigMap>| {
            let line = format!("update {} -> {}", seen(old), seen(new));
            u.lock().unwrap().push(line);
        })
        .delete_fn(move |s: &DeletedState<ConfigMap>| {
            let line = format!("delete {} tombstone={}", seen(s.object()), s.is_tombstone());
            d.lock().unwrap().push(line);
        });
    (log, handler)
}

/// A list as a reflector hands it on: each object admitted into the cache as it arrives.
fn listed(cache: &Indexer<ConfigMap>, objects: &[Arc<ConfigMap>]) -> Vec<Cached<ConfigMap>> {
    objects
        .iter()
        .map(|obj| cache.admit_with(Arc::clone(obj), |obj| obj))
        .collect()
}

fn replaced_all(objects: Vec<Cached<ConfigMap>>) -> Popped<ConfigMap> {
    let item = PoppedItem::ReplacedAll {
        resource_version: "9".into(),
        objects,
    };
    Popped::new(item, false)
}

#[tokio::test(start_paused = true)]
async fn a_compact_cache_round_trips_through_relists_tombstones_and_resyncs() {
    let synced = SyncSignal::new();
    let processor = Processor::new(synced.watcher(), Duration::from_secs(1));
    let cache = Indexer::new(IndexerConfig::default().with_compact(Compact::json()));
    let (log, handler) = recorder();
    let (resync_log, resync_handler) = recorder();
    processor
        .add_listener(Arc::new(handler), Duration::ZERO, Vec::new)
        .unwrap();
    processor
        .add_listener(Arc::new(resync_handler), Duration::from_secs(1), Vec::new)
        .unwrap();
    processor.start(Handle::current());
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(processor.should_resync(Instant::now()));

    let first = listed(&cache, &[cm("a", "1"), cm("b", "1")]);
    assert!(
        first.iter().all(|obj| obj.decoded().is_none()),
        "packed as listed"
    );
    process_item(replaced_all(first), &cache, &processor).unwrap();
    let watched = [Delta::Updated(cm("a", "2").into())];
    process_deltas(watched, false, &cache, &processor).unwrap();
    // A relist: `a` unchanged (its packed bytes are reused), `b` vanished, `c` new.
    let second = listed(&cache, &[cm("a", "2"), cm("c", "3")]);
    process_item(replaced_all(second), &cache, &processor).unwrap();
    // A delta FIFO hands listed objects on one key at a time, then a tombstone.
    let one_by_one = [
        Delta::Replaced(listed(&cache, &[cm("d", "4")]).remove(0)),
        Delta::Deleted(DeletedState::Unknown {
            key: "ns/d".into(),
            last: cm("d", "4"),
        }),
    ];
    process_deltas(one_by_one, false, &cache, &processor).unwrap();
    process_item(Popped::new(PoppedItem::SyncAll, false), &cache, &processor).unwrap();
    settle().await;

    assert_eq!(
        *log.lock().unwrap(),
        [
            "add a@1",
            "add b@1",
            "update a@1 -> a@2",
            "delete b@1 tombstone=true",
            "add c@3",
            "add d@4",
            "delete d@4 tombstone=true",
        ]
    );
    // The handler due for resync also gets the unchanged `a` of the relist and the resync.
    let mut resyncs: Vec<String> = resync_log
        .lock()
        .unwrap()
        .iter()
        .filter(|line| !log.lock().unwrap().contains(line))
        .cloned()
        .collect();
    resyncs.sort();
    assert_eq!(
        resyncs,
        [
            "update a@2 -> a@2",
            "update a@2 -> a@2",
            "update c@3 -> c@3"
        ]
    );
    let mut keys = cache.list_keys();
    keys.sort();
    assert_eq!(keys, ["ns/a", "ns/c"]);
    assert!(
        cache
            .list_cached()
            .iter()
            .all(|obj| obj.decoded().is_none())
    );
    let mut held: Vec<String> = cache.iter().map(|obj| seen(&obj)).collect();
    held.sort();
    assert_eq!(held, ["a@2", "c@3"]);
}
