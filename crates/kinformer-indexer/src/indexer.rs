//! [`Indexer`]: the thread-safe store with named indexes.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use kinformer_core::{DeletedState, Object, Store, StoreError, StoreRead};

use crate::index::Index;
use crate::state::{State, index_all};
use crate::{Config, Error, IndexFunc, KeyFunc, NAMESPACE_INDEX, deletion_handling_key};

/// A thread-safe object cache with named indexes (client-go's `Indexer` over a
/// `ThreadSafeStore`).
///
/// Objects are stored and handed out as `Arc<K>`: nothing is deep-copied. Reads share a read
/// lock and never block each other; a write holds the write lock only while it updates maps
/// (`replace` builds the new content and its indexes before taking the lock, then swaps), so a
/// reader sees the state before or after a write, never a half-applied one.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_core::{Store, StoreRead};
/// use kinformer_indexer::{Indexer, NAMESPACE_INDEX};
///
/// let indexer: Indexer<Pod> = Indexer::default();
/// let mut pod = Pod::default();
/// pod.metadata.namespace = Some("prod".into());
/// pod.metadata.name = Some("web-0".into());
/// indexer.add(Arc::new(pod))?;
/// assert_eq!(indexer.index_keys(NAMESPACE_INDEX, "prod")?, ["prod/web-0"]);
/// assert!(indexer.get_by_key("prod/web-0").is_some());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Indexer<K> {
    key_func: KeyFunc<K>,
    state: RwLock<State<K>>,
    last_resource_version: Mutex<String>,
}

impl<K: Object> Default for Indexer<K> {
    fn default() -> Self {
        Self::new(Config::default())
    }
}

impl<K: Object> Indexer<K> {
    /// An empty indexer with the namespace index and the indexes of `config`.
    pub fn new(config: Config<K>) -> Self {
        let mut indices = vec![Index::new(
            NAMESPACE_INDEX.to_owned(),
            IndexFunc::new(|obj: &K| Ok(crate::namespace_index_func(obj))),
        )];
        for (name, func) in config.indexers {
            match indices.iter_mut().find(|index| index.name == name) {
                Some(existing) => existing.func = func,
                None => indices.push(Index::new(name, func)),
            }
        }
        Self {
            key_func: config.key_func,
            state: RwLock::new(State {
                items: HashMap::new(),
                indices,
                generation: 0,
            }),
            last_resource_version: Mutex::new(String::new()),
        }
    }

    /// The key function in use.
    pub fn key_func(&self) -> &KeyFunc<K> {
        &self.key_func
    }

    // Index functions are user code and may panic. Every write computes all fallible and
    // user-provided values before it mutates, so a panic leaves the state consistent and the
    // poison flag can be ignored.
    fn read(&self) -> RwLockReadGuard<'_, State<K>> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, State<K>> {
        self.state.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// The stored object with the same key as `obj`.
    pub fn get(&self, obj: &K) -> Option<Arc<K>> {
        self.get_by_key(&self.key_func.key(obj))
    }

    /// Removes the object stored under `key`, returning it.
    pub fn delete_by_key(&self, key: &str) -> Option<Arc<K>> {
        self.write().remove(key)
    }

    /// Removes a deleted object, using a tombstone's own key when it is one.
    pub fn delete_state(&self, state: &DeletedState<K>) -> Option<Arc<K>> {
        self.delete_by_key(&deletion_handling_key(state, &self.key_func))
    }

    /// The objects that share at least one `name` index value with `obj`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::{Object, Store};
    /// use kinformer_indexer::{Indexer, NAMESPACE_INDEX};
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
    pub fn index(&self, name: &str, obj: &K) -> Result<Vec<Arc<K>>, Error> {
        let state = self.read();
        let index = state.index(name)?;
        let values = index.func.values(obj).map_err(|message| Error::IndexFunc {
            index: name.to_owned(),
            key: self.key_func.key(obj),
            message,
        })?;
        let keys: BTreeSet<&Arc<str>> = values
            .iter()
            .filter_map(|value| index.values.get(value.as_str()))
            .flatten()
            .collect();
        Ok(keys
            .into_iter()
            .filter_map(|key| state.items.get(key).cloned())
            .collect())
    }

