//! [`TransformingStore`]: where an object enters the informer, once: the user's transform, then
//! (for a cache that holds objects exactly sized) the copy into exact allocations; a watched
//! object as it enters the informer's queue, a listed one as it arrives.

use std::sync::Arc;

use kinformer_core::{Cached, Object, Store, StoreError, Transform};
use kinformer_indexer::Indexer;
use tokio::sync::Notify;

/// The store the reflector writes to: applies the informer's transform to every object it is
/// given (added, updated, deleted; a listed object in `admit`, as it arrives; tombstones and
/// resyncs never pass here) and copies it exactly sized when asked to, forwards to the queue,
/// then signals `written`.
pub(crate) struct TransformingStore<S, K> {
    inner: S,
    /// The informer's cache: what a relist may reuse instead of fresh copies.
    cache: Option<Arc<Indexer<K>>>,
    transform: Option<Transform<K>>,
    /// The shape's [`Holding::Exact`](kinformer_core::Holding::Exact).
    exact_copy: bool,
    written: Arc<Notify>,
}

impl<S, K: Object + Clone> TransformingStore<S, K> {
    pub(crate) fn new(
        inner: S,
        transform: Option<Transform<K>>,
        exact_copy: bool,
        written: Arc<Notify>,
    ) -> Self {
        Self {
            inner,
            cache: None,
            transform,
            exact_copy,
            written,
        }
    }

    /// Lets relists reuse `cache`'s copies of unchanged objects, and has listed objects taken
    /// in as `cache` holds them.
    pub(crate) fn reusing(mut self, cache: Arc<Indexer<K>>) -> Self {
        self.cache = Some(cache);
        self
    }

    fn signal<T>(&self, result: T) -> T {
        self.written.notify_one();
        result
    }

    fn apply(&self, obj: Arc<K>) -> Arc<K> {
        let obj = match &self.transform {
            Some(t) => t.apply(obj),
            None => obj,
        };
        // Only an object nothing else holds: a copy of a shared one would be a second copy
        // in memory, not a smaller one.
        if self.exact_copy && Arc::strong_count(&obj) == 1 {
            Arc::new(K::clone(&obj))
        } else {
            obj
        }
    }
}

impl<S: Store<K>, K: Object + Clone> Store<K> for TransformingStore<S, K> {
    fn add(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.signal(self.inner.add(self.apply(obj)))
    }

    fn update(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.signal(self.inner.update(self.apply(obj)))
    }

    fn delete(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.signal(self.inner.delete(self.apply(obj)))
    }

    fn replace(&self, list: Vec<Arc<K>>, resource_version: &str) -> Result<(), StoreError> {
        let list = list.into_iter().map(|obj| self.apply(obj)).collect();
        self.signal(self.inner.replace(list, resource_version))
    }

    /// `list` has been through [`admit`](Store::admit): transformed, or the cache's own copy.
    fn replace_admitted(
        &self,
        list: Vec<Cached<K>>,
        resource_version: &str,
    ) -> Result<(), StoreError> {
        self.signal(self.inner.replace_admitted(list, resource_version))
    }

    fn resync(&self) -> Result<(), StoreError> {
        self.inner.resync()
    }

    fn update_resource_version(&self, resource_version: &str) {
        self.inner.update_resource_version(resource_version);
    }

