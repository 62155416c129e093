//! Key functions and the built-in namespace index function.
use kinformer_core::{DeletedState, KeyFunc, Object};

/// The name of the built-in index from namespace to keys (client-go's `NamespaceIndex`).
pub const NAMESPACE_INDEX: &str = "namespace";

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
