use crate::IndexRead;
use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{DeletedState, KeyFunc, Object, Store, StoreError, StoreRead};
use kinformer_selector::LabelSelector;

use super::{by_app, by_node, indexer, pod};
use crate::{CacheLister, Config, Error, IndexFunc, Indexer, NAMESPACE_INDEX};

fn sorted_keys(indexer: &Indexer<Pod>) -> Vec<String> {
    let mut keys = indexer.list_keys();
    keys.sort();
    keys
}

#[test]
fn add_get_update_delete_share_the_arc() {
    let store = indexer();
    let a = pod("ns", "a", "web", "n1");
    store.add(Arc::clone(&a)).unwrap();
    store.add(pod("", "cluster", "", "")).unwrap();
    assert!(Arc::ptr_eq(&store.get_by_key("ns/a").unwrap(), &a));
    assert!(Arc::ptr_eq(&store.get(&a).unwrap(), &a));
    assert_eq!(sorted_keys(&store), ["cluster", "ns/a"]);
    assert_eq!(store.len(), 2);

    let a2 = pod("ns", "a", "api", "n2");
    store.update(Arc::clone(&a2)).unwrap();
    assert!(Arc::ptr_eq(&store.get_by_key("ns/a").unwrap(), &a2));
    store.delete(pod("ns", "a", "", "")).unwrap();
    store.delete(pod("ns", "never", "", "")).unwrap();
    assert_eq!(sorted_keys(&store), ["cluster"]);
}

#[test]
fn indexes_follow_updates_and_drop_empty_values() {
    let store = indexer();
    store.add(pod("ns", "b", "web", "n1")).unwrap();
    store.add(pod("ns", "a", "web", "n1")).unwrap();
    store.add(pod("other", "c", "api", "n2")).unwrap();
    assert_eq!(store.index_keys("node", "n1").unwrap(), ["ns/a", "ns/b"]);
    assert_eq!(
        store.index_keys(NAMESPACE_INDEX, "ns").unwrap(),
        ["ns/a", "ns/b"]
    );
    assert_eq!(store.list_index_func_values("node"), ["n1", "n2"]);

    store.update(pod("other", "c", "api", "n3")).unwrap();
    assert_eq!(store.list_index_func_values("node"), ["n1", "n3"]);
    assert!(store.index_keys("node", "n2").unwrap().is_empty());

    store.delete(pod("ns", "a", "", "")).unwrap();
    store.delete(pod("ns", "b", "", "")).unwrap();
    assert_eq!(store.list_index_func_values("node"), ["n3"]);
    assert_eq!(store.list_index_func_values(NAMESPACE_INDEX), ["other"]);
    let by = store.by_index("app", "api").unwrap();
    assert_eq!(by.len(), 1);
    assert_eq!(by[0].name(), "c");
}

#[test]
fn index_query_unions_the_values_of_an_object() {
    let store = Indexer::new(Config::default().with_index(
        "letters",
        IndexFunc::new(|pod: &Pod| Ok(pod.name().chars().map(String::from).collect())),
    ));
    for name in ["ab", "bc", "cd", "xy"] {
        store.add(pod("", name, "", "")).unwrap();
    }
    let probe = pod("", "bb", "", "");
    let names: Vec<String> = store
        .index("letters", &probe)
        .unwrap()
        .iter()
        .map(|p| p.name().to_owned())
        .collect();
    assert_eq!(names, ["ab", "bc"]);
}

#[test]
fn unknown_indexes_are_errors_except_for_values() {
    let store = indexer();
    let unknown = Error::UnknownIndex {
        name: "nope".into(),
    };
    assert_eq!(store.index_keys("nope", "x"), Err(unknown.clone()));
    assert_eq!(
        store.by_index("nope", "x").map(|v| v.len()),
        Err(unknown.clone())
    );
    assert_eq!(
        store.index("nope", &pod("", "a", "", "")).map(|v| v.len()),
        Err(unknown)
    );
    assert!(store.list_index_func_values("nope").is_empty());
}