    /// The cache's copy when it holds `obj`'s revision (it was transformed when it first
    /// entered), else `obj` transformed now, before the next object of the list is decoded,
    /// and taken in as the cache will hold it (packed at once by a compact cache, so the list
    /// is never held decoded).
    fn admit(&self, obj: Arc<K>) -> Cached<K> {
        match &self.cache {
            Some(cache) => cache.admit_with(obj, |obj| self.apply(obj)),
            None => Cached::from(self.apply(obj)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use k8s_openapi::api::core::v1::ConfigMap;

    use super::*;

    #[derive(Default)]
    struct Captured(Mutex<Vec<Arc<ConfigMap>>>);

    impl Store<ConfigMap> for Captured {
        fn add(&self, obj: Arc<ConfigMap>) -> Result<(), StoreError> {
            self.0.lock().unwrap().push(obj);
            Ok(())
        }
        fn update(&self, obj: Arc<ConfigMap>) -> Result<(), StoreError> {
            self.add(obj)
        }
        fn delete(&self, obj: Arc<ConfigMap>) -> Result<(), StoreError> {
            self.add(obj)
        }
        fn replace(&self, list: Vec<Arc<ConfigMap>>, _: &str) -> Result<(), StoreError> {
            self.0.lock().unwrap().extend(list);
            Ok(())
        }
        fn resync(&self) -> Result<(), StoreError> {
            Ok(())
        }
    }

    fn named(name: &str) -> Arc<ConfigMap> {
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(name.into());
        Arc::new(cm)
    }

    #[test]
    fn applies_the_transform_to_every_write_in_place() {
        let written = Arc::new(Notify::new());
        let store = TransformingStore::new(
            Captured::default(),
            Some(Transform::new(|cm: &mut ConfigMap| {
                cm.metadata.labels = Some([("seen".to_owned(), "yes".to_owned())].into());
            })),
            false,
            Arc::clone(&written),
        );
        let added = named("a");
        let address = Arc::as_ptr(&added);
        store.add(added).unwrap();
        let listed = store.admit(named("b"));
        store.replace_admitted(vec![listed], "5").unwrap();
        store.delete(named("c")).unwrap();
        let seen = store.inner.0.lock().unwrap();
        assert!(seen.iter().all(|cm| cm.labels().is_some()));
        assert_eq!(
            Arc::as_ptr(&seen[0]),
            address,
            "a fresh object is not copied"
        );
        drop(seen);
        // The writes left a wake-up for the informer loop.
        let wake = std::pin::pin!(written.notified());
        assert!(futures_util::FutureExt::now_or_never(wake).is_some());
    }

    /// Held exactly sized, every fresh object that enters is copied into lists at their
    /// length; an object someone else holds too passes as it is.
    #[test]
    fn an_exact_copy_leaves_spare_list_capacity_behind() {
        let store =
            TransformingStore::new(Captured::default(), None, true, Arc::new(Notify::new()));
        let with_slack = || {
            let mut cm = (*named("a")).clone();
            let mut owners = Vec::with_capacity(4);
            owners.push(Default::default());
            cm.metadata.owner_references = Some(owners);
            cm.metadata.finalizers = Some(Vec::with_capacity(8));
            Arc::new(cm)
        };
        store.add(with_slack()).unwrap();
        let listed = store.admit(with_slack()).load().unwrap();
        for cm in [&store.inner.0.lock().unwrap()[0], &listed] {
            let meta = &cm.metadata;
            assert_eq!(meta.owner_references.as_ref().unwrap().capacity(), 1);
            assert_eq!(meta.finalizers.as_ref().unwrap().capacity(), 0);
        }
        let shared = with_slack();
        store.update(Arc::clone(&shared)).unwrap();
        assert!(Arc::ptr_eq(&store.inner.0.lock().unwrap()[1], &shared));
    }

    /// With a compact cache behind it, a listed object is transformed and packed as it
    /// arrives; a relisted unchanged revision is the cache's own entry, not transformed again.
    #[test]
    fn a_compact_cache_packs_listed_objects_as_they_arrive() {
        use std::sync::atomic::{AtomicUsize, Ordering};

        use kinformer_indexer::{Compact, Config as IndexerConfig};

        let calls = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&calls);
        let label = Transform::new(move |cm: &mut ConfigMap| {
            counted.fetch_add(1, Ordering::Relaxed);
            cm.metadata.labels = Some([("seen".to_owned(), "yes".to_owned())].into());
        });
        let cache = Arc::new(Indexer::new(
            IndexerConfig::default().with_compact(Compact::json()),
        ));
        let store = TransformingStore::new(
            Captured::default(),
            Some(label),
            false,
            Arc::new(Notify::new()),
        )
        .reusing(Arc::clone(&cache));
        let mut cm = (*named("a")).clone();
        cm.metadata.resource_version = Some("1".into());
        let listed = store.admit(Arc::new(cm.clone()));
        assert!(listed.decoded().is_none(), "packed as it arrived");
        assert!(
            listed.load().unwrap().labels().is_some(),
            "transformed first"
        );
        cache.replace_admitted(vec![listed], "1").unwrap();
        let again = store.admit(Arc::new(cm));
        assert!(again.decoded().is_none());
        assert!(again.load().unwrap().labels().is_some());
        assert_eq!(
            calls.load(Ordering::Relaxed),
            1,
            "an unchanged revision is not transformed"
        );
    }
}
