//! The [`Object`] trait: uniform access to the metadata of any Kubernetes object.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// An object with Kubernetes metadata.
///
/// Implemented for every k8s-openapi resource (through `k8s_openapi::Metadata`) and for
/// [`DynamicObject`](crate::DynamicObject). The provided accessors return borrowed data, so reading
/// a key or a resourceVersion never allocates.
///
/// # Examples
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_core::Object;
///
/// let mut pod = Pod::default();
/// pod.metadata.name = Some("web-0".into());
/// pod.metadata.namespace = Some("prod".into());
/// assert_eq!(pod.name(), "web-0");
/// assert_eq!(pod.namespace(), Some("prod"));
/// assert_eq!(pod.resource_version(), None);
/// ```
pub trait Object: Send + Sync + 'static {
    /// The object's metadata.
    fn meta(&self) -> &ObjectMeta;

    /// The object's metadata, mutably (for transforms such as managedFields stripping).
    fn meta_mut(&mut self) -> &mut ObjectMeta;

    /// `metadata.name`, or `""` when unset.
    fn name(&self) -> &str {
        self.meta().name.as_deref().unwrap_or("")
    }

    /// `metadata.namespace`; `None` (or empty) for cluster-scoped objects.
    fn namespace(&self) -> Option<&str> {
        self.meta().namespace.as_deref().filter(|ns| !ns.is_empty())
    }

    /// `metadata.resourceVersion`.
    fn resource_version(&self) -> Option<&str> {
        self.meta().resource_version.as_deref()
    }

    /// `metadata.uid`.
    fn uid(&self) -> Option<&str> {
        self.meta().uid.as_deref()
    }

    /// `metadata.labels`, when present.
    fn labels(&self) -> Option<&BTreeMap<String, String>> {
        self.meta().labels.as_ref()
    }

    /// `metadata.annotations`, when present.
    fn annotations(&self) -> Option<&BTreeMap<String, String>> {
        self.meta().annotations.as_ref()
    }
}

impl<T> Object for T
where
    T: k8s_openapi::Metadata<Ty = ObjectMeta> + Send + Sync + 'static,
{
    fn meta(&self) -> &ObjectMeta {
        self.metadata()
    }

    fn meta_mut(&mut self) -> &mut ObjectMeta {
        self.metadata_mut()
    }
}