#[test]
fn add_indexers_rejects_conflicts_and_indexes_existing_items() {
    let store: Indexer<Pod> = Indexer::default();
    store.add(pod("ns", "a", "web", "n1")).unwrap();
    assert_eq!(
        store.add_indexers([("namespace".to_owned(), by_node())]),
        Err(Error::IndexConflict {
            names: vec!["namespace".into()]
        })
    );
    assert_eq!(
        store.add_indexers([("x".to_owned(), by_node()), ("x".to_owned(), by_node())]),
        Err(Error::IndexConflict {
            names: vec!["x".into()]
        })
    );
    assert_eq!(store.index_names(), ["namespace"]);

    store
        .add_indexers([("node".to_owned(), by_node())])
        .unwrap();
    assert_eq!(store.index_keys("node", "n1").unwrap(), ["ns/a"]);

    store.add(pod("ns", "bad", "bad", "n1")).unwrap();
    let failed = store.add_indexers([("app".to_owned(), by_app()), ("n2".to_owned(), by_node())]);
    assert!(matches!(failed, Err(Error::IndexFunc { ref index, .. }) if index == "app"));
    assert_eq!(store.index_names(), ["namespace", "node"]);
}

#[test]
fn a_failing_index_function_applies_nothing() {
    let store = indexer();
    let err = store.add(pod("ns", "a", "bad", "n1")).unwrap_err();
    assert!(
        matches!(err, StoreError::Index { ref index, ref key, .. } if index == "app" && key == "ns/a")
    );
    assert!(store.is_empty());
    assert!(store.list_index_func_values("node").is_empty());
    assert!(store.list_index_func_values(NAMESPACE_INDEX).is_empty());

    let good = pod("ns", "a", "web", "n1");
    store.add(Arc::clone(&good)).unwrap();
    assert!(store.update(pod("ns", "a", "bad", "n2")).is_err());
    assert!(Arc::ptr_eq(&store.get_by_key("ns/a").unwrap(), &good));
    assert_eq!(store.list_index_func_values("node"), ["n1"]);

    let before = sorted_keys(&store);
    let replaced = store.replace(vec![pod("x", "y", "ok", ""), pod("x", "z", "bad", "")], "9");
    assert!(replaced.is_err());
    assert_eq!(sorted_keys(&store), before);
    assert_eq!(store.last_sync_resource_version(), "");
}

#[test]
fn replace_swaps_content_and_rebuilds_indexes() {
    let store = indexer();
    store.add(pod("ns", "old", "web", "n1")).unwrap();
    store
        .replace(
            vec![pod("ns", "new", "api", "n2"), pod("ns2", "x", "", "")],
            "42",
        )
        .unwrap();
    assert_eq!(sorted_keys(&store), ["ns/new", "ns2/x"]);
    assert_eq!(store.list_index_func_values("node"), ["n2"]);
    assert_eq!(store.list_index_func_values("app"), ["api"]);
    assert_eq!(store.list_index_func_values(NAMESPACE_INDEX), ["ns", "ns2"]);
    assert_eq!(store.last_sync_resource_version(), "42");
    store.update_resource_version("43");
    assert_eq!(store.last_sync_resource_version(), "43");
    store.resync().unwrap();
    assert_eq!(store.len(), 2);
}

#[test]
fn tombstones_and_explicit_keys() {
    let store = Indexer::new(
        Config::default().with_key_func(KeyFunc::new(|pod: &Pod| format!("uid:{}", pod.name()))),
    );
    let a = pod("ns", "a", "", "");
    store.add(Arc::clone(&a)).unwrap();
    assert!(store.get_by_key("uid:a").is_some());
    let tombstone = DeletedState::Unknown {
        key: "uid:a".into(),
        last: Arc::clone(&a),
    };
    assert!(store.delete_state(&tombstone));
    assert!(store.is_empty());
    store.add(Arc::clone(&a)).unwrap();
    assert!(store.delete_state(&DeletedState::Known(a)));
    assert!(store.is_empty());
}

