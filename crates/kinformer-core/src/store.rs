//! [`Store`] and [`StoreRead`]: the write and read sides of an object cache.

use std::sync::Arc;

use crate::{Cached, KeyError};

/// Why a store rejected a write, or a cached object could not be read.
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
    /// A packed object ([`Cached`]) failed to decode; only a type whose serde implementations
    /// do not round-trip can cause it.
    #[error("cached object {key:?} failed to decode: {message}")]
    Decode {
        /// The object's key.
        key: String,
        /// What the decoder reported.
        message: String,
    },
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

    /// Replace the whole content with `list` as [`admit`](Self::admit) handed it out: what a
    /// reflector calls. A store that packs objects as they are admitted overrides it to take
    /// them packed; the default decodes each (free for the objects the default `admit` gave)
    /// and calls [`replace`](Self::replace).
    ///
    /// # Errors
    /// A key or index error, or a packed object that does not decode; the store is unchanged.
    fn replace_admitted(
        &self,
        list: Vec<Cached<K>>,
        resource_version: &str,
    ) -> Result<(), StoreError>
    where
        K: 'static,
    {
        let list = list
            .into_iter()
            .map(Cached::into_object)
            .collect::<Result<Vec<_>, _>>()?;
        self.replace(list, resource_version)
    }

    /// Periodic resync: re-deliver what the store holds (a no-op for a plain cache).
    ///
    /// # Errors
    /// Implementation-specific; a plain cache never fails.
    fn resync(&self) -> Result<(), StoreError>;

    /// Receives every resourceVersion the reflector has synced to (client-go's
    /// `ResourceVersionUpdater`); the default ignores it.
    fn update_resource_version(&self, _resource_version: &str) {}

    /// Takes in one listed object as it arrives, before the list reaches [`replace`]: the
    /// default keeps it as it is.
    ///
    /// A reflector passes every object of a list (each page, or each initial event of a
    /// streaming list) through here at once, so a store can act while the object is fresh:
    /// hand back the copy it already holds of the same revision (a relist of an unchanged cache
    /// then costs a page of memory, not a second cache), transform it before the next object
    /// is decoded (the transform's garbage is then reused by the next decode instead of lying
    /// between cached objects), or pack it as it will hold it (a list is then never held
    /// decoded). What `replace_admitted` receives has been through here.
    ///
    /// [`replace`]: Self::replace_admitted
    fn admit(&self, obj: Arc<K>) -> Cached<K> {
        Cached::from(obj)
    }
}

/// The read side of a cache.
pub trait StoreRead<K>: Send + Sync {
    /// The object stored under `key` (decoded now, when the store holds it packed).
    fn get_by_key(&self, key: &str) -> Option<Arc<K>>;

    /// Every stored object, in no particular order (all decoded at once, when the store holds
    /// them packed: a store that packs offers a way to read them one at a time).
    fn list(&self) -> Vec<Arc<K>>;

    /// The object stored under `key` as the store holds it, without decoding it; the default
    /// wraps [`get_by_key`](Self::get_by_key).
    fn get_cached(&self, key: &str) -> Option<Cached<K>> {
        self.get_by_key(key).map(Cached::from)
    }

    /// Every stored object as the store holds it, without decoding any, in no particular
    /// order; the default wraps [`list`](Self::list).
    fn list_cached(&self) -> Vec<Cached<K>> {
        self.list().into_iter().map(Cached::from).collect()
    }

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
            fn replace_admitted(&self, list: Vec<Cached<K>>, rv: &str) -> Result<(), StoreError>
            where
                K: 'static,
            {
                (**self).replace_admitted(list, rv)
            }
            fn resync(&self) -> Result<(), StoreError> { (**self).resync() }
            fn update_resource_version(&self, rv: &str) { (**self).update_resource_version(rv) }
            fn admit(&self, obj: Arc<K>) -> Cached<K> { (**self).admit(obj) }
        }

        impl<K, S: StoreRead<K> + ?Sized> StoreRead<K> for $ptr {
            fn get_by_key(&self, key: &str) -> Option<Arc<K>> { (**self).get_by_key(key) }
            fn list(&self) -> Vec<Arc<K>> { (**self).list() }
            fn get_cached(&self, key: &str) -> Option<Cached<K>> { (**self).get_cached(key) }
            fn list_cached(&self) -> Vec<Cached<K>> { (**self).list_cached() }
            fn list_keys(&self) -> Vec<String> { (**self).list_keys() }
            fn len(&self) -> usize { (**self).len() }
        }
    )*};
}

forward_store!(&S, Box<S>, Arc<S>);
