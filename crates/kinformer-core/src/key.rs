//! Object keys: client-go's `MetaNamespaceKeyFunc` and `SplitMetaNamespaceKey`.

use crate::Object;

/// A key that is not `name` or `namespace/name`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unexpected key format: {key:?}")]
#[non_exhaustive]
pub struct KeyError {
    /// The key that could not be split.
    pub key: String,
}

/// The cache key of an object: `namespace/name`, or `name` for cluster-scoped objects.
///
/// ```
/// use k8s_openapi::api::core::v1::{Node, Pod};
/// use kinformer_core::object_key;
///
/// let mut pod = Pod::default();
/// pod.metadata.namespace = Some("ns".into());
/// pod.metadata.name = Some("p".into());
/// assert_eq!(object_key(&pod), "ns/p");
///
/// let mut node = Node::default();
/// node.metadata.name = Some("n1".into());
/// assert_eq!(object_key(&node), "n1");
/// ```
pub fn object_key<K: Object + ?Sized>(obj: &K) -> String {
    match obj.namespace() {
        Some(ns) => {
            let name = obj.name();
            let mut key = String::with_capacity(ns.len() + 1 + name.len());
            key.push_str(ns);
            key.push('/');
            key.push_str(name);
            key
        }
        None => obj.name().to_owned(),
    }
}

/// Splits a key into `(namespace, name)`; the namespace is `None` for a cluster-scoped key.
///
/// # Errors
/// A key with more than one `/` (or an empty name after the slash) is a [`KeyError`].
///
/// ```
/// use kinformer_core::split_key;
///
/// assert_eq!(split_key("ns/p").unwrap(), (Some("ns"), "p"));
/// assert_eq!(split_key("n1").unwrap(), (None, "n1"));
/// assert!(split_key("a/b/c").is_err());
/// ```
pub fn split_key(key: &str) -> Result<(Option<&str>, &str), KeyError> {
    let mut parts = key.split('/');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(name), None, None) => Ok((None, name)),
        (Some(ns), Some(name), None) if !name.is_empty() => Ok((Some(ns), name)),
        _ => Err(KeyError {
            key: key.to_owned(),
        }),
    }
}
