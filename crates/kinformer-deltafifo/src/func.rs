//! [`TransformFunc`]: how a queue transforms what enters it.

use std::fmt;
use std::sync::Arc;

use kinformer_core::Object;

/// Rewrites an object once as it enters a queue (client-go's `TransformFunc`), typically to
/// drop fields the program never reads, such as `managedFields`.
///
/// It runs on added, updated, deleted and relisted objects, never on tombstones or resyncs
/// (those carry objects that were already transformed). It gets the queue's own `Arc`; when
/// the reflector hands the object over, that `Arc` is unique, so [`Arc::get_mut`] edits in place
/// without a copy. It should be idempotent, because a relist may pass cached objects again.
///
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_deltafifo::TransformFunc;
///
/// let strip = TransformFunc::<Pod>::strip_managed_fields();
/// let mut pod = Pod::default();
/// pod.metadata.managed_fields = Some(vec![Default::default()]);
/// let pod = strip.apply(Arc::new(pod));
/// assert!(pod.metadata.managed_fields.is_none());
/// ```
pub struct TransformFunc<K>(Arc<dyn Fn(Arc<K>) -> Arc<K> + Send + Sync>);

impl<K> TransformFunc<K> {
    /// A transform from a closure.
    pub fn new(f: impl Fn(Arc<K>) -> Arc<K> + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    /// Runs the transform.
    pub fn apply(&self, obj: Arc<K>) -> Arc<K> {
        (self.0)(obj)
    }
}

impl<K: Object + Clone> TransformFunc<K> {
    /// Clears `metadata.managedFields`: in place when the `Arc` is unique (the normal case),
    /// by copying the object only when someone else still holds it.
    pub fn strip_managed_fields() -> Self {
        Self::new(|mut obj: Arc<K>| {
            if obj.meta().managed_fields.is_some() {
                Arc::make_mut(&mut obj).meta_mut().managed_fields = None;
            }
            obj
        })
    }
}

impl<K> Clone for TransformFunc<K> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<K> fmt::Debug for TransformFunc<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TransformFunc")
    }
}
