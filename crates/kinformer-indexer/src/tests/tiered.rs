//! A tiered holding: packed objects plus the most recently read ones kept decoded.

use std::sync::Arc;

use kinformer_core::{Store, StoreRead};

use super::{compact_indexer, pod, tiered_indexer};
use crate::{IndexRead, NAMESPACE_INDEX};

#[test]
fn a_hot_object_is_read_without_decoding_it_again() {
    let store = tiered_indexer(4);
    store.add(pod("ns", "a", "web", "n1")).unwrap();
    let first = store.get_by_key("ns/a").unwrap();
    let again = store.get_by_key("ns/a").unwrap();
    assert!(
        Arc::ptr_eq(&first, &again),
        "the second read is the hot object"
    );
    // The same through an index read.
    let indexed = store.by_index("node", "n1").unwrap();
    assert!(Arc::ptr_eq(&indexed[0], &first));
    // A compact cache without a hot set decodes every read.
    let plain = compact_indexer();
    plain.add(pod("ns", "a", "web", "n1")).unwrap();
    let (one, two) = (
        plain.get_by_key("ns/a").unwrap(),
        plain.get_by_key("ns/a").unwrap(),
    );
    assert!(!Arc::ptr_eq(&one, &two));
}

#[test]
fn an_update_is_read_as_written_never_as_the_hot_old_object() {
    let store = tiered_indexer(4);
    store.add(pod("ns", "a", "web", "n1")).unwrap();
    let old = store.get_by_key("ns/a").unwrap();
    store.update(pod("ns", "a", "web", "n2")).unwrap();
    let new = store.get_by_key("ns/a").unwrap();
    assert_eq!(new.spec.as_ref().unwrap().node_name.as_deref(), Some("n2"));
    assert!(!Arc::ptr_eq(&old, &new));
    assert!(Arc::ptr_eq(&new, &store.get_by_key("ns/a").unwrap()));
    store.delete(new).unwrap();
    assert!(
        store.get_by_key("ns/a").is_none(),
        "a deleted object is gone, hot or not"
    );
    assert!(store.by_index(NAMESPACE_INDEX, "ns").unwrap().is_empty());
}

#[test]
fn a_whole_cache_list_uses_hot_objects_but_does_not_push_them_out() {
    let store = tiered_indexer(2);
    for name in ["a", "b", "c", "d", "e"] {
        store.add(pod("ns", name, "web", "n1")).unwrap();
    }
    let a = store.get_by_key("ns/a").unwrap();
    let b = store.get_by_key("ns/b").unwrap();
    let listed = store.list();
    assert_eq!(listed.len(), 5);
    let listed_a = listed
        .iter()
        .find(|p| p.metadata.name.as_deref() == Some("a"));
    assert!(
        Arc::ptr_eq(listed_a.unwrap(), &a),
        "the list hands out the hot object"
    );
    // The scan made nothing hot: a and b still are.
    assert!(Arc::ptr_eq(&store.get_by_key("ns/a").unwrap(), &a));
    assert!(Arc::ptr_eq(&store.get_by_key("ns/b").unwrap(), &b));
    // Reading a third object evicts one of them: the set is bounded.
    store.get_by_key("ns/c").unwrap();
    let still_hot = [("ns/a", &a), ("ns/b", &b)]
        .iter()
        .filter(|(key, obj)| Arc::ptr_eq(&store.get_by_key(key).unwrap(), obj))
        .count();
    assert!(still_hot <= 1, "two slots: c took one of them");
    assert_eq!(store.iter().count(), 5);
}