#[test]
fn listers_filter_by_labels_and_namespace() {
    let store = Arc::new(indexer());
    store.add(pod("ns", "a", "web", "")).unwrap();
    store.add(pod("ns", "b", "api", "")).unwrap();
    store.add(pod("other", "c", "web", "")).unwrap();
    store.add(pod("", "node-scoped", "web", "")).unwrap();
    let lister = CacheLister::new(Arc::clone(&store), "pods");
    let names = |pods: Vec<Arc<Pod>>| {
        let mut names: Vec<String> = pods.iter().map(|p| p.name().to_owned()).collect();
        names.sort();
        names
    };
    let web = LabelSelector::parse("app=web").unwrap();
    let everything = LabelSelector::default();
    assert_eq!(names(lister.list(&web)), ["a", "c", "node-scoped"]);
    assert_eq!(names(lister.list(&everything)).len(), 4);
    assert_eq!(names(lister.namespaced("ns").list(&web)), ["a"]);
    assert_eq!(names(lister.namespaced("ns").list(&everything)), ["a", "b"]);
    assert_eq!(names(lister.namespaced("").list(&web)).len(), 3);
    assert_eq!(lister.get("node-scoped").unwrap().name(), "node-scoped");
    assert_eq!(lister.namespaced("ns").get("b").unwrap().name(), "b");
    assert_eq!(
        lister.namespaced("ns").get("c").unwrap_err(),
        Error::NotFound {
            resource: "pods".into(),
            name: "c".into()
        }
    );
    assert_eq!(
        lister.namespaced("ns").get("c").unwrap_err().to_string(),
        r#"pods "c" not found"#
    );
}

#[test]
fn updating_with_the_stored_arc_is_a_no_op() {
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = Arc::clone(&calls);
    let store = Indexer::new(Config::default().with_index(
        "counted",
        IndexFunc::new(move |_: &Pod| {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(vec!["v".to_owned()])
        }),
    ));
    let a = pod("ns", "a", "", "");
    store.add(Arc::clone(&a)).unwrap();
    store.update(Arc::clone(&a)).unwrap();
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    store.update(pod("ns", "a", "", "")).unwrap();
    assert_eq!(
        calls.load(std::sync::atomic::Ordering::SeqCst),
        3,
        "new and old values"
    );
    assert_eq!(store.index_keys("counted", "v").unwrap(), ["ns/a"]);
}

fn at(rv: &str, name: &str) -> Arc<Pod> {
    let mut pod = (*pod("ns", name, "", "")).clone();
    pod.metadata.resource_version = Some(rv.into());
    Arc::new(pod)
}

/// client-go 1.36's thread-safe store (`LastStoreSyncResourceVersion`, the basis of
/// kube-controller-manager's staleness checks): the last resourceVersion follows every write,
/// not only relists and bookmarks.
#[test]
fn the_last_resource_version_follows_every_write() {
    let store = indexer();
    assert_eq!(store.last_sync_resource_version(), "");
    store.add(at("10", "a")).unwrap();
    assert_eq!(store.last_sync_resource_version(), "10");
    store.update(at("12", "a")).unwrap();
    assert_eq!(store.last_sync_resource_version(), "12");
    store.delete(at("15", "a")).unwrap();
    assert_eq!(store.last_sync_resource_version(), "15");
    store.replace(vec![at("16", "b")], "20").unwrap();
    assert_eq!(store.last_sync_resource_version(), "20");
    store.update_resource_version("21");
    assert_eq!(store.last_sync_resource_version(), "21");
    // An object without a resourceVersion leaves it as it was.
    store.add(pod("ns", "c", "", "")).unwrap();
    assert_eq!(store.last_sync_resource_version(), "21");
}

/// The informer deletes through `delete_state`: an observed delete records the deleted
/// object's final resourceVersion as client-go's store does on `Delete`; a tombstone
/// (`DeletedFinalStateUnknown`, whose last state may be stale) leaves it alone.
#[test]
fn an_observed_delete_moves_the_last_resource_version_and_a_tombstone_does_not() {
    let store = indexer();
    store.add(at("10", "a")).unwrap();
    store.add(at("11", "b")).unwrap();
    assert!(store.delete_state(&DeletedState::Known(at("14", "a"))));
    assert_eq!(store.last_sync_resource_version(), "14");
    let tombstone = DeletedState::Unknown {
        key: "ns/b".to_owned(),
        last: at("11", "b"),
    };
    assert!(store.delete_state(&tombstone));
    assert_eq!(store.last_sync_resource_version(), "14");
    assert_eq!(store.len(), 0);
}
