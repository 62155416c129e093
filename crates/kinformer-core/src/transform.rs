//! [`Transform`]: a change applied to every object once, as it enters a queue or a cache.

use std::fmt;
use std::sync::Arc;

/// Rewrites an object once as it enters a delta queue or an informer (client-go's
/// `TransformFunc`), before any cache or handler sees it, typically to drop fields the program
/// never reads.
///
/// It runs on added, updated, deleted and relisted objects, never on tombstones or resyncs
/// (those carry objects that were already transformed). It must be idempotent: a relist may
/// hand it an object it has seen.
///
/// Objects arrive freshly decoded and unshared, so [`new`](Self::new)'s in-place change costs
/// no copy; it copies only an object someone else still holds. `metadata.managedFields` needs
/// no transform: the list-watch source skips it while decoding.
///
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_core::Transform;
///
/// let drop_status = Transform::new(|pod: &mut Pod| pod.status = None);
/// let mut pod = Pod::default();
/// pod.status = Some(Default::default());
/// let pod = Arc::new(pod);
/// let address = Arc::as_ptr(&pod);
/// let pod = drop_status.apply(pod);
/// assert!(pod.status.is_none());
/// assert_eq!(Arc::as_ptr(&pod), address, "changed in place, not copied");
/// ```
pub struct Transform<K>(Arc<dyn Fn(Arc<K>) -> Arc<K> + Send + Sync>);

impl<K: Clone> Transform<K> {
    /// A transform that changes the object in place (copying it first only when shared).
    pub fn new(f: impl Fn(&mut K) + Send + Sync + 'static) -> Self {
        Self::from_shared(move |mut obj: Arc<K>| {
            f(Arc::make_mut(&mut obj));
            obj
        })
    }
}

impl<K> Transform<K> {
    /// A transform over the shared object: it may return the same `Arc`, an edited one or a
    /// replacement.
    pub fn from_shared(f: impl Fn(Arc<K>) -> Arc<K> + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    /// Runs the transform.
    pub fn apply(&self, obj: Arc<K>) -> Arc<K> {
        (self.0)(obj)
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

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;

    use super::*;

    #[test]
    fn copies_only_a_shared_object() {
        let label = Transform::new(|cm: &mut ConfigMap| {
            cm.metadata.labels = Some([("seen".to_owned(), "yes".to_owned())].into());
        });
        let held = Arc::new(ConfigMap::default());
        let other = Arc::clone(&held);
        let changed = label.apply(other);
        assert!(!Arc::ptr_eq(&changed, &held), "a shared object is copied");
        assert!(
            held.metadata.labels.is_none(),
            "the holder's copy is untouched"
        );
        assert!(changed.metadata.labels.is_some());
    }

    #[test]
    fn from_shared_may_replace_the_object() {
        let replacement = Arc::new(ConfigMap::default());
        let swap = Transform::from_shared({
            let replacement = Arc::clone(&replacement);
            move |_| Arc::clone(&replacement)
        });
        let out = swap.apply(Arc::new(ConfigMap::default()));
        assert!(Arc::ptr_eq(&out, &replacement));
    }
}