    /// The keys indexed under `value` in index `name`, sorted.
    ///
    /// # Errors
    /// [`Error::UnknownIndex`].
    pub fn index_keys(&self, name: &str, value: &str) -> Result<Vec<String>, Error> {
        let state = self.read();
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
    pub fn by_index(&self, name: &str, value: &str) -> Result<Vec<Arc<K>>, Error> {
        let state = self.read();
        let index = state.index(name)?;
        Ok(index
            .values
            .get(value)
            .map(|keys| {
                keys.iter()
                    .filter_map(|key| state.items.get(key).cloned())
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Every value index `name` currently holds (empty for an unknown index), sorted.
    pub fn list_index_func_values(&self, name: &str) -> Vec<String> {
        let state = self.read();
        let mut values: Vec<String> = state
            .index(name)
            .map(|index| index.values.keys().map(|v| v.to_string()).collect())
            .unwrap_or_default();
        values.sort_unstable();
        values
    }

    /// The index names, in the order they were added.
    pub fn index_names(&self) -> Vec<String> {
        self.read().indices.iter().map(|i| i.name.clone()).collect()
    }

    /// Adds indexes, indexing the objects already stored.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::{Object, Store};
    /// use kinformer_indexer::{Error, IndexFunc, Indexer};
    ///
    /// let indexer: Indexer<Pod> = Indexer::default();
    /// let mut pod = Pod::default();
    /// pod.metadata.name = Some("p".into());
    /// indexer.add(Arc::new(pod))?;
    /// let by_name = || IndexFunc::new(|pod: &Pod| Ok(vec![pod.name().to_owned()]));
    /// indexer.add_indexers([("name".to_owned(), by_name())])?;
    /// assert_eq!(indexer.index_keys("name", "p")?, ["p"]);
    /// assert!(matches!(
    ///     indexer.add_indexers([("name".to_owned(), by_name())]),
    ///     Err(Error::IndexConflict { .. })
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::IndexConflict`] if a name exists already (or repeats), [`Error::IndexFunc`] if
    /// a stored object cannot be indexed; either way nothing is added.
    pub fn add_indexers(
        &self,
        indexers: impl IntoIterator<Item = (String, IndexFunc<K>)>,
    ) -> Result<(), Error> {
        let new: Vec<Index<K>> = indexers
            .into_iter()
            .map(|(name, func)| Index::new(name, func))
            .collect();
        let mut state = self.write();
        let mut conflicts: Vec<String> = new
            .iter()
            .enumerate()
            .filter(|(i, index)| {
                state.indices.iter().any(|old| old.name == index.name)
                    || new[..*i].iter().any(|earlier| earlier.name == index.name)
            })
            .map(|(_, index)| index.name.clone())
            .collect();
        if !conflicts.is_empty() {
            conflicts.dedup();
            return Err(Error::IndexConflict { names: conflicts });
        }
        state.add_indices(new)
    }

    /// The last resourceVersion the store was told about (client-go 1.36's
    /// `LastStoreSyncResourceVersion`): that of the last object added, updated or deleted, of
    /// the last `replace`, or of the last bookmark (`update_resource_version`); empty before any.
    /// A controller compares it with the resourceVersion it wrote to know whether its cache has
    /// caught up.
    pub fn last_sync_resource_version(&self) -> String {
        self.last_resource_version
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set_resource_version(&self, resource_version: &str) {
        let mut last = self
            .last_resource_version
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        resource_version.clone_into(&mut last);
    }

    fn upsert(&self, obj: Arc<K>) -> Result<(), StoreError> {
        let key = self.key_func.key(&obj);
        let written = Arc::clone(&obj);
        self.write().upsert(key, obj).map_err(StoreError::from)?;
        self.follow(&written);
        Ok(())
    }

    /// Records the resourceVersion of a written object, when it has one.
    fn follow(&self, obj: &K) {
        if let Some(rv) = obj.resource_version().filter(|rv| !rv.is_empty()) {
            self.set_resource_version(rv);
        }
    }
}

impl<K: Object> Store<K> for Indexer<K> {
    fn add(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.upsert(obj)
    }

    fn update(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.upsert(obj)
    }

    fn delete(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.delete_by_key(&self.key_func.key(&obj));
        self.follow(&obj);
        Ok(())
    }

    fn replace(&self, list: Vec<Arc<K>>, resource_version: &str) -> Result<(), StoreError> {
        let items: HashMap<Arc<str>, Arc<K>> = list
            .into_iter()
            .map(|obj| (Arc::from(self.key_func.key(&obj)), obj))
            .collect();
        // Index outside the lock so readers keep reading the old content meanwhile.
        let (generation, mut indices) = {
            let state = self.read();
            (state.generation, state.empty_indices())
        };
        index_all(&mut indices, &items)?;
        let mut state = self.write();
        if state.generation != generation {
            // Indexes were added meanwhile: index again with the current set.
            indices = state.empty_indices();
            index_all(&mut indices, &items)?;
        }
        let generation = state.generation;
        let old = std::mem::replace(
            &mut *state,
            State {
                items,
                indices,
                generation,
            },
        );
        drop(state);
        // The old content is freed after the lock is released.
        drop(old);
        self.set_resource_version(resource_version);
        Ok(())
    }

    fn resync(&self) -> Result<(), StoreError> {
        Ok(())
    }

    fn update_resource_version(&self, resource_version: &str) {
        self.set_resource_version(resource_version);
    }
}

impl<K: Object> StoreRead<K> for Indexer<K> {
    fn get_by_key(&self, key: &str) -> Option<Arc<K>> {
        self.read().items.get(key).cloned()
    }

    fn list(&self) -> Vec<Arc<K>> {
        self.read().items.values().cloned().collect()
    }

    fn list_keys(&self) -> Vec<String> {
        self.read()
            .items
            .keys()
            .map(|key| key.to_string())
            .collect()
    }

    fn len(&self) -> usize {
        self.read().items.len()
    }
}

impl<K> fmt::Debug for Indexer<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state.read().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("Indexer")
            .field("len", &state.items.len())
            .field(
                "indexes",
                &state.indices.iter().map(|i| &i.name).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}
