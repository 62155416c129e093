//! [`ListWatch`]: list and watch one resource through a REST getter.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use kinformer_core::{
    ApiResource, Fields, FieldsError, ListOptions, Lister, ListerWatcher, Object, ObjectList,
    PartialObjectMetadata, Scope, Watcher,
};
use kinformer_rest::decoders::protobuf_decodes_exactly_sized;
use kinformer_rest::{Client, ContentType, Getter, Request, RestClient, WatchStream};
use serde::de::DeserializeOwned;

mod settings;

/// Adjusts the options of every list and watch (client-go's `tweakListOptions`).
pub type OptionsModifier = Arc<dyn Fn(&mut ListOptions) + Send + Sync>;

/// The `Accept` of a metadata-only list from a client that prefers JSON.
pub const METADATA_LIST_ACCEPT: &str =
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
/// The `Accept` of a metadata-only watch (and streaming list) from a client that prefers JSON.
pub const METADATA_WATCH_ACCEPT: &str =
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
/// The `Accept` of a metadata-only list from a client that prefers protobuf
/// ([`ContentType::Protobuf`]), as client-go's metadata client sends it: protobuf first, for
/// any resource (the API server sends `PartialObjectMetadataList` as protobuf for custom
/// resources too), then JSON.
pub const METADATA_LIST_ACCEPT_PROTOBUF: &str = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
/// The `Accept` of a metadata-only watch (and streaming list) from a client that prefers
/// protobuf, as client-go's metadata client sends it.
pub const METADATA_WATCH_ACCEPT_PROTOBUF: &str = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

/// Lists and watches objects of type `K` through getter `G`.
///
/// What it decodes of each object are the [`Fields`] it is [`with_fields`](Self::with_fields): by
/// default every field but `metadata.managedFields`, which are 20–50% of a real object's bytes
/// and which no informer cache needs. The parser skips the rest: this is the one place fields
/// are removed.
///
/// See the [crate documentation](crate) for an example.
#[doc(alias = "NewFilteredListWatchFromClient")]
pub struct ListWatch<K, G> {
    getter: G,
    resource: ApiResource,
    namespace: Option<String>,
    label_selector: Option<String>,
    field_selector: Option<String>,
    modifier: Option<OptionsModifier>,
    streaming_list: bool,
    /// Ask for metadata only (`PartialObjectMetadata`), whatever the resource.
    metadata_only: bool,
    /// What each request decodes of each object.
    fields: Fields,
    /// True once [`with_fields`](Self::with_fields) chose them: an informer's shape may not
    /// overwrite them.
    fields_chosen: bool,
    _object: PhantomData<fn() -> K>,
}

impl<K, G: Getter> ListWatch<K, G> {
    /// A list-watch of `resource` through `getter`, whose requests must be rooted at the
    /// resource's group-version. All namespaces until [`with_namespace`](Self::with_namespace)
    /// sets one.
    pub fn new(getter: G, resource: ApiResource) -> Self {
        Self {
            getter,
            resource,
            namespace: None,
            label_selector: None,
            field_selector: None,
            modifier: None,
            streaming_list: true,
            metadata_only: false,
            fields: Fields::default(),
            fields_chosen: false,
            _object: PhantomData,
        }
    }
}

impl<G: Getter> ListWatch<PartialObjectMetadata, G> {
    /// A metadata-only list-watch of `resource` through `getter` (client-go's metadata
    /// informer source): every list and watch asks the server for `PartialObjectMetadata`, so
    /// only names, labels, annotations, owners and versions cross the wire and reach the cache,
    /// for any resource, built-in or custom.
    pub fn metadata(getter: G, resource: ApiResource) -> Self {
        let mut source = Self::new(getter, resource);
        source.metadata_only = true;
        source
    }
}

impl<K, G: Getter> ListWatch<K, G> {
    /// The resource this source reads.
    pub fn resource(&self) -> &ApiResource {
        &self.resource
    }

    /// The getter.
    pub fn get_ref(&self) -> &G {
        &self.getter
    }

    /// The collection path relative to the API root, e.g. `/api/v1/namespaces/ns/pods`.
    pub fn collection_path(&self) -> String {
        self.resource.collection_path(self.effective_namespace())
    }

    fn effective_namespace(&self) -> Option<&str> {
        match self.resource.scope {
            Scope::Namespaced => self.namespace.as_deref(),
            _ => None,
        }
    }

    /// The caller's options with the selectors and the modifier applied.
    fn options(&self, options: &ListOptions) -> ListOptions {
        let mut options = options.clone();
        if self.label_selector.is_some() {
            options.label_selector.clone_from(&self.label_selector);
        }
        if self.field_selector.is_some() {
            options.field_selector.clone_from(&self.field_selector);
        }
        if let Some(modify) = &self.modifier {
            modify(&mut options);
        }
        options
    }

