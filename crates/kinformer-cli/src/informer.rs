//! Building an informer for the `watch` and `mirror` commands.

use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use kinformer::indexer::Compression;
use kinformer::informer::{Config, Metrics, QueueKind, SharedIndexInformer};
use kinformer_core::{ApiResource, DynamicObject, Object, ObjectShape, PartialObjectMetadata};
use kinformer_listwatch::ListWatch;
use kinformer_reflector::Config as ReflectorConfig;
use kinformer_rest::{Client, RestClient};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::CliError;

/// An object type the commands cache, and how its list-watch is made.
pub(crate) trait Cached: Object + Clone + DeserializeOwned + Serialize + Default {
    /// The list-watch of `resource` over `client`.
    fn source(client: Client, resource: ApiResource) -> ListWatch<Self, RestClient>;
}

impl Cached for Pod {
    fn source(client: Client, resource: ApiResource) -> ListWatch<Self, RestClient> {
        ListWatch::from_client(client, resource)
    }
}

impl Cached for DynamicObject {
    fn source(client: Client, resource: ApiResource) -> ListWatch<Self, RestClient> {
        ListWatch::from_client(client, resource)
    }
}

impl Cached for PartialObjectMetadata {
    fn source(client: Client, resource: ApiResource) -> ListWatch<Self, RestClient> {
        let rest = RestClient::for_resource(client, &resource);
        ListWatch::metadata(rest, resource)
    }
}

/// What to list and watch, and how.
#[derive(Debug, Clone)]
pub(crate) struct Setup {
    pub(crate) resource: ApiResource,
    pub(crate) namespace: Option<String>,
    pub(crate) label_selector: Option<String>,
    pub(crate) field_selector: Option<String>,
    pub(crate) streaming_list: bool,
    pub(crate) queue: QueueKind,
    pub(crate) metadata_only: bool,
    /// What the cache keeps of each object and how it holds it: the library's default unless
    /// a flag says otherwise.
    pub(crate) shape: ObjectShape,
    /// How a packed cache compresses its objects, if it does.
    pub(crate) compression: Option<Compression>,
}

impl Setup {
    /// Defaults: all namespaces, no selectors, streaming list, the in-order queue, the
    /// library's default shape (managedFields dropped, objects exactly sized).
    pub(crate) fn new(resource: ApiResource) -> Self {
        Self {
            resource,
            namespace: None,
            label_selector: None,
            field_selector: None,
            streaming_list: true,
            queue: QueueKind::RealFifo,
            metadata_only: false,
            shape: ObjectShape::default(),
            compression: None,
        }
    }
}

/// An informer for `setup` over `client`, reporting to `metrics`.
pub(crate) fn build<K>(
    client: Client,
    setup: &Setup,
    metrics: Arc<dyn Metrics>,
) -> Result<SharedIndexInformer<K>, CliError>
where
    K: Cached,
{
    let mut source = K::source(client, setup.resource.clone());
    if let Some(ns) = &setup.namespace {
        source = source.with_namespace(ns.clone())?;
    }
    if let Some(labels) = &setup.label_selector {
        source = source.with_label_selector(labels.clone())?;
    }
    if let Some(fields) = &setup.field_selector {
        source = source.with_field_selector(fields.clone())?;
    }
    let mut config = Config::default()
        .with_reflector(ReflectorConfig::default().with_streaming_list(setup.streaming_list))
        .with_name(setup.resource.plural.clone())
        .with_queue(setup.queue)
        .with_metrics(metrics)
        .with_shape(setup.shape.clone());
    if let Some(compression) = setup.compression {
        config = config.with_compression(compression);
    }
    // A ListWatch built here for this informer alone, with no fields chosen: it takes the
    // shape's, whatever they are.
    Ok(SharedIndexInformer::new(source, config)
        .expect("a fresh ListWatch takes the shape's fields"))
}

/// Runs `informer` on its own task; the handle yields its result after `shutdown`.
pub(crate) fn spawn<K>(
    informer: &SharedIndexInformer<K>,
) -> tokio::task::JoinHandle<kinformer::informer::Result<()>>
where
    K: Object + Clone,
{
    let informer = informer.clone();
    tokio::spawn(async move { informer.run().await })
}
