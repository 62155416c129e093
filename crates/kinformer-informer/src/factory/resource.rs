//! [`ResourceOptions`]: how the factory builds the informer of one resource.

use std::fmt;

use kinformer_core::{
    ApiResource, DynamicObject, Object, ObjectShape, PartialObjectMetadata, Transform,
};
use kinformer_indexer::IndexFunc;
use kinformer_listwatch::ListWatch;
use kinformer_reflector::{TypeCheck, expect_kind};
use kinformer_rest::{Client, RestClient};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::Config;
use crate::error::{Conflict, Error};

/// Builds the list-watch source of an informer.
pub(crate) type SourceFn<K> = fn(&Client, &ApiResource) -> ListWatch<K, RestClient>;

/// What the objects of an informer are decoded as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Objects {
    /// A k8s-openapi type.
    Typed,
    /// [`DynamicObject`]s.
    Dynamic,
    /// [`PartialObjectMetadata`]: the server sends metadata only.
    Metadata,
}

/// The options of one resource's informer, applied by
/// [`SharedInformerFactory::informer_with`](super::SharedInformerFactory::informer_with) when it
/// creates it; everything else comes from the factory's [`FactoryConfig`](super::FactoryConfig).
///
/// The constructor says what the server sends ([`typed`](Self::typed) objects,
/// [`dynamic`](Self::dynamic) ones, or [`metadata`](Self::metadata) only);
/// [`with_shape`](Self::with_shape) says what the cache keeps of them and how it holds them,
/// [`with_index`](Self::with_index) adds indexes and [`with_transform`](Self::with_transform)
/// changes each object as it enters. Settings that cannot hold together are refused with
/// [`Error::Options`].
///
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_core::{Holding, ObjectShape};
/// use kinformer_indexer::IndexFunc;
/// use kinformer_informer::factory::ResourceOptions;
/// use kinformer_informer::trim_pod_capacity;
///
/// let options = ResourceOptions::<Pod>::typed()
///     .with_shape(ObjectShape::default().with_holding(Holding::Compact))
///     .with_index("node", IndexFunc::new(|pod: &Pod| {
///         Ok(pod.spec.as_ref().and_then(|s| s.node_name.clone()).into_iter().collect())
///     }))?
///     .with_transform(trim_pod_capacity());
/// assert_eq!(options.shape().holding(), Holding::Compact);
/// assert_eq!(options.index_names().collect::<Vec<_>>(), ["node"]);
/// # Ok::<(), kinformer_informer::Error>(())
/// ```
pub struct ResourceOptions<K> {
    resource: ApiResource,
    objects: Objects,
    source: SourceFn<K>,
    /// The informer's own settings (shape, indexes, transform, type check), checked as they are
    /// set; the factory adds its own (name, resync, queue, reflector, metrics) when it builds.
    config: Config<K>,
}

impl<K: Object> ResourceOptions<K> {
    fn with_source(
        resource: ApiResource,
        objects: Objects,
        source: SourceFn<K>,
        type_check: Option<TypeCheck<K>>,
    ) -> Self {
        let mut config = Config::default();
        if let Some(check) = type_check {
            config = config.with_type_check(check);
        }
        Self {
            resource,
            objects,
            source,
            config,
        }
    }

    /// Whole objects of the k8s-openapi type `K` (what
    /// [`informer_for`](super::SharedInformerFactory::informer_for) builds).
    pub fn typed() -> Self
    where
        K: k8s_openapi::Resource,
        K::Scope: 'static,
    {
        Self::with_source(ApiResource::of::<K>(), Objects::Typed, whole_objects, None)
    }

    /// The resource these options are for.
    pub fn resource(&self) -> &ApiResource {
        &self.resource
    }

    /// Sets what the cache keeps of each object and how it holds it (see
    /// [`Config::with_shape`]).
    #[must_use]
    pub fn with_shape(mut self, shape: ObjectShape) -> Self
    where
        K: Serialize + DeserializeOwned,
    {
        self.config = self.config.with_shape(shape);
        self
    }

