//! Building one informer from the factory's options and a resource's own.

use std::sync::Arc;

use kinformer_core::{ApiResource, Object, Transform};
use kinformer_deltafifo::DeltaQueue;
use kinformer_indexer::Indexer;
use serde::de::DeserializeOwned;

use super::SharedInformerFactory;
use super::config::MetadataTransform;
use super::resource::SourceFn;

use crate::{Config, SharedIndexInformer};

impl SharedInformerFactory {
    /// The informer of `resource` from `source` and its own `config`, completed with the
    /// factory's options (its name, resync period, queue, reflector, metrics, namespace, list
    /// tweak and metadata transform).
    pub(super) fn build<K, Q>(
        &self,
        name: &str,
        (resource, source, config): (ApiResource, SourceFn<K>, Config<K>),
        make_queue: impl FnOnce(Arc<Indexer<K>>) -> Q + Send + 'static,
    ) -> SharedIndexInformer<K>
    where
        K: Object + Clone + DeserializeOwned,
        Q: DeltaQueue<K> + Send + Sync + 'static,
    {
        let options = &self.inner.config;
        let mut source = source(&self.inner.client, &resource);
        if let Some(ns) = options.namespace() {
            // FactoryConfig::with_namespace took only a DNS-1123 label, as ListWatch does.
            source = source
                .with_namespace(ns)
                .expect("the factory's namespace was checked when it was set");
        }
        if let Some(tweak) = options.tweak.clone() {
            source = source.with_options_modifier(move |o| tweak(o));
        }
        let reflector = options.reflector().clone();
        let mut config = config
            .with_name(resource.plural.clone())
            .with_resync_period(options.resync_for(&resource))
            .with_queue(options.queue())
            .with_reflector(reflector.with_name(format!(
                "{}/{}",
                resource.api_version(),
                resource.plural
            )));
        if let Some(metrics) = &options.metrics {
            config = config.with_metrics(metrics(name, &resource));
        }
        if let Some(metadata) = options.transform.clone() {
            let transform = match config.transform().cloned() {
                Some(own) => Transform::from_shared(move |obj: Arc<K>| {
                    own.apply(metadata_transform(&metadata, obj))
                }),
                None => {
                    Transform::from_shared(move |obj: Arc<K>| metadata_transform(&metadata, obj))
                }
            };
            config = config.with_transform(transform);
        }
        // The factory built this ListWatch for this informer alone and chose no fields for it:
        // it takes the shape's, whatever they are.
        SharedIndexInformer::with_queue(source, config, make_queue)
            .expect("a ListWatch of the factory's own takes the shape's fields")
    }
}

/// Applies the factory's metadata transform to `obj`, copying it only if it is shared.
fn metadata_transform<K: Object + Clone>(transform: &MetadataTransform, mut obj: Arc<K>) -> Arc<K> {
    transform(Arc::make_mut(&mut obj).meta_mut());
    obj
}
