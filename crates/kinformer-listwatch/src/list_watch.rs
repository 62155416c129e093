//! [`ListWatch`]: list and watch one resource through a REST getter.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use kinformer_core::{
    ApiResource, ListOptions, Lister, ListerWatcher, Object, ObjectList, PartialObjectMetadata,
    Scope, Watcher,
};
use kinformer_rest::{
    Client, Decoding, FullObjects, Getter, Project, Projection, Request, RestClient,
    SkipManagedFields, WatchStream,
};
use serde::de::DeserializeOwned;

/// Adjusts the options of every list and watch (client-go's `tweakListOptions`).
pub type OptionsModifier = Arc<dyn Fn(&mut ListOptions) + Send + Sync>;

/// The `Accept` of a metadata-only list, as client-go's metadata client sends it (JSON).
pub const METADATA_LIST_ACCEPT: &str =
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
/// The `Accept` of a metadata-only watch (and streaming list).
pub const METADATA_WATCH_ACCEPT: &str =
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

/// Lists and watches objects of type `K` through getter `G`.
///
/// `metadata.managedFields` is skipped by the parser unless
/// [`with_managed_fields`](Self::with_managed_fields) asks for it: it is 20–50% of a real
/// object's bytes and no informer cache needs it. This is the one place it is removed.
///
/// See the [crate documentation](crate) for an example.
#[doc(alias = "NewFilteredListWatchFromClient")]
pub struct ListWatch<K, G, M = SkipManagedFields> {
    getter: G,
    resource: ApiResource,
    namespace: Option<String>,
    label_selector: Option<String>,
    field_selector: Option<String>,
    modifier: Option<OptionsModifier>,
    streaming_list: bool,
    /// Ask for metadata only (`PartialObjectMetadata`), whatever the resource.
    metadata_only: bool,
    /// The fields the parser skips (with the `Project` decoding mode), handed to each request.
    projection: Option<Arc<Projection>>,
    _object: PhantomData<fn() -> (K, M)>,
}

impl<K, G: Getter> ListWatch<K, G> {
    /// A list-watch of `resource` through `getter`, whose requests must be rooted at the
    /// resource's group-version. All namespaces until [`namespace`](Self::namespace) is set.
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
            projection: None,
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

impl<K, G: Getter, M> ListWatch<K, G, M> {
    /// Decodes objects with `metadata.managedFields` skipped by the parser (the default): not
    /// building them is cheaper than building and dropping them.
    #[must_use]
    pub fn without_managed_fields(self) -> ListWatch<K, G, SkipManagedFields> {
        self.decoding()
    }

    /// Decodes whole objects, `metadata.managedFields` included (for a tool that shows or
    /// edits them).
    #[must_use]
    pub fn with_managed_fields(self) -> ListWatch<K, G, FullObjects> {
        self.decoding()
    }

    /// Decodes each object through `projection`: the fields it drops (or does not keep) are
    /// skipped by the parser, as managedFields are, so neither the cache nor the handlers ever
    /// hold them.
    ///
    /// ```
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::Lister;
    /// use kinformer_listwatch::ListWatch;
    /// use kinformer_rest::{Client, Projection};
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let sim = kinformer_sim::Sim::builder().pods(3).seed(1).start().await?;
    /// let lean = ListWatch::<Pod, _>::for_type(Client::new(sim.service()))
    ///     .project(Projection::drop(["spec.containers[].env", "status.containerStatuses"])?);
    /// let list = lean.list(&Default::default()).await?;
    /// assert!(list.items.iter().all(|p| p.status.as_ref().unwrap().container_statuses.is_none()));
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn project(self, projection: Projection) -> ListWatch<K, G, Project> {
        let mut projected: ListWatch<K, G, Project> = self.decoding();
        projected.projection = Some(Arc::new(projection));
        projected
    }

