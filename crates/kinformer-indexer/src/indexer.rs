//! [`Indexer`]: the thread-safe store with named indexes.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use kinformer_core::{Cached, DeletedState, KeyFunc, Object, Store, StoreError};

use crate::compact::Compact;
use crate::hot::HotSet;
use crate::index::Index;
use crate::state::{State, next_index_set};
use crate::{Config, Error, IndexFunc, NAMESPACE_INDEX, deletion_handling_key};

/// A thread-safe object cache with named indexes (client-go's `Indexer` over a
/// `ThreadSafeStore`).
///
/// Objects are stored and handed out as `Arc<K>`: nothing is deep-copied (in
/// [compact mode](crate#compact-mode) each read decodes its own copy). Reads share a read lock
/// and never block each other; a write holds the write lock only while it updates maps
/// (`replace` builds the new content and its indexes before taking the lock, then swaps), so a
/// reader sees the state before or after a write, never a half-applied one.
///
/// The list-watch pipeline moves objects in and out as [`Cached`]s: [`admit_with`] takes in a
/// listed object, [`upsert`] stores one and hands back what it replaced, and
/// [`get_cached`](kinformer_core::StoreRead::get_cached) reads one, none of them decoding a
/// packed object. [`iter`] reads the whole cache one object at a time.
///
/// [`admit_with`]: Self::admit_with
/// [`upsert`]: Self::upsert
/// [`iter`]: crate::IndexRead::iter
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_core::{Store, StoreRead};
/// use kinformer_indexer::{IndexRead, Indexer, NAMESPACE_INDEX};
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
    pub(crate) key_func: KeyFunc<K>,
    pub(crate) state: RwLock<State<K>>,
    /// Set in compact mode (see [`Config::with_compact`]).
    pub(crate) compact: Option<Compact<K>>,
    /// The recently read objects kept decoded (compact mode with
    /// [`Config::with_hot_objects`]).
    pub(crate) hot: Option<HotSet<K>>,
    pub(crate) last_resource_version: Mutex<String>,
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
                index_set: next_index_set(),
                compact: config.compact.clone(),
            }),
            hot: config
                .hot_objects
                .filter(|_| config.compact.is_some())
                .map(HotSet::new),
            compact: config.compact,
            last_resource_version: Mutex::new(String::new()),
        }
    }

    // Index functions are user code and may panic. Every write computes all fallible and
    // user-provided values before it mutates, so a panic leaves the state consistent and the
    // poison flag can be ignored.
    pub(crate) fn read(&self) -> RwLockReadGuard<'_, State<K>> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn write(&self) -> RwLockWriteGuard<'_, State<K>> {
        self.state.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Removes the object stored under `key`, returning it (decoded, in compact mode).
    pub fn delete_by_key(&self, key: &str) -> Option<Arc<K>> {
        let removed = self.write().remove(key)?;
        crate::read::load_logged(&removed.into_cached(Arc::from(key), self.compact.as_ref())?)
    }

    /// Removes a deleted object, using a tombstone's own key when it is one.
    ///
    /// An observed delete records its final state's resourceVersion, as [`Store::delete`] does;
    /// a tombstone's last state may be stale, so it leaves the last resourceVersion alone, as
    /// client-go's store does for a `DeletedFinalStateUnknown` (it has no metadata to read).
    ///
    /// Returns whether an object was cached under the key (nothing is decoded in compact mode).
    pub fn delete_state(&self, state: &DeletedState<K>) -> bool {
        let key = deletion_handling_key(state, &self.key_func);
        let removed = self.write().remove(&key).is_some();
        if let DeletedState::Known(obj) = state {
            self.follow(obj);
        }
        removed
    }

    /// Adds indexes, indexing the objects already stored.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::{Object, Store};
    /// use kinformer_indexer::{Error, IndexFunc, IndexRead, Indexer};
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

    pub(crate) fn set_resource_version(&self, resource_version: &str) {
        let mut last = self
            .last_resource_version
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        resource_version.clone_into(&mut last);
    }

    /// Adds or updates `obj` (an informer's delta: a watched object, or a listed one as
    /// [`admit_with`](Self::admit_with) made it), returning what it replaced, without decoding
    /// either: the cache's own object, or its packed form in compact mode.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_indexer::Indexer;
    ///
    /// let indexer: Indexer<Pod> = Indexer::default();
    /// let mut pod = Pod::default();
    /// pod.metadata.name = Some("p".into());
    /// pod.metadata.resource_version = Some("1".into());
    /// let first = Arc::new(pod.clone());
    /// assert!(indexer.upsert(Arc::clone(&first).into())?.is_none());
    /// pod.metadata.resource_version = Some("2".into());
    /// let old = indexer.upsert(Arc::new(pod).into())?.unwrap();
    /// assert_eq!(old.resource_version(), Some("1"));
    /// assert!(Arc::ptr_eq(&old.load()?, &first));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// An index function's failure ([`StoreError::Index`]), or a packed object of another kind
    /// of cache that fails to decode; either way nothing changes.
    pub fn upsert(&self, obj: Cached<K>) -> Result<Option<Cached<K>>, StoreError> {
        let key = obj.key(&self.key_func).into_owned();
        // Encoded before the lock is taken: readers and writers wait only for map updates.
        let incoming = self.incoming(&key, obj)?;
        let rv = incoming.resource_version().map(str::to_owned);
        let previous = self.write().upsert(key, incoming)?;
        if let Some(rv) = rv {
            self.set_written(&rv);
        }
        self.compress_training_set();
        Ok(previous)
    }

    /// Without compression there is no training set to compress.
    #[cfg(not(feature = "compression"))]
    pub(crate) fn compress_training_set(&self) {}

    /// Records the resourceVersion of a written object, when it has one.
    fn follow(&self, obj: &K) {
        if let Some(rv) = obj.resource_version() {
            self.set_written(rv);
        }
    }

    /// Records a written object's resourceVersion unless it is empty.
    fn set_written(&self, rv: &str) {
        if !rv.is_empty() {
            self.set_resource_version(rv);
        }
    }
}

impl<K: Object> Store<K> for Indexer<K> {
    fn add(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.upsert(obj.into()).map(drop)
    }

    fn update(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.upsert(obj.into()).map(drop)
    }

    fn delete(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.write().remove(&self.key_func.key(&obj));
        self.follow(&obj);
        Ok(())
    }

    fn replace(&self, list: Vec<Arc<K>>, resource_version: &str) -> Result<(), StoreError> {
        self.replace_admitted(Cached::from_objects(list), resource_version)
    }

    fn replace_admitted(
        &self,
        list: Vec<Cached<K>>,
        resource_version: &str,
    ) -> Result<(), StoreError> {
        // The old content is freed here, after the lock was released.
        drop(match &self.compact {
            None => self.replace_decoded(list.into_iter())?,
            Some(_) => self.replace_packed(list)?,
        });
        self.set_resource_version(resource_version);
        self.compress_training_set();
        Ok(())
    }

    /// In compact mode, packs `obj` as it arrives (see [`admit_with`](Self::admit_with)).
    fn admit(&self, obj: Arc<K>) -> Cached<K> {
        self.admit_with(obj, |obj| obj)
    }

    fn resync(&self) -> Result<(), StoreError> {
        Ok(())
    }

    fn update_resource_version(&self, resource_version: &str) {
        self.set_resource_version(resource_version);
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
