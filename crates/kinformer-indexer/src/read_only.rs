//! [`ReadOnlyIndexer`]: a cache handed out to readers, who cannot write to it.

use std::fmt;
use std::sync::Arc;

use kinformer_core::{Cached, Object, StoreRead};

use crate::Indexer;

/// A handle that reads an [`Indexer`] and cannot change it: what an informer hands out, so
/// that only the informer's own loop writes to its cache (a write from outside would be
/// undone by the next event, and would never reach the handlers).
///
/// Cloning gives another handle to the same cache.
///
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_core::{Store, StoreRead};
/// use kinformer_indexer::{Indexer, ReadOnlyIndexer};
///
/// let cache = Arc::new(Indexer::<ConfigMap>::default());
/// let mut cm = ConfigMap::default();
/// cm.metadata.name = Some("settings".into());
/// cache.add(Arc::new(cm))?;
/// let reader = ReadOnlyIndexer::new(Arc::clone(&cache));
/// assert_eq!(reader.list_keys(), ["settings"]);
/// # Ok::<(), kinformer_core::StoreError>(())
/// ```
pub struct ReadOnlyIndexer<K> {
    pub(crate) cache: Arc<Indexer<K>>,
}

impl<K: Object> ReadOnlyIndexer<K> {
    /// A read-only handle to `cache`.
    pub fn new(cache: Arc<Indexer<K>>) -> Self {
        Self { cache }
    }

    /// True when both handles read the same cache.
    pub fn same_cache(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.cache, &other.cache)
    }
}

impl<K: Object> StoreRead<K> for ReadOnlyIndexer<K> {
    fn get_by_key(&self, key: &str) -> Option<Arc<K>> {
        self.cache.get_by_key(key)
    }

    fn list(&self) -> Vec<Arc<K>> {
        self.cache.list()
    }

    fn get_cached(&self, key: &str) -> Option<Cached<K>> {
        self.cache.get_cached(key)
    }

    fn list_cached(&self) -> Vec<Cached<K>> {
        self.cache.list_cached()
    }

    fn list_keys(&self) -> Vec<String> {
        self.cache.list_keys()
    }

    fn len(&self) -> usize {
        self.cache.len()
    }
}

impl<K> Clone for ReadOnlyIndexer<K> {
    fn clone(&self) -> Self {
        Self {
            cache: Arc::clone(&self.cache),
        }
    }
}

impl<K> fmt::Debug for ReadOnlyIndexer<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadOnlyIndexer")
            .field("cache", &self.cache)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kinformer_core::Store;

    use super::*;
    use crate::{Config, IndexFunc, IndexRead};

    #[test]
    fn reads_what_the_cache_holds_and_nothing_else() {
        let by_data = IndexFunc::new(|cm: &ConfigMap| {
            Ok(cm.data.iter().flat_map(|d| d.keys().cloned()).collect())
        });
        let cache = Arc::new(Indexer::new(Config::default().with_index("data", by_data)));
        let reader = ReadOnlyIndexer::new(Arc::clone(&cache));
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some("a".into());
        cm.data = Some([("k".to_owned(), "v".to_owned())].into());
        cache.add(Arc::new(cm.clone())).unwrap();
        assert_eq!(reader.len(), 1);
        assert_eq!(reader.by_index("data", "k").unwrap().len(), 1);
        assert_eq!(reader.list_index_func_values("data"), ["k"]);
        assert!(reader.get(&cm).is_some());
        assert_eq!(reader.iter().count(), 1);
        assert!(reader.same_cache(&reader.clone()));
        assert!(!reader.same_cache(&ReadOnlyIndexer::new(Arc::new(Indexer::default()))));
        cache.delete(Arc::new(cm)).unwrap();
        assert!(reader.is_empty());
    }
}
