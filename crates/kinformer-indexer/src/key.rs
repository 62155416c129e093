//! Key functions and the built-in namespace index function.

use std::fmt;
use std::sync::Arc;

use kinformer_core::{DeletedState, Object, object_key};

/// The name of the built-in index from namespace to keys (client-go's `NamespaceIndex`).
pub const NAMESPACE_INDEX: &str = "namespace";

/// Computes an object's cache key. The default is [`object_key`] (`namespace/name` or `name`).
///
/// Key functions cannot fail: every [`Object`] has metadata, which is the only thing client-go's
/// key function can miss.
pub struct KeyFunc<K>(Arc<dyn Fn(&K) -> String + Send + Sync>);

impl<K> KeyFunc<K> {
    /// A key function from a closure (an "explicit key" scheme, for example `uid`).
    ///
    /// ```
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::Object;
    /// use kinformer_indexer::KeyFunc;
    ///
    /// let by_uid = KeyFunc::new(|pod: &Pod| pod.uid().unwrap_or_default().to_owned());
    /// let mut pod = Pod::default();
    /// pod.metadata.uid = Some("1234".into());
    /// assert_eq!(by_uid.key(&pod), "1234");
    /// ```
    pub fn new(f: impl Fn(&K) -> String + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    /// The key of `obj`.
    pub fn key(&self, obj: &K) -> String {
        (self.0)(obj)
    }
}

impl<K: Object> Default for KeyFunc<K> {
    fn default() -> Self {
        Self::new(|obj: &K| object_key(obj))
    }
}

impl<K> Clone for KeyFunc<K> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<K> fmt::Debug for KeyFunc<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeyFunc")
    }
}

/// The key of a deleted object: a tombstone's own key, else the object's key
/// (client-go's `DeletionHandlingMetaNamespaceKeyFunc`).
///
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_core::DeletedState;
/// use kinformer_indexer::deletion_handling_key;
///
/// let mut pod = Pod::default();
/// pod.metadata.namespace = Some("ns".into());
/// pod.metadata.name = Some("p".into());
/// let state = DeletedState::Known(Arc::new(pod));
/// assert_eq!(deletion_handling_key(&state, &Default::default()), "ns/p");
/// ```
pub fn deletion_handling_key<K>(state: &DeletedState<K>, key_func: &KeyFunc<K>) -> String {
    match state {
        DeletedState::Unknown { key, .. } => key.clone(),
        other => key_func.key(other.object()),
    }
}

/// The built-in namespace index function: `[namespace]`, `[""]` for cluster-scoped objects
/// (client-go's `MetaNamespaceIndexFunc`).
pub fn namespace_index_func<K: Object>(obj: &K) -> Vec<String> {
    vec![obj.namespace().unwrap_or("").to_owned()]
}
