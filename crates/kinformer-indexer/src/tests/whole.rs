//! What user code sees of a compact cache: key and index functions get whole objects whatever
//! path an object takes, and reading the whole cache decodes one object at a time.

use crate::IndexRead;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kinformer_core::{Cached, DeletedState, KeyFunc, Object, Store, StoreRead, object_key};
use kinformer_selector::LabelSelector;
use serde::{Deserialize, Serialize};

use super::{by_node, pod};
use crate::{CacheLister, Compact, Config, IndexFunc, Indexer};

/// A key function that fails the test on anything but a whole pod (one with a spec), and
/// counts its calls.
fn whole_pods_only(calls: &Arc<AtomicUsize>) -> KeyFunc<Pod> {
    let calls = Arc::clone(calls);
    KeyFunc::new(move |pod: &Pod| {
        assert!(pod.spec.is_some(), "a key function saw a partial pod");
        calls.fetch_add(1, Ordering::Relaxed);
        object_key(pod)
    })
}

fn at(rv: &str, name: &str, node: &str) -> Arc<Pod> {
    let mut pod = (*pod("ns", name, "web", node)).clone();
    pod.metadata.resource_version = Some(rv.into());
    Arc::new(pod)
}

/// Lists, relists (unchanged, changed, vanished objects), deltas of listed objects, watch
/// events, tombstones and reads: the key function sees only whole pods, and the cache ends
/// holding exactly what the last writes said.
#[test]
fn a_compact_cache_keys_whole_objects_through_relists_and_tombstones() {
    let calls = Arc::new(AtomicUsize::new(0));
    let store: Indexer<Pod> = Indexer::new(
        Config::default()
            .with_key_func(whole_pods_only(&calls))
            .with_index("node", by_node())
            .with_compact(Compact::json()),
    );
    let list = |pods: &[Arc<Pod>]| -> Vec<Cached<Pod>> {
        pods.iter()
            .map(|pod| store.admit_with(Arc::clone(pod), |pod| pod))
            .collect()
    };
    let first = list(&[at("1", "a", "n1"), at("2", "b", "n1"), at("3", "c", "n2")]);
    store.replace_admitted(first.clone(), "3").unwrap();
    // A delta FIFO hands listed objects back one by one, and watch events follow.
    for listed in first {
        store.upsert(listed).unwrap();
    }
    store.update(at("4", "b", "n2")).unwrap();
    // A relist: `a` unchanged, `b` changed again, `c` vanished, `d` new.
    let second = list(&[at("1", "a", "n1"), at("5", "b", "n3"), at("6", "d", "n1")]);
    store.replace_admitted(second, "6").unwrap();
    assert!(store.delete_state(&DeletedState::Unknown {
        key: "ns/d".into(),
        last: at("6", "d", "n1"),
    }));
    store
        .add_indexers([(
            "app".to_owned(),
            IndexFunc::new(|pod: &Pod| {
                Ok(pod
                    .labels()
                    .and_then(|l| l.get("app"))
                    .cloned()
                    .into_iter()
                    .collect())
            }),
        )])
        .unwrap();

    let mut keys = store.list_keys();
    keys.sort();
    assert_eq!(keys, ["ns/a", "ns/b"]);
    assert_eq!(
        store.get_by_key("ns/b").unwrap().resource_version(),
        Some("5")
    );
    assert_eq!(store.index_keys("node", "n1").unwrap(), ["ns/a"]);
    assert_eq!(store.index_keys("node", "n3").unwrap(), ["ns/b"]);
    assert_eq!(store.index_keys("app", "web").unwrap(), ["ns/a", "ns/b"]);
    assert!(calls.load(Ordering::Relaxed) > 0);
}

thread_local! {
    /// Decoded `Tracked` objects alive on this thread.
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

/// Counts itself in [`LIVE`] while alive.
#[derive(Debug, PartialEq)]
struct Alive(());

impl Alive {
    fn new() -> Self {
        LIVE.set(LIVE.get() + 1);
        PEAK.set(PEAK.get().max(LIVE.get()));
        Self(())
    }
}

impl Default for Alive {
    fn default() -> Self {
        Self::new()
    }
}

impl Clone for Alive {
    fn clone(&self) -> Self {
        Self::new()
    }
}

impl Drop for Alive {
    fn drop(&mut self) {
        LIVE.set(LIVE.get() - 1);
    }
}

/// An object whose decoded copies are counted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Tracked {
    metadata: ObjectMeta,
    #[serde(skip)]
    alive: Alive,
}

impl Object for Tracked {
    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

fn tracked(ns: &str, name: &str, app: &str) -> Arc<Tracked> {
    let mut obj = Tracked::default();
    obj.metadata.namespace = Some(ns.into());
    obj.metadata.name = Some(name.into());
    obj.metadata.labels = Some(BTreeMap::from([("app".to_owned(), app.to_owned())]));
    Arc::new(obj)
}

/// Runs `read` and returns the most decoded objects alive at once during it.
fn peak_during(read: impl FnOnce()) -> usize {
    let before = LIVE.get();
    PEAK.set(before);
    read();
    PEAK.get() - before
}

#[test]
fn reading_a_whole_compact_cache_decodes_one_object_at_a_time() {
    const N: usize = 50;
    let store = Arc::new(Indexer::<Tracked>::new(
        Config::default().with_compact(Compact::json()),
    ));
    for i in 0..N {
        store
            .add(tracked(
                "ns",
                &format!("o{i}"),
                if i % 2 == 0 { "even" } else { "odd" },
            ))
            .unwrap();
    }
    assert_eq!(LIVE.get(), 0, "the cache holds no decoded object");
    let lister = CacheLister::new(Arc::clone(&store), "tracked");
    let even = LabelSelector::parse("app=even").unwrap();
    let everything = LabelSelector::default();
    let mut seen = 0;
    assert_eq!(peak_during(|| store.iter().for_each(|_| seen += 1)), 1);
    assert_eq!(seen, N);
    assert_eq!(peak_during(|| seen = lister.iter(&everything).count()), 1);
    assert_eq!(seen, N);
    assert_eq!(peak_during(|| seen = lister.iter(&even).count()), 1);
    assert_eq!(seen, N / 2);
    let namespaced = lister.namespaced("ns");
    assert_eq!(peak_during(|| seen = namespaced.iter(&even).count()), 1);
    assert_eq!(seen, N / 2);
    // A list keeps what it returns and the object it is looking at: every match, plus one
    // non-match unless the last object it looks at (in the cache's hash order) is a match.
    let peak = peak_during(|| seen = lister.list(&even).len());
    assert!((N / 2..=N / 2 + 1).contains(&peak), "peak {peak}");
    assert_eq!(seen, N / 2);
    // `list` decodes the whole cache at once, which is what `iter` avoids.
    assert_eq!(peak_during(|| seen = store.list().len()), N);
}