    fn decoding<D>(self) -> ListWatch<K, G, D> {
        ListWatch {
            getter: self.getter,
            resource: self.resource,
            namespace: self.namespace,
            label_selector: self.label_selector,
            field_selector: self.field_selector,
            modifier: self.modifier,
            streaming_list: self.streaming_list,
            metadata_only: self.metadata_only,
            projection: self.projection,
            _object: PhantomData,
        }
    }

    /// True when this source asks for metadata only.
    pub fn is_metadata_only(&self) -> bool {
        self.metadata_only
    }

    /// Restricts to one namespace (ignored for cluster-scoped resources); `""` means all.
    #[must_use]
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into()).filter(|ns| !ns.is_empty());
        self
    }

    /// Sends `labelSelector` on every request.
    #[must_use]
    pub fn labels(mut self, selector: impl Into<String>) -> Self {
        self.label_selector = Some(selector.into());
        self
    }

    /// Sends `fieldSelector` on every request.
    #[must_use]
    pub fn fields(mut self, selector: impl Into<String>) -> Self {
        self.field_selector = Some(selector.into());
        self
    }

    /// Runs `modify` on the options of every request, last (it may override anything).
    #[must_use]
    pub fn modify(mut self, modify: impl Fn(&mut ListOptions) + Send + Sync + 'static) -> Self {
        self.modifier = Some(Arc::new(modify));
        self
    }

    /// Declares that the server behind this source cannot serve streaming lists
    /// (`sendInitialEvents`), so a reflector goes straight to list+watch (client-go's
    /// `IsWatchListSemanticsUnSupported`). Fakes and mock servers should say so.
    #[must_use]
    pub fn without_streaming_list(mut self) -> Self {
        self.streaming_list = false;
        self
    }

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

    /// The request for `options`; `accept` is the media type a metadata-only source asks for.
    fn request(&self, options: &ListOptions, accept: &str) -> Request {
        let mut request = self.getter.get();
        if let Some(ns) = self.effective_namespace() {
            request = request.namespace(ns);
        }
        if self.metadata_only {
            request = request.header("accept", accept);
        }
        if let Some(projection) = &self.projection {
            request = request.projection(Arc::clone(projection));
        }
        request
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

impl<K, G, M> Lister<K> for ListWatch<K, G, M>
where
    K: Object + DeserializeOwned,
    G: Getter,
    M: Decoding,
{
    type Error = kinformer_rest::Error;

    fn list(
        &self,
        options: &ListOptions,
    ) -> impl Future<Output = Result<ObjectList<K>, Self::Error>> + Send {
        let request = self.request(options, METADATA_LIST_ACCEPT);
        async move { request.list_as::<K, M>().await }
    }
}

impl<K, G, M> Watcher<K> for ListWatch<K, G, M>
where
    K: Object + DeserializeOwned,
    G: Getter,
    M: Decoding,
{
    type Error = kinformer_rest::Error;
    type Stream = WatchStream<K, M>;

    fn watch(
        &self,
        options: &ListOptions,
    ) -> impl Future<Output = Result<Self::Stream, Self::Error>> + Send {
        let request = self.request(options, METADATA_WATCH_ACCEPT);
        async move { request.watch_as::<K, M>().await }
    }
}

impl<K, G, M> ListerWatcher<K> for ListWatch<K, G, M>
where
    K: Object + DeserializeOwned,
    G: Getter,
    M: Decoding,
{
    fn supports_streaming_list(&self) -> bool {
        self.streaming_list
    }
}

impl<K, G: Clone, M> Clone for ListWatch<K, G, M> {
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
            projection: self.projection.clone(),
            _object: PhantomData,
        }
    }
}

impl<K, G, M> fmt::Debug for ListWatch<K, G, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ListWatch")
            .field("resource", &self.resource)
            .field("namespace", &self.namespace)
            .field("label_selector", &self.label_selector)
            .field("field_selector", &self.field_selector)
            .field("modifier", &self.modifier.is_some())
            .field("streaming_list", &self.streaming_list)
            .field("metadata_only", &self.metadata_only)
            .field("projection", &self.projection)
            .finish_non_exhaustive()
    }
}