    /// The request for `options`; `accept` is the `Accept` a metadata-only source sends, by the
    /// encoding its client prefers: `(json, protobuf)`.
    fn request(&self, options: &ListOptions, accept: (&str, &str)) -> Request {
        let mut request = self.getter.get();
        if let Some(ns) = self.effective_namespace() {
            request = request.namespace(ns);
        }
        if self.metadata_only {
            let accept = match request.content_type() {
                ContentType::Protobuf => accept.1,
                _ => accept.0,
            };
            request = request.header("accept", accept);
        }
        request
            .fields(self.fields.clone())
            .resource(&self.resource.plural)
            .versioned_params(&self.options(options))
    }
}

impl<K> ListWatch<K, RestClient> {
    /// A list-watch of `resource` over `client`, with a [`RestClient`] for its group-version.
    pub fn from_client(client: Client, resource: ApiResource) -> Self {
        let rest = RestClient::for_resource(client, &resource);
        Self::new(rest, resource)
    }

    /// A list-watch of the k8s-openapi type `K` over `client`.
    pub fn for_type(client: Client) -> Self
    where
        K: k8s_openapi::Resource,
        K::Scope: 'static,
    {
        Self::from_client(client, ApiResource::of::<K>())
    }
}

impl<K, G> Lister<K> for ListWatch<K, G>
where
    K: Object + DeserializeOwned,
    G: Getter,
{
    type Error = kinformer_rest::Error;

    fn list(
        &self,
        options: &ListOptions,
    ) -> impl Future<Output = Result<ObjectList<K>, Self::Error>> + Send {
        let request = self.request(
            options,
            (METADATA_LIST_ACCEPT, METADATA_LIST_ACCEPT_PROTOBUF),
        );
        async move { request.list::<K>().await }
    }
}

impl<K, G> Watcher<K> for ListWatch<K, G>
where
    K: Object + DeserializeOwned,
    G: Getter,
{
    type Error = kinformer_rest::Error;
    type Stream = WatchStream<K>;

    fn watch(
        &self,
        options: &ListOptions,
    ) -> impl Future<Output = Result<Self::Stream, Self::Error>> + Send {
        let request = self.request(
            options,
            (METADATA_WATCH_ACCEPT, METADATA_WATCH_ACCEPT_PROTOBUF),
        );
        async move { request.watch::<K>().await }
    }
}

impl<K, G> ListerWatcher<K> for ListWatch<K, G>
where
    K: Object + DeserializeOwned,
    G: Getter,
{
    fn supports_streaming_list(&self) -> bool {
        self.streaming_list
    }

    /// Takes the informer's fields, unless [`with_fields`](Self::with_fields) chose others
    /// (then the informer is refused, not the choice overwritten).
    fn set_fields(&mut self, fields: &Fields) -> Result<(), FieldsError> {
        if self.fields_chosen && self.fields != *fields {
            return Err(FieldsError::Conflict {
                built: self.fields.clone(),
                shape: fields.clone(),
            });
        }
        self.fields = fields.clone();
        Ok(())
    }

    /// Protobuf objects of a k8s-openapi type come from the generated typed decoder, which sizes
    /// every list at its length. A server that answers a built-in type in JSON though protobuf
    /// was asked for (kube-apiserver never does) leaves their lists' spare capacity in the cache.
    fn decodes_exactly_sized(&self) -> bool {
        !self.metadata_only
            && self.getter.get().content_type() == ContentType::Protobuf
            && protobuf_decodes_exactly_sized::<K>(&self.fields)
    }
}

impl<K, G: Clone> Clone for ListWatch<K, G> {
    fn clone(&self) -> Self {
        Self {
            getter: self.getter.clone(),
            resource: self.resource.clone(),
            namespace: self.namespace.clone(),
            label_selector: self.label_selector.clone(),
            field_selector: self.field_selector.clone(),
            modifier: self.modifier.clone(),
            streaming_list: self.streaming_list,
            metadata_only: self.metadata_only,
            fields: self.fields.clone(),
            fields_chosen: self.fields_chosen,
            _object: PhantomData,
        }
    }
}

impl<K, G> fmt::Debug for ListWatch<K, G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ListWatch")
            .field("resource", &self.resource)
            .field("namespace", &self.namespace)
            .field("label_selector", &self.label_selector)
            .field("field_selector", &self.field_selector)
            .field("modifier", &self.modifier.is_some())
            .field("streaming_list", &self.streaming_list)
            .field("metadata_only", &self.metadata_only)
            .field("fields", &self.fields)
            .finish_non_exhaustive()
    }
}