    /// What the cache keeps of each object and how it holds it.
    pub fn shape(&self) -> &ObjectShape {
        self.config.shape()
    }

    /// Compresses a packed cache's objects (see [`Config::with_compression`]).
    #[cfg(feature = "compression")]
    #[must_use]
    pub fn with_compression(mut self, compression: kinformer_indexer::Compression) -> Self {
        self.config = self.config.with_compression(compression);
        self
    }

    /// Adds an index besides the built-in namespace index.
    ///
    /// # Errors
    /// [`Error::Options`] with [`Conflict::DuplicateIndex`] when an index of that name exists
    /// (the namespace index included).
    pub fn with_index(self, name: impl Into<String>, func: IndexFunc<K>) -> Result<Self, Error> {
        let Self {
            resource,
            objects,
            source,
            config,
        } = self;
        match config.with_index(name, func) {
            Ok(config) => Ok(Self {
                resource,
                objects,
                source,
                config,
            }),
            Err(Error::Options { conflict, .. }) => Err(Error::Options {
                resource: format!("{}/{}", resource.api_version(), resource.plural),
                conflict,
            }),
            Err(other) => Err(other),
        }
    }

    /// The names of the added indexes, in order.
    pub fn index_names(&self) -> impl Iterator<Item = &str> {
        self.config.index_names()
    }

    /// Changes each object as it enters; it runs after the factory's
    /// [`with_transform_metadata`](super::FactoryConfig::with_transform_metadata), if any.
    #[must_use]
    pub fn with_transform(mut self, transform: Transform<K>) -> Self {
        self.config = self.config.with_transform(transform);
        self
    }

    /// The transform, if any.
    pub fn transform(&self) -> Option<&Transform<K>> {
        self.config.transform()
    }

    pub(crate) fn conflict(&self, conflict: Conflict) -> Error {
        Error::Options {
            resource: format!("{}/{}", self.resource.api_version(), self.resource.plural),
            conflict,
        }
    }

    pub(crate) fn objects(&self) -> Objects {
        self.objects
    }

    /// The resource, the source and the informer's own settings, for the factory's build.
    pub(crate) fn into_parts(self) -> (ApiResource, SourceFn<K>, Config<K>) {
        (self.resource, self.source, self.config)
    }
}

impl ResourceOptions<DynamicObject> {
    /// Objects of a resource known only at run time (a custom resource, say), as
    /// [`DynamicObject`]s; watch objects of another kind are skipped (what
    /// [`dynamic_informer`](super::SharedInformerFactory::dynamic_informer) builds).
    pub fn dynamic(resource: ApiResource) -> Self {
        let check = expect_kind(&resource.api_version(), &resource.kind);
        Self::with_source(resource, Objects::Dynamic, whole_objects, Some(check))
    }
}

impl ResourceOptions<PartialObjectMetadata> {
    /// The metadata of any resource's objects: lists and watches ask the server for
    /// `PartialObjectMetadata` (what
    /// [`metadata_informer`](super::SharedInformerFactory::metadata_informer) builds).
    pub fn metadata(resource: ApiResource) -> Self {
        Self::with_source(resource, Objects::Metadata, metadata_only, None)
    }
}

impl<K> fmt::Debug for ResourceOptions<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceOptions")
            .field("resource", &self.resource)
            .field("objects", &self.objects)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// The source of an informer of whole objects.
fn whole_objects<K>(client: &Client, resource: &ApiResource) -> ListWatch<K, RestClient> {
    ListWatch::from_client(client.clone(), resource.clone())
}

/// The source of a metadata-only informer.
fn metadata_only(
    client: &Client,
    resource: &ApiResource,
) -> ListWatch<PartialObjectMetadata, RestClient> {
    let rest = RestClient::for_resource(client.clone(), resource);
    ListWatch::metadata(rest, resource.clone())
}
