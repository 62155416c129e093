//! [`IndexRead`]: the reads of an indexed cache, the same for the [`Indexer`] and for the
//! [`ReadOnlyIndexer`] an informer hands out (client-go's `Indexer` reads).

use std::collections::BTreeSet;
use std::sync::{Arc, PoisonError};

use kinformer_core::{KeyFunc, Object, StoreRead};

use crate::{Error, Indexer, Iter, ReadOnlyIndexer};

mod sealed {
    /// The cache a reader reads; private, so only this crate's types read an indexed cache.
    pub trait Cache<K> {
        fn cache(&self) -> &crate::Indexer<K>;
    }
}

/// The reads of an indexed cache: by index, by the index values of an object, one object at a
/// time, and what the cache knows of itself. [`Indexer`] and [`ReadOnlyIndexer`] both read
/// through it (bring it into scope: `use kinformer_indexer::IndexRead`, or the facade's
/// prelude); [`StoreRead`] has the reads by key and of everything.
///
/// In [compact mode](crate#compact-mode) each object read is decoded after the lock is
/// released, and the `iter` reads decode one object at a time.
pub trait IndexRead<K: Object>: StoreRead<K> + sealed::Cache<K> {
    /// The key function in use.
    fn key_func(&self) -> &KeyFunc<K> {
        &self.cache().key_func
    }

    /// The stored object with the same key as `obj`.
    fn get(&self, obj: &K) -> Option<Arc<K>> {
        self.cache().get_by_key(&self.cache().key_func.key(obj))
    }

    /// The index names, in the order they were added.
    fn index_names(&self) -> Vec<String> {
        self.cache()
            .read()
            .indices
            .iter()
            .map(|i| i.name.clone())
            .collect()
    }

    /// The objects that share at least one `name` index value with `obj`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::{Object, Store};
    /// use kinformer_indexer::{IndexRead, Indexer, NAMESPACE_INDEX};
    ///
    /// let indexer: Indexer<Pod> = Indexer::default();
    /// for (ns, name) in [("a", "p1"), ("a", "p2"), ("b", "p3")] {
    ///     let mut pod = Pod::default();
    ///     pod.metadata.namespace = Some(ns.into());
    ///     pod.metadata.name = Some(name.into());
    ///     indexer.add(Arc::new(pod))?;
    /// }
    /// let p1 = indexer.by_index(NAMESPACE_INDEX, "a")?[0].clone();
    /// let same_namespace: Vec<_> = indexer.index(NAMESPACE_INDEX, &p1)?.iter().map(|p| p.name().to_owned()).collect();
    /// assert_eq!(same_namespace, ["p1", "p2"]);
    /// assert_eq!(indexer.list_index_func_values(NAMESPACE_INDEX), ["a", "b"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::UnknownIndex`], or [`Error::IndexFunc`] when `obj` cannot be indexed.
    fn index(&self, name: &str, obj: &K) -> Result<Vec<Arc<K>>, Error> {
        let state = self.cache().read();
        let index = state.index(name)?;
        let values = index.func.values(obj).map_err(|message| Error::IndexFunc {
            index: name.to_owned(),
            key: self.cache().key_func.key(obj),
            message,
        })?;
        let keys: BTreeSet<&Arc<str>> = values
            .iter()
            .filter_map(|value| index.values.get(value.as_str()))
            .flatten()
            .collect();
        let held = self.cache().held_of(&state, keys);
        drop(state);
        Ok(self.cache().load_reads(held, true))
    }

    /// The keys indexed under `value` in index `name`, sorted.
    ///
    /// # Errors
    /// [`Error::UnknownIndex`].
    fn index_keys(&self, name: &str, value: &str) -> Result<Vec<String>, Error> {
        let state = self.cache().read();
        let index = state.index(name)?;
        Ok(index
            .values
            .get(value)
            .map(|keys| keys.iter().map(|key| key.to_string()).collect())
            .unwrap_or_default())
    }

