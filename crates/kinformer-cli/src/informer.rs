//! Building an informer for the `watch` and `mirror` commands.

use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use kinformer::informer::{Config, Metrics, QueueKind, SharedIndexInformer};
use kinformer_core::{ApiResource, DynamicObject, Object, PartialObjectMetadata};
use kinformer_listwatch::ListWatch;
use kinformer_reflector::Config as ReflectorConfig;
use kinformer_rest::{Client, RestClient};
use serde::Serialize;
use serde::de::DeserializeOwned;

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
    pub(crate) keep_managed_fields: bool,
    pub(crate) metadata_only: bool,
    pub(crate) compact: bool,
}

impl Setup {
    /// Defaults: all namespaces, no selectors, streaming list, the in-order queue, managedFields
    /// dropped.
    pub(crate) fn new(resource: ApiResource) -> Self {
        Self {
            resource,
            namespace: None,
            label_selector: None,
            field_selector: None,
            streaming_list: true,
            queue: QueueKind::RealFifo,
            keep_managed_fields: false,
            metadata_only: false,
            compact: false,
        }
    }
}

/// An informer for `setup` over `client`, reporting to `metrics`.
pub(crate) fn build<K>(
    client: Client,
    setup: &Setup,
    metrics: Arc<dyn Metrics>,
) -> SharedIndexInformer<K>
where
    K: Cached,
{
    let mut source = K::source(client, setup.resource.clone());
    if let Some(ns) = &setup.namespace {
        source = source.namespace(ns.clone());
    }
    if let Some(labels) = &setup.label_selector {
        source = source.labels(labels.clone());
    }
    if let Some(fields) = &setup.field_selector {
        source = source.fields(fields.clone());
    }
    // The reflector options first: `name` also names the reflector.
    let mut config = Config::default()
        .reflector(ReflectorConfig::default().streaming_list(setup.streaming_list))
        .name(setup.resource.plural.clone())
        .queue(setup.queue)
        .metrics(metrics);
    if setup.compact {
        config = config.compact();
    }
    if setup.keep_managed_fields {
        SharedIndexInformer::new(source.with_managed_fields(), config)
    } else {
        SharedIndexInformer::new(source, config)
    }
}

/// Runs `informer` on its own task; the handle yields its result after `shutdown`.
pub(crate) fn spawn<K>(
    informer: &SharedIndexInformer<K>,
) -> tokio::task::JoinHandle<kinformer::Result<()>>
where
    K: Object + Clone,
{
    let informer = informer.clone();
    tokio::spawn(async move { informer.run().await })
}
