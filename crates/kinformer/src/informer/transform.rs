//! Transforms: changes applied to every object once, as it enters the informer's queue.

use std::fmt;
use std::sync::Arc;

use kinformer_core::{Object, Store, StoreError};
use kinformer_indexer::Indexer;

use super::compact;
use tokio::sync::Notify;

/// A change applied in place to every object as it enters the informer's queue (client-go's
/// `TransformFunc`), before it reaches the cache or a handler. It must be idempotent: a relist
/// may hand it an object it has seen.
///
/// Objects arrive freshly decoded and unshared, so the change is made in place without a copy.
///
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer::informer::Transform;
///
/// let drop_status = Transform::new(|pod: &mut Pod| pod.status = None);
/// let mut pod = Pod::default();
/// pod.status = Some(Default::default());
/// drop_status.apply_in_place(&mut pod);
/// assert!(pod.status.is_none());
/// ```
pub struct Transform<K>(Arc<dyn Fn(&mut K) + Send + Sync>);

impl<K> Transform<K> {
    /// A transform from a function.
    pub fn new(f: impl Fn(&mut K) + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    /// Applies the transform to `obj`.
    pub fn apply_in_place(&self, obj: &mut K) {
        (self.0)(obj);
    }
}

impl<K: Clone> Transform<K> {
    /// Applies the transform to a shared object; copies it only if someone else holds it.
    pub fn apply(&self, mut obj: Arc<K>) -> Arc<K> {
        self.apply_in_place(Arc::make_mut(&mut obj));
        obj
    }
}

impl<K> Clone for Transform<K> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<K> fmt::Debug for Transform<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Transform")
    }
}

/// Drops `metadata.managedFields`, as kube-controller-manager and the scheduler do for their
/// caches. Leaves objects without managedFields untouched (no copy).
pub(crate) fn strip_managed_fields<K: Object + Clone>(obj: Arc<K>) -> Arc<K> {
    if obj.meta().managed_fields.is_none() {
        return obj;
    }
    let mut obj = obj;
    Arc::make_mut(&mut obj).meta_mut().managed_fields = None;
    obj
}

/// The store the reflector writes to: applies the informer's transforms to every object it is
/// given (added, updated, deleted, listed; tombstones and resyncs never pass here), forwards to
/// the queue, then signals `written`.
pub(crate) struct TransformingStore<S, K> {
    inner: S,
    /// The informer's cache: what a relist may reuse instead of fresh copies.
    cache: Option<Arc<Indexer<K>>>,
    strip_managed_fields: bool,
    transform: Option<Transform<K>>,
    written: Arc<Notify>,
}

impl<S, K: Object + Clone> TransformingStore<S, K> {
    pub(crate) fn new(
        inner: S,
        strip_managed_fields: bool,
        transform: Option<Transform<K>>,
        written: Arc<Notify>,
    ) -> Self {
        Self {
            inner,
            cache: None,
            strip_managed_fields,
            transform,
            written,
        }
    }

    /// Lets relists reuse `cache`'s copies of unchanged objects.
    pub(crate) fn reusing(mut self, cache: Arc<Indexer<K>>) -> Self {
        self.cache = Some(cache);
        self
    }

    /// True for an object that is the cache's own copy (handed back by `same_revision`): it
    /// was transformed when it first entered, and transforming a shared copy would clone it.
    fn is_cached_copy(&self, obj: &Arc<K>) -> bool {
        // A freshly decoded object is the only reference to itself: no lookup for it.
        Arc::strong_count(obj) > 1
            && self
                .cache
                .as_ref()
                .and_then(|cache| cache.get(obj))
                .is_some_and(|held| Arc::ptr_eq(&held, obj))
    }

    fn signal<T>(&self, result: T) -> T {
        self.written.notify_one();
        result
    }

    fn apply(&self, mut obj: Arc<K>) -> Arc<K> {
        if self.strip_managed_fields {
            obj = strip_managed_fields(obj);
        }
        // Only when unshared: trimming must never cost a copy.
        if compact::trims::<K>()
            && let Some(unique) = Arc::get_mut(&mut obj)
        {
            compact::shrink_in_place(unique);
        }
        match &self.transform {
            Some(t) => t.apply(obj),
            None => obj,
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
        let list = list
            .into_iter()
            .map(|obj| {
                if self.is_cached_copy(&obj) {
                    obj
                } else {
                    self.apply(obj)
                }
            })
            .collect();
        self.signal(self.inner.replace(list, resource_version))
    }

    fn resync(&self) -> Result<(), StoreError> {
        self.inner.resync()
    }

    fn update_resource_version(&self, resource_version: &str) {
        self.inner.update_resource_version(resource_version);
    }

    fn same_revision(&self, obj: &K) -> Option<Arc<K>> {
        let held = self.cache.as_ref()?.get(obj)?;
        let same = held.meta().uid == obj.meta().uid
            && held.resource_version().is_some()
            && held.resource_version() == obj.resource_version();
        same.then_some(held)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use k8s_openapi::api::core::v1::ConfigMap;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry;

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

    fn with_managed_fields(name: &str) -> Arc<ConfigMap> {
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(name.into());
        cm.metadata.managed_fields = Some(vec![ManagedFieldsEntry::default()]);
        Arc::new(cm)
    }

    #[test]
    fn strips_managed_fields_then_applies_the_user_transform_to_every_write() {
        let written = Arc::new(Notify::new());
        let store = TransformingStore::new(
            Captured::default(),
            true,
            Some(Transform::new(|cm: &mut ConfigMap| {
                assert!(
                    cm.metadata.managed_fields.is_none(),
                    "stripping comes first"
                );
                cm.metadata.labels = Some([("seen".to_owned(), "yes".to_owned())].into());
            })),
            Arc::clone(&written),
        );
        store.add(with_managed_fields("a")).unwrap();
        store.replace(vec![with_managed_fields("b")], "5").unwrap();
        store.delete(with_managed_fields("c")).unwrap();
        let seen = store.inner.0.lock().unwrap();
        assert!(seen[0].metadata.managed_fields.is_none() && seen[0].labels().is_some());
        assert!(seen[1].metadata.managed_fields.is_none() && seen[1].labels().is_some());
        assert!(seen[2].metadata.managed_fields.is_none() && seen[2].labels().is_some());
        drop(seen);
        // The writes left a wake-up for the informer loop.
        let wake = std::pin::pin!(written.notified());
        assert!(futures_util::FutureExt::now_or_never(wake).is_some());
    }

    #[test]
    fn keeping_managed_fields_and_no_copy_when_unshared() {
        let store =
            TransformingStore::new(Captured::default(), false, None, Arc::new(Notify::new()));
        store.add(with_managed_fields("a")).unwrap();
        assert!(
            store.inner.0.lock().unwrap()[0]
                .metadata
                .managed_fields
                .is_some()
        );

        let obj = with_managed_fields("x");
        let ptr = Arc::as_ptr(&obj);
        let stripped = strip_managed_fields(obj);
        assert_eq!(Arc::as_ptr(&stripped), ptr, "stripped in place");
        let plain = Arc::new(ConfigMap::default());
        let copy = Arc::clone(&plain);
        assert!(
            Arc::ptr_eq(&strip_managed_fields(copy), &plain),
            "nothing to strip: shared as is"
        );
    }
}
