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

/// An update's old object is handed on packed, with whether it is the same revision.
#[test]
fn previous_is_handed_on_packed() {
    let store = compact_indexer();
    store.add(at("5", "a", "n1")).unwrap();
    let (old, same) = store.previous_lazy(&at("5", "a", "n1")).unwrap();
    assert!(same && old.ready().is_none(), "packed, the same revision");
    let (old, same) = store.previous_lazy(&at("6", "a", "n2")).unwrap();
    assert!(!same);
    assert_eq!(
        old.load().unwrap().metadata.resource_version.as_deref(),
        Some("5")
    );
    assert!(store.previous_lazy(&at("1", "absent", "")).is_none());
}

/// A listed object is packed as it arrives: the list holds a metadata-only stand-in, the
/// replace stores the staged bytes, and the stand-in is handed on as the packed object.
#[test]
fn a_staged_object_is_stored_from_its_packed_bytes() {
    let store = compact_indexer();
    let full = at("5", "a", "n1");
    let stand_in = store.stage(Arc::clone(&full));
    assert!(
        stand_in.spec.is_none(),
        "the stand-in carries metadata only"
    );
    assert_eq!(stand_in.metadata.name, full.metadata.name);
    store.replace(vec![Arc::clone(&stand_in)], "5").unwrap();
    assert_eq!(*store.get_by_key("ns/a").unwrap(), *full, "stored whole");
    assert_eq!(
        store.index_keys("node", "n1").unwrap(),
        ["ns/a"],
        "indexed whole"
    );
    let handed = store.lazy_of(&stand_in).unwrap();
    assert_eq!(*handed.load().unwrap(), *full);
    // Upserting the stand-in again (a delta FIFO's later delta) stores nothing new.
    store.update(stand_in).unwrap();
    assert_eq!(*store.get_by_key("ns/a").unwrap(), *full);
    // Outside compact mode, staging hands the object back.
    let plain = super::indexer();
    assert!(Arc::ptr_eq(&plain.stage(Arc::clone(&full)), &full));
}

/// Staged objects whose list was dropped (a list that failed part-way) do not pile up.
#[test]
fn an_abandoned_stage_is_dropped_at_the_next_replace() {
    let store = compact_indexer();
    drop(store.stage(at("5", "a", "n1")));
    let kept = store.stage(at("6", "b", "n1"));
    store.replace(vec![kept], "6").unwrap();
    assert!(store.staged.lock().unwrap().is_empty());
    assert_eq!(store.list_keys(), ["ns/b"]);
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
