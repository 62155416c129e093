//! Building one informer from the factory's options and a resource's own.

use std::sync::Arc;

use kinformer_core::Object;
use kinformer_deltafifo::DeltaQueue;
use kinformer_indexer::Indexer;
use serde::de::DeserializeOwned;

use super::SharedInformerFactory;
use super::config::MetadataTransform;
use super::resource::Parts;
use kinformer_core::Transform;

use crate::{Config, SharedIndexInformer};

impl SharedInformerFactory {
    pub(super) fn build<K, Q>(
        &self,
        name: &str,
        parts: Parts<K>,
        make_queue: impl FnOnce(Arc<Indexer<K>>) -> Q + Send + 'static,
    ) -> SharedIndexInformer<K>
    where
        K: Object + Clone + DeserializeOwned,
        Q: DeltaQueue<K> + Send + Sync + 'static,
    {
        let options = &self.inner.config;
        let resource = &parts.resource;
        let mut source = (parts.source)(&self.inner.client, resource);
        if let Some(ns) = options.namespace() {
            source = source.namespace(ns);
        }
        if let Some(tweak) = options.tweak.clone() {
            source = source.modify(move |o| tweak(o));
        }
        let mut config = Config::default()
            .with_name(resource.plural.clone())
            .with_resync_period(options.resync_for(resource))
            .with_queue(options.queue())
            .with_reflector(options.reflector().clone().with_name(format!(
                "{}/{}",
                resource.api_version(),
                resource.plural
            )))
            .with_shape_and_codec(parts.shape, parts.codec)
            .with_checked_indexes(parts.indexes);
        if let Some(check) = parts.type_check {
            config = config.with_type_check(check);
        }
        if let Some(metrics) = &options.metrics {
            config = config.with_metrics(metrics(name, resource));
        }
        let transform = match (options.transform.clone(), parts.transform) {
            (Some(metadata), Some(own)) => Some(Transform::from_shared(move |obj: Arc<K>| {
                own.apply(metadata_transform(&metadata, obj))
            })),
            (Some(metadata), None) => Some(Transform::from_shared(move |obj: Arc<K>| {
                metadata_transform(&metadata, obj)
            })),
            (None, own) => own,
        };
        if let Some(transform) = transform {
            config = config.with_transform(transform);
        }
        SharedIndexInformer::with_queue(source, config, make_queue)
    }
}

/// Applies the factory's metadata transform to `obj`, copying it only if it is shared.
fn metadata_transform<K: Object + Clone>(transform: &MetadataTransform, mut obj: Arc<K>) -> Arc<K> {
    transform(Arc::make_mut(&mut obj).meta_mut());
    obj
}
