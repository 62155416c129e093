//! [`Regarding`]: the object an event is about and, optionally, a second object involved.

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::{Metadata, Resource};

/// What an event is about: `regarding`, and optionally `related` (client-go's `Eventf`
/// arguments of those names).
///
/// [`Recorder::event`](crate::Recorder::event) takes anything that converts into it: a
/// reference to a k8s-openapi object (its `apiVersion` and `kind` from its type, with its
/// name, namespace, uid and resourceVersion, as client-go's `reference.GetReference` takes
/// them), or an [`ObjectReference`] as it is.
///
/// ```
/// use k8s_openapi::api::core::v1::{Node, ObjectReference, Pod};
/// use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
/// use kinformer_events::Regarding;
///
/// let pod = Pod {
///     metadata: ObjectMeta { name: Some("web-0".into()), namespace: Some("shop".into()), ..Default::default() },
///     ..Default::default()
/// };
/// let node = Node { metadata: ObjectMeta { name: Some("node-1".into()), ..Default::default() }, ..Default::default() };
///
/// let about = Regarding::from(&pod).with_related(&node);
/// assert_eq!(about.object().kind.as_deref(), Some("Pod"));
/// assert_eq!(about.object().api_version.as_deref(), Some("v1"));
/// assert_eq!(about.related().and_then(|node| node.name.as_deref()), Some("node-1"));
///
/// let by_reference = Regarding::from(ObjectReference { name: Some("web-0".into()), ..Default::default() });
/// assert!(by_reference.related().is_none());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Regarding {
    object: ObjectReference,
    related: Option<ObjectReference>,
}

impl Regarding {
    /// An event about `object`, with no related object.
    pub fn new(object: ObjectReference) -> Self {
        Self {
            object,
            related: None,
        }
    }

    /// The same, with `related` as the second object involved (only its object counts; its
    /// own related object, if any, is ignored).
    #[must_use]
    pub fn with_related(mut self, related: impl Into<Self>) -> Self {
        self.related = Some(related.into().object);
        self
    }

    /// The object the event is about.
    pub fn object(&self) -> &ObjectReference {
        &self.object
    }

    /// The second object involved, if any.
    pub fn related(&self) -> Option<&ObjectReference> {
        self.related.as_ref()
    }

    pub(crate) fn into_parts(self) -> (ObjectReference, Option<ObjectReference>) {
        (self.object, self.related)
    }
}

impl Regarding {
    /// The object `object` of `resource` (a custom resource's `DynamicObject`, say, whose type
    /// the object itself may not carry).
    pub fn of<K: kinformer_core::Object>(
        object: &K,
        resource: &kinformer_core::ApiResource,
    ) -> Self {
        let meta = object.meta();
        Self::new(ObjectReference {
            api_version: Some(resource.api_version()),
            kind: Some(resource.kind.clone()),
            name: meta.name.clone(),
            namespace: meta.namespace.clone(),
            uid: meta.uid.clone(),
            resource_version: meta.resource_version.clone(),
            field_path: None,
        })
    }
}

impl From<ObjectReference> for Regarding {
    fn from(object: ObjectReference) -> Self {
        Self::new(object)
    }
}

impl<K> From<&K> for Regarding
where
    K: Resource + Metadata<Ty = ObjectMeta>,
{
    fn from(object: &K) -> Self {
        let meta = object.metadata();
        Self::new(ObjectReference {
            api_version: Some(K::API_VERSION.to_owned()),
            kind: Some(K::KIND.to_owned()),
            name: meta.name.clone(),
            namespace: meta.namespace.clone(),
            uid: meta.uid.clone(),
            resource_version: meta.resource_version.clone(),
            field_path: None,
        })
    }
}
