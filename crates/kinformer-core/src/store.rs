//! [`Store`] and [`StoreRead`]: the write and read sides of an object cache.

use std::sync::Arc;

use crate::KeyError;

/// Why a store rejected a write.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The object's key could not be computed or parsed.
    #[error("object key")]
    Key(#[from] KeyError),
    /// An index function failed; nothing was applied.
    #[error("index {index:?} failed for object {key:?}: {message}")]
    Index {
        /// The index name.
        index: String,
        /// The object's key.
        key: String,
        /// What the index function reported.
        message: String,
    },
    /// The store (a queue) was closed.
    #[error("store is closed")]
    Closed,
}

/// The write side of a cache, as a reflector drives it (client-go's `Store` minus reads).
///
/// Synchronous and object-safe; implementations use interior mutability so one store can be shared
/// between a writer and many readers.
///
/// ```
/// use kinformer_core::Store;
///
/// fn _object_safe(_: &dyn Store<String>) {}
/// ```
pub trait Store<K>: Send + Sync {
    /// The object was added.
    ///
    /// # Errors
    /// A key or index error; the store is unchanged.
    fn add(&self, obj: Arc<K>) -> Result<(), StoreError>;

    /// The object changed.
    ///
    /// # Errors
    /// A key or index error; the store is unchanged.
    fn update(&self, obj: Arc<K>) -> Result<(), StoreError>;

    /// The object was deleted (the argument is its final state).
    ///
    /// # Errors
    /// A key or index error; the store is unchanged.
    fn delete(&self, obj: Arc<K>) -> Result<(), StoreError>;

    /// Replace the whole content with `list`, read at `resource_version`.
    ///
    /// # Errors
    /// A key or index error; the store is unchanged.
    fn replace(&self, list: Vec<Arc<K>>, resource_version: &str) -> Result<(), StoreError>;

    /// Periodic resync: re-deliver what the store holds (a no-op for a plain cache).
    ///
    /// # Errors
    /// Implementation-specific; a plain cache never fails.
    fn resync(&self) -> Result<(), StoreError>;

    /// Receives every resourceVersion the reflector has synced to (client-go's
    /// `ResourceVersionUpdater`); the default ignores it.
    fn update_resource_version(&self, _resource_version: &str) {}

    /// The copy this store already holds of `obj` when it is the same revision (same UID and
    /// resourceVersion), or `None` (the default).
    ///
    /// A reflector asks for each object of a relist as its page arrives, keeps the held copy
    /// and drops the fresh one at once: a relist of an unchanged cache then costs a page of
    /// memory instead of a second copy of the cache. The held copy has been through the store's
    /// own transforms already.
    fn same_revision(&self, _obj: &K) -> Option<Arc<K>> {
        None
    }
}

/// The read side of a cache.
pub trait StoreRead<K>: Send + Sync {
    /// The object stored under `key`.
    fn get_by_key(&self, key: &str) -> Option<Arc<K>>;

    /// Every stored object, in no particular order.
    fn list(&self) -> Vec<Arc<K>>;

    /// Every stored key, in no particular order.
    fn list_keys(&self) -> Vec<String>;

    /// How many objects are stored.
    fn len(&self) -> usize;

    /// True when nothing is stored.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

macro_rules! forward_store {
    ($($ptr:ty),*) => {$(
        impl<K, S: Store<K> + ?Sized> Store<K> for $ptr {
            fn add(&self, obj: Arc<K>) -> Result<(), StoreError> { (**self).add(obj) }
            fn update(&self, obj: Arc<K>) -> Result<(), StoreError> { (**self).update(obj) }
            fn delete(&self, obj: Arc<K>) -> Result<(), StoreError> { (**self).delete(obj) }
            fn replace(&self, list: Vec<Arc<K>>, rv: &str) -> Result<(), StoreError> {
                (**self).replace(list, rv)
            }
            fn resync(&self) -> Result<(), StoreError> { (**self).resync() }
            fn update_resource_version(&self, rv: &str) { (**self).update_resource_version(rv) }
            fn same_revision(&self, obj: &K) -> Option<Arc<K>> { (**self).same_revision(obj) }
        }

        impl<K, S: StoreRead<K> + ?Sized> StoreRead<K> for $ptr {
            fn get_by_key(&self, key: &str) -> Option<Arc<K>> { (**self).get_by_key(key) }
            fn list(&self) -> Vec<Arc<K>> { (**self).list() }
            fn list_keys(&self) -> Vec<String> { (**self).list_keys() }
            fn len(&self) -> usize { (**self).len() }
        }
    )*};
}

forward_store!(&S, Box<S>, Arc<S>);
