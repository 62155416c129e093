//! [`IndexFunc`] and one named index: a map from index value to the sorted set of keys.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::Arc;

/// Computes the values an object is indexed under (client-go's `IndexFunc`).
///
/// The function must be pure: the store calls it again on the stored object to find the values
/// to remove on update. An `Err` makes the write that called it fail with nothing applied.
///
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_indexer::IndexFunc;
///
/// let by_node = IndexFunc::new(|pod: &Pod| {
///     Ok(pod.spec.as_ref().and_then(|s| s.node_name.clone()).into_iter().collect())
/// });
/// assert_eq!(by_node.values(&Pod::default()), Ok(vec![]));
/// ```
pub struct IndexFunc<K>(Arc<IndexFn<K>>);

type IndexFn<K> = dyn Fn(&K) -> Result<Vec<String>, String> + Send + Sync;

impl<K> IndexFunc<K> {
    /// An index function from a closure; the `Err` string says why an object cannot be indexed.
    pub fn new(f: impl Fn(&K) -> Result<Vec<String>, String> + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    /// The values of `obj`.
    ///
    /// # Errors
    /// Whatever the function reports.
    pub fn values(&self, obj: &K) -> Result<Vec<String>, String> {
        (self.0)(obj)
    }
}

impl<K> Clone for IndexFunc<K> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<K> fmt::Debug for IndexFunc<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("IndexFunc")
    }
}

/// One named index. Keys and values are `Arc<str>` shared with the item map and across
/// objects, so an index costs a pointer per (value, key) pair, not a string copy.
pub(crate) struct Index<K> {
    pub(crate) name: String,
    pub(crate) func: IndexFunc<K>,
    pub(crate) values: HashMap<Arc<str>, BTreeSet<Arc<str>>>,
}

impl<K> Index<K> {
    pub(crate) fn new(name: String, func: IndexFunc<K>) -> Self {
        Self {
            name,
            func,
            values: HashMap::new(),
        }
    }

    /// An empty index with the same name and function.
    pub(crate) fn empty_like(&self) -> Self {
        Self::new(self.name.clone(), self.func.clone())
    }

    pub(crate) fn insert(&mut self, value: &str, key: &Arc<str>) {
        match self.values.get_mut(value) {
            Some(keys) => {
                keys.insert(Arc::clone(key));
            }
            None => {
                self.values
                    .insert(Arc::from(value), BTreeSet::from([Arc::clone(key)]));
            }
        }
    }

    /// [`insert`](Self::insert), returning the value as the index holds it (for a packed entry).
    pub(crate) fn insert_held(&mut self, value: &str, key: &Arc<str>) -> Arc<str> {
        self.insert(value, key);
        self.values
            .get_key_value(value)
            .map_or_else(|| Arc::from(value), |(held, _)| Arc::clone(held))
    }

    /// Removes `key` from `value`'s set, and the set itself once it is empty, so short-lived
    /// high-cardinality values do not pile up.
    pub(crate) fn remove(&mut self, value: &str, key: &str) {
        if let Some(keys) = self.values.get_mut(value) {
            keys.remove(key);
            if keys.is_empty() {
                self.values.remove(value);
            }
        }
    }

    /// Removes `key` from every value: the slow path for when the old values cannot be computed.
    pub(crate) fn remove_everywhere(&mut self, key: &str) {
        self.values.retain(|_, keys| {
            keys.remove(key);
            !keys.is_empty()
        });
    }
}
