//! The reflector pipeline: a reflector writing through the informer's transforms into a delta
//! queue, and the informer loop popping from it.

use std::sync::Arc;

use kinformer_core::{ListerWatcher, Object};
use kinformer_deltafifo::DeltaQueue;
use kinformer_indexer::Indexer;
use kinformer_reflector::{Config as ReflectorConfig, Reflector, TypeCheck};
use tokio::sync::Notify;
use tokio::time::Instant;
use tracing::Instrument;

use super::inner::{Pipeline, RunParts};
use super::metrics::Metrics;
use super::run::run_loop;
use super::transform::TransformingStore;

/// A pipeline listing and watching `source` into the queue `make_queue` builds over the
/// informer's cache (the queue's known objects).
///
/// The reflector's resync period is the informer's check period at start (after handlers added
/// before start lowered it); each tick resyncs only if some handler is due.
pub(crate) fn reflector_pipeline<K, L, Q>(
    source: L,
    reflector_config: ReflectorConfig,
    type_check: Option<TypeCheck<K>>,
    metrics: Option<Arc<dyn Metrics>>,
    exact_copy: bool,
    make_queue: impl FnOnce(Arc<Indexer<K>>) -> Q + Send + 'static,
) -> Pipeline<K>
where
    K: Object + Clone,
    L: ListerWatcher<K> + 'static,
    Q: DeltaQueue<K> + Send + Sync + 'static,
{
    Box::new(move |parts: RunParts<K>| {
        let span = tracing::info_span!("informer", name = %reflector_config.name());
        Box::pin(
            async move {
                let RunParts {
                    inner,
                    transform,
                    watch_error_handler,
                    stop,
                } = parts;
                let queue = Arc::new(make_queue(Arc::clone(&inner.indexer)));
                let written = Arc::new(Notify::new());
                let store = TransformingStore::new(
                    Arc::clone(&queue),
                    transform,
                    exact_copy,
                    Arc::clone(&written),
                )
                .reusing(Arc::clone(&inner.indexer));
                let config = reflector_config.with_resync_period(inner.processor.check_period());
                // Weak: the reflector must not keep the informer alive.
                let resync_target = Arc::downgrade(&inner);
                let mut reflector =
                    Reflector::new(source, store, config).should_resync(move || {
                        resync_target
                            .upgrade()
                            .is_some_and(|inner| inner.processor.should_resync(Instant::now()))
                    });
                if let Some(handler) = watch_error_handler {
                    reflector = reflector.watch_error_handler(move |error| handler(error));
                }
                if let Some(check) = type_check {
                    reflector = reflector.type_check(check);
                }
                if let Some(metrics) = &metrics {
                    let hooks: Arc<dyn kinformer_reflector::ReflectorMetrics> =
                        Arc::clone(metrics) as _;
                    reflector = reflector.metrics(hooks);
                }
                let rv = reflector.resource_version_handle();
                inner.set_resource_version_source(Box::new(move || rv.get()));
                let mut reflector_stop = stop.clone();
                let reflector = Box::pin(reflector.run_until(async move {
                    // An error means the informer is gone: stop as well.
                    drop(reflector_stop.wait_for(|stop| *stop).await);
                }));
                run_loop(inner, queue, written, reflector, stop, metrics).await;
            }
            .instrument(span),
        )
    })
}

#[cfg(test)]
mod tests;
