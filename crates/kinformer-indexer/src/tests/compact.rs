//! Compact mode: packed objects, decoded on read, indexed without decoding; listed objects
//! packed as they arrive and stored from their packed form.

use crate::IndexRead;
use std::cell::Cell;
use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{Cached, DeletedState, Store, StoreRead};
use kinformer_selector::LabelSelector;

use super::{by_node, compact_indexer, pod};
use crate::compact::Entry;
use crate::packed::PackedObject;
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
    let cached = store.get_cached("ns/a").unwrap();
    assert!(cached.decoded().is_none(), "handed on packed");
    assert_eq!(cached.resource_version(), Some("5"));
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
    let listed = |objects: Vec<Arc<Pod>>| objects.into_iter().map(Cached::from).collect();
    store
        .replace_admitted(listed(vec![at("5", "a", "n1"), at("6", "b", "n1")]), "6")
        .unwrap();
    let (a, b) = (bytes_of(&store, "ns/a"), bytes_of(&store, "ns/b"));
    store
        .replace_admitted(listed(vec![at("5", "a", "n1"), at("8", "b", "n2")]), "8")
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

/// An upsert hands back what it replaced, packed, without decoding it.
#[test]
fn an_upsert_hands_back_the_packed_previous_object() {
    let store = compact_indexer();
    assert!(store.upsert(at("5", "a", "n1").into()).unwrap().is_none());
    let old = store.upsert(at("6", "a", "n2").into()).unwrap().unwrap();
    assert!(old.decoded().is_none(), "packed");
    assert_eq!(old.resource_version(), Some("5"));
    assert_eq!(*old.load().unwrap(), *at("5", "a", "n1"));
    assert_eq!(store.index_keys("node", "n2").unwrap(), ["ns/a"]);
}

/// A listed object is packed as it arrives, with its index values: the replace stores its
/// bytes as they are, and an upsert of it (a delta FIFO's `Replaced` delta) does too.
#[test]
fn an_admitted_object_is_stored_from_its_packed_form() {
    let store = compact_indexer();
    let full = at("5", "a", "n1");
    let prepared = Cell::new(0);
    let listed = store.admit_with(Arc::clone(&full), |obj| {
        prepared.set(prepared.get() + 1);
        obj
    });
    assert!(listed.packed().is_some(), "packed as it arrived");
    assert_eq!(
        listed.key(&Default::default()),
        "ns/a",
        "keyed from the whole object"
    );
    let bytes = crate::packed::PackedObject::of(&listed)
        .unwrap()
        .bytes
        .clone();
    store.replace_admitted(vec![listed.clone()], "5").unwrap();
    assert!(
        Arc::ptr_eq(&bytes, &bytes_of(&store, "ns/a")),
        "stored as packed"
    );
    assert_eq!(*store.get_by_key("ns/a").unwrap(), *full, "stored whole");
    assert_eq!(store.index_keys("node", "n1").unwrap(), ["ns/a"]);
    // The same revision listed again: the cache's own entry, not prepared again.
    let again = store.admit_with(Arc::clone(&full), |obj| {
        prepared.set(prepared.get() + 1);
        obj
    });
    assert_eq!(prepared.get(), 1);
    assert!(again.decoded().is_none());
    store.replace_admitted(vec![again], "6").unwrap();
    assert!(Arc::ptr_eq(&bytes, &bytes_of(&store, "ns/a")), "kept");
    assert_eq!(store.index_keys("node", "n1").unwrap(), ["ns/a"]);
    // Upserting the listed object again (a later delta) changes nothing.
    let old = store.upsert(listed).unwrap().unwrap();
    assert!(Arc::ptr_eq(&bytes, &bytes_of(&store, "ns/a")));
    assert_eq!(*old.load().unwrap(), *full);
}

/// Outside compact mode an unchanged revision comes back as the cache's own `Arc`.
#[test]
fn a_typed_cache_admits_its_own_copy_of_an_unchanged_revision() {
    let store = super::indexer();
    let held = at("5", "a", "n1");
    store.add(Arc::clone(&held)).unwrap();
    let listed = store.admit_with(at("5", "a", "n1"), |_| panic!("not prepared"));
    assert!(Arc::ptr_eq(listed.decoded().unwrap(), &held));
    let fresh = at("6", "a", "n1");
    let listed = store.admit_with(Arc::clone(&fresh), |obj| obj);
    assert!(Arc::ptr_eq(listed.decoded().unwrap(), &fresh));
}

/// Indexes added between a listed object's arrival and the replace: its values are stale
/// and computed again from its bytes.
#[test]
fn an_index_added_before_the_replace_indexes_admitted_objects() {
    let store = Indexer::new(crate::Config::default().with_compact(crate::Compact::json()));
    let listed = store.admit_with(at("5", "a", "n1"), |obj| obj);
    store
        .add_indexers([("node".to_owned(), by_node())])
        .unwrap();
    store.replace_admitted(vec![listed], "5").unwrap();
    assert_eq!(store.index_keys("node", "n1").unwrap(), ["ns/a"]);
}

#[test]
fn a_new_index_decodes_packed_objects_once() {
    let store = Indexer::new(crate::Config::default().with_compact(crate::Compact::json()));
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

#[test]
fn replace_shared_stores_the_same_content_as_replace_in_both_modes() {
    for (indexer, twin) in [
        (super::indexer(), super::indexer()),
        (compact_indexer(), compact_indexer()),
    ] {
        let listed: Vec<Cached<Pod>> = [at("1", "a", "n1"), at("2", "b", "n2"), at("3", "a", "n3")]
            .into_iter()
            .map(|pod| indexer.admit(pod))
            .collect();
        indexer.replace_shared(&listed, "9").unwrap();
        twin.replace_admitted(listed.clone(), "9").unwrap();
        // The listed objects stay usable, and the last of a key listed twice wins.
        assert_eq!(listed.len(), 3);
        for store in [&indexer, &twin] {
            assert_eq!(store.len(), 2);
            assert_eq!(store.last_sync_resource_version(), "9");
            let a = store.get_by_key("ns/a").unwrap();
            assert_eq!(a.metadata.resource_version.as_deref(), Some("3"));
            assert_eq!(store.by_index("node", "n3").unwrap().len(), 1);
            assert!(store.by_index("node", "n1").unwrap().is_empty());
        }
    }
}

#[test]
fn a_listed_object_shares_its_key_and_resource_version_with_the_entry_that_holds_it() {
    let store = compact_indexer();
    let listed = store.admit_with(at("9", "a", "n1"), |pod| pod);
    let key = listed.shared_key(&store.key_func);
    assert!(Arc::ptr_eq(&key, &listed.shared_key(&store.key_func)));
    let carried = match PackedObject::of(&listed) {
        Some(packed) => Arc::clone(&packed.resource_version),
        None => panic!("listed objects are packed as they arrive"),
    };
    store.replace_admitted(vec![listed], "9").unwrap();
    let state = store.read();
    let (held_key, entry) = state.items.get_key_value("ns/a").unwrap();
    assert!(Arc::ptr_eq(held_key, &key), "the key is not copied");
    match entry {
        Entry::Packed(packed) => assert!(Arc::ptr_eq(&packed.resource_version, &carried)),
        Entry::Object(_) => panic!("held packed"),
    }
}
