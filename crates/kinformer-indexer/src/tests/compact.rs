//! Compact mode: packed objects, decoded on read, indexed without decoding.

use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{DeletedState, Store, StoreRead};
use kinformer_selector::LabelSelector;

use super::{by_node, compact_indexer, pod};
use crate::compact::Entry;
use crate::{CacheLister, Indexer, NAMESPACE_INDEX};

fn at(rv: &str, name: &str, node: &str) -> Arc<Pod> {
    let mut pod = (*pod("ns", name, "web", node)).clone();
    pod.metadata.resource_version = Some(rv.into());
    Arc::new(pod)
}

/// The packed bytes held for `key`.
fn bytes_of(store: &Indexer<Pod>, key: &str) -> Arc<[u8]> {
    match store.read().items.get(key) {
        Some(Entry::Packed(packed)) => Arc::clone(&packed.bytes),
        _ => panic!("{key} is not held packed"),
    }
}

#[test]
fn reads_decode_what_was_written() {
    let store = compact_indexer();
    assert!(store.is_compact());
    let written = at("5", "a", "n1");
    store.add(Arc::clone(&written)).unwrap();
    let read = store.get_by_key("ns/a").unwrap();
    assert_eq!(*read, *written);
    assert!(!Arc::ptr_eq(&read, &written), "a read decodes a new copy");
    assert_eq!(store.list().len(), 1);
    assert_eq!(*store.by_index("node", "n1").unwrap()[0], *written);
    assert_eq!(
        *store.index(NAMESPACE_INDEX, &written).unwrap()[0],
        *written
    );
    assert!(store.get_shared(&written).is_none(), "nothing decoded");
    let pods = CacheLister::new(Arc::new(store), "pods");
    let web = LabelSelector::parse("app=web").unwrap();
    assert_eq!(pods.namespaced("ns").list(&web).len(), 1);
    assert_eq!(*pods.namespaced("ns").get("a").unwrap(), *written);
}

#[test]
fn updates_and_deletes_move_index_entries_without_decoding() {
    let store = compact_indexer();
    store.add(at("5", "a", "n1")).unwrap();
    store.update(at("6", "a", "n2")).unwrap();
    assert!(store.index_keys("node", "n1").unwrap().is_empty());
    assert_eq!(store.index_keys("node", "n2").unwrap(), ["ns/a"]);
    assert_eq!(store.list_index_func_values("node"), ["n2"]);
    assert!(store.delete_state(&DeletedState::Known(at("7", "a", "n2"))));
    assert!(store.list_index_func_values("node").is_empty());
    assert!(store.list_index_func_values(NAMESPACE_INDEX).is_empty());
    assert_eq!(store.last_sync_resource_version(), "7");
}

#[test]
fn a_relist_keeps_the_bytes_of_unchanged_objects() {
    let store = compact_indexer();
    store
        .replace(vec![at("5", "a", "n1"), at("6", "b", "n1")], "6")
        .unwrap();
    let (a, b) = (bytes_of(&store, "ns/a"), bytes_of(&store, "ns/b"));
    store
        .replace(vec![at("5", "a", "n1"), at("8", "b", "n2")], "8")
        .unwrap();
    assert!(
        Arc::ptr_eq(&a, &bytes_of(&store, "ns/a")),
        "unchanged: kept"
    );
    assert!(
        !Arc::ptr_eq(&b, &bytes_of(&store, "ns/b")),
        "changed: encoded"
    );
    assert_eq!(store.index_keys("node", "n2").unwrap(), ["ns/b"]);
    assert_eq!(store.last_sync_resource_version(), "8");
}

#[test]
fn previous_is_the_object_itself_for_the_same_revision() {
    let store = compact_indexer();
    store.add(at("5", "a", "n1")).unwrap();
    let same = at("5", "a", "n1");
    assert!(Arc::ptr_eq(&store.previous(&same).unwrap(), &same));
    let newer = at("6", "a", "n2");
    let old = store.previous(&newer).unwrap();
    assert_eq!(old.metadata.resource_version.as_deref(), Some("5"));
    assert!(store.previous(&at("1", "absent", "")).is_none());
}

#[test]
fn a_new_index_decodes_packed_objects_once() {
    let store = Indexer::new(crate::Config::default().compact());
    store.add(at("5", "a", "n1")).unwrap();
    store.add(at("6", "b", "n2")).unwrap();
    store
        .add_indexers([("node".to_owned(), by_node())])
        .unwrap();
    assert_eq!(store.index_keys("node", "n2").unwrap(), ["ns/b"]);
    // The new index's values are held with the entry: a delete finds them without decoding.
    store.delete(at("7", "b", "n2")).unwrap();
    assert!(store.index_keys("node", "n2").unwrap().is_empty());
    assert_eq!(store.list_index_func_values("node"), ["n1"]);
}