    /// The objects indexed under `value` in index `name`, in key order.
    ///
    /// # Errors
    /// [`Error::UnknownIndex`].
    fn by_index(&self, name: &str, value: &str) -> Result<Vec<Arc<K>>, Error> {
        let held = self.cache().held_by_index(name, value)?;
        Ok(self.cache().load_reads(held, true))
    }

    /// Every value index `name` currently holds (empty for an unknown index), sorted.
    fn list_index_func_values(&self, name: &str) -> Vec<String> {
        let state = self.cache().read();
        let mut values: Vec<String> = state
            .index(name)
            .map(|index| index.values.keys().map(|v| v.to_string()).collect())
            .unwrap_or_default();
        values.sort_unstable();
        values
    }

    /// Every cached object, each decoded (in compact mode) only as the iteration reaches it
    /// and dropped when the caller drops it: reading a whole compact cache never holds it
    /// decoded. The objects are those cached when `iter` was called, in no particular order.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::{Object, Store};
    /// use kinformer_indexer::{Compact, Config, IndexRead, Indexer};
    ///
    /// let indexer: Indexer<Pod> = Indexer::new(Config::default().with_compact(Compact::json()));
    /// for name in ["a", "b", "c"] {
    ///     let mut pod = Pod::default();
    ///     pod.metadata.name = Some(name.into());
    ///     indexer.add(Arc::new(pod))?;
    /// }
    /// let mut names: Vec<String> = indexer.iter().map(|pod| pod.name().to_owned()).collect();
    /// names.sort();
    /// assert_eq!(names, ["a", "b", "c"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn iter(&self) -> Iter<K> {
        Iter::new(self.cache().list_cached())
    }

    /// The objects indexed under `value` in index `name`, in key order, each decoded only as
    /// the iteration reaches it (see [`iter`](Self::iter)).
    ///
    /// # Errors
    /// [`Error::UnknownIndex`].
    fn iter_by_index(&self, name: &str, value: &str) -> Result<Iter<K>, Error> {
        Ok(Iter::new(self.cache().held_by_index(name, value)?))
    }

    /// The resourceVersion of the last write (client-go 1.36's `LastStoreSyncResourceVersion`,
    /// on by default with its `AtomicFIFO` gate); empty before any.
    ///
    /// Each write sets it, the last one winning even when it is older:
    /// - `add`, `update`: the object's resourceVersion (an object without one leaves it alone);
    /// - `delete`, and [`delete_state`](crate::Indexer::delete_state) of an observed delete: the deleted
    ///   object's final resourceVersion, whether or not it was cached;
    /// - `replace`: the list's resourceVersion, not its objects';
    /// - `update_resource_version` (a bookmark): that resourceVersion.
    ///
    /// A tombstone's delete and [`delete_by_key`](crate::Indexer::delete_by_key) leave it alone. A
    /// controller compares it with the resourceVersion it wrote to know whether its cache has
    /// caught up.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::Store;
    /// use kinformer_indexer::{IndexRead, Indexer};
    ///
    /// let at = |rv: &str| {
    ///     let mut pod = Pod::default();
    ///     pod.metadata.name = Some("p".into());
    ///     pod.metadata.resource_version = Some(rv.into());
    ///     Arc::new(pod)
    /// };
    /// let indexer: Indexer<Pod> = Indexer::default();
    /// indexer.add(at("10"))?;
    /// assert_eq!(indexer.last_sync_resource_version(), "10");
    /// indexer.replace(vec![at("11")], "20")?;
    /// assert_eq!(indexer.last_sync_resource_version(), "20");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn last_sync_resource_version(&self) -> String {
        self.cache()
            .last_resource_version
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl<K: Object> sealed::Cache<K> for Indexer<K> {
    fn cache(&self) -> &Self {
        self
    }
}

impl<K: Object> IndexRead<K> for Indexer<K> {}

impl<K: Object> sealed::Cache<K> for ReadOnlyIndexer<K> {
    fn cache(&self) -> &Indexer<K> {
        &self.cache
    }
}

impl<K: Object> IndexRead<K> for ReadOnlyIndexer<K> {}
