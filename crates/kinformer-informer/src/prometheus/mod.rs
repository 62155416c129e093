//! [`InformerMetrics`]: an informer's and its reflector's metrics, for a Prometheus registry,
//! under client-go's names.

use std::sync::Arc;

use kinformer_core::ApiResource;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use super::{Metrics, Registration};
use handlers::Handlers;
use hooks::{Hooks, Labels, seconds_histogram};

mod handlers;
mod hooks;

/// client-go's buckets for `reflector_list_duration_seconds`.
const LIST_BUCKETS: [f64; 21] = [
    0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 15.0, 20.0,
    30.0, 45.0, 60.0,
];
/// client-go's buckets for `reflector_watch_duration_seconds`.
const WATCH_BUCKETS: [f64; 13] = [
    0.05, 0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0,
];
/// client-go's buckets for `informer_processing_latency_seconds`.
const PROCESSING_BUCKETS: [f64; 12] = [
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];
/// client-go's buckets for `informer_event_process_duration_seconds`.
const HANDLER_BUCKETS: [f64; 11] = [
    0.001, 0.002, 0.003, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
];

/// Informer and reflector metrics under client-go 1.36's names (component-base's `reflector`,
/// `fifo` and `listener` providers), with their labels:
///
/// | metric | labels |
/// | --- | --- |
/// | `reflector_lists_total`, `reflector_list_duration_seconds`, `reflector_listed_items`, `reflector_watches_total`, `reflector_short_watches_total`, `reflector_watch_duration_seconds`, `reflector_watched_objects`, `reflector_last_resource_version` | `name`, `resource_type` |
/// | `informer_queued_items`, `informer_processing_latency_seconds`, `informer_store_resource_version` (its 15 least significant digits) | `name`, `group`, `version`, `resource` |
/// | `informer_pending_notifications`, `informer_event_process_duration_seconds` | the same and `handler` |
///
/// kinformer adds `reflector_relists_total` and `reflector_watch_events_total` (same labels as
/// the reflector's), `informer_store_items` (objects in the cache) and
/// `informer_decode_failures_total` (handler calls replaced by a decode error, see
/// [`EventHandler::on_decode_error`](crate::EventHandler::on_decode_error)), with the
/// informer's labels.
///
/// # Examples
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_core::ApiResource;
/// use kinformer_informer::InformerMetrics;
/// use prometheus_client::registry::Registry;
///
/// let mut registry = Registry::default();
/// let metrics = InformerMetrics::register(&mut registry);
/// // Pass this to `Config::metrics`; the informer and its reflector call it.
/// let hooks = metrics.for_informer("pods", &ApiResource::of::<Pod>());
/// hooks.list_started(false);
/// hooks.last_resource_version("1234");
///
/// let mut text = String::new();
/// prometheus_client::encoding::text::encode(&mut text, &registry)?;
/// assert!(text.contains(r#"reflector_lists_total{name="pods",resource_type="Pod"} 1"#));
/// assert!(text.contains(r#"reflector_last_resource_version{name="pods",resource_type="Pod"} 1234"#));
/// # Ok::<(), std::fmt::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct InformerMetrics {
    lists: Family<Labels, Counter>,
    relists: Family<Labels, Counter>,
    list_duration: Family<Labels, Histogram, fn() -> Histogram>,
    listed_items: Family<Labels, Gauge>,
    watches: Family<Labels, Counter>,
    short_watches: Family<Labels, Counter>,
    watch_duration: Family<Labels, Histogram, fn() -> Histogram>,
    watched_objects: Family<Labels, Gauge>,
    events: Family<Labels, Counter>,
    last_resource_version: Family<Labels, Gauge>,
    queued_items: Family<Labels, Gauge>,
    processing_latency: Family<Labels, Histogram, fn() -> Histogram>,
    store_resource_version: Family<Labels, Gauge>,
    store_items: Family<Labels, Gauge>,
    decode_failures: Family<Labels, Counter>,
    handlers: Arc<Handlers>,
}

impl InformerMetrics {
    /// Registers the families in `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let metrics = Self {
            lists: Family::default(),
            relists: Family::default(),
            list_duration: Family::new_with_constructor(|| seconds_histogram(&LIST_BUCKETS)),
            listed_items: Family::default(),
            watches: Family::default(),
            short_watches: Family::default(),
            watch_duration: Family::new_with_constructor(|| seconds_histogram(&WATCH_BUCKETS)),
            watched_objects: Family::default(),
            events: Family::default(),
            last_resource_version: Family::default(),
            queued_items: Family::default(),
            processing_latency: Family::new_with_constructor(|| {
                seconds_histogram(&PROCESSING_BUCKETS)
            }),
            store_resource_version: Family::default(),
            store_items: Family::default(),
            decode_failures: Family::default(),
            handlers: Arc::new(Handlers::new(|| seconds_histogram(&HANDLER_BUCKETS))),
        };
        let m = &metrics;
        let r = registry;
        r.register(
            "reflector_lists",
            "Total number of API lists done by the reflectors",
            m.lists.clone(),
        );
        r.register(
            "reflector_relists",
            "Lists after the first sync (410, too large, errors)",
            m.relists.clone(),
        );
        r.register(
            "reflector_list_duration_seconds",
            "How long an API list takes to return and decode for the reflectors",
            m.list_duration.clone(),
        );
        r.register(
            "reflector_listed_items",
            "Number of items returned by an API list for the reflectors",
            m.listed_items.clone(),
        );
        r.register(
            "reflector_watches",
            "Total number of API watches done by the reflectors",
            m.watches.clone(),
        );
        r.register(
            "reflector_short_watches",
            "Total number of short API watches done by the reflectors",
            m.short_watches.clone(),
        );
        r.register(
            "reflector_watch_duration_seconds",
            "How long an API watch takes to return and decode for the reflectors",
            m.watch_duration.clone(),
        );
        r.register(
            "reflector_watched_objects",
            "Number of items returned by an API watch for the reflectors",
            m.watched_objects.clone(),
        );
        r.register(
            "reflector_watch_events",
            "Watch events and bookmarks accepted by the reflectors",
            m.events.clone(),
        );
        r.register(
            "reflector_last_resource_version",
            "Last resource version seen by the reflector",
            m.last_resource_version.clone(),
        );
        r.register(
            "informer_queued_items",
            "Number of items currently queued in the FIFO",
            m.queued_items.clone(),
        );
        r.register(
            "informer_processing_latency_seconds",
            "Time taken to process events after popping from the queue",
            m.processing_latency.clone(),
        );
        r.register(
            "informer_store_resource_version",
            "The 15 least significant digits of the resource version of the store",
            m.store_resource_version.clone(),
        );
        r.register(
            "informer_store_items",
            "Number of objects in the informer's cache",
            m.store_items.clone(),
        );
        r.register(
            "informer_decode_failures",
            "Handler calls replaced by a decode error: a compact cache's object failed to decode",
            m.decode_failures.clone(),
        );
        r.register_collector(Box::new(Arc::clone(&m.handlers)));
        metrics
    }

    /// The hooks of the informer called `name`, over `resource`; pass them to
    /// [`Config::metrics`](super::Config::metrics).
    pub fn for_informer(&self, name: &str, resource: &ApiResource) -> Arc<dyn Metrics> {
        let reflector = reflector_labels(name, resource);
        let informer = informer_labels(name, resource);
        Arc::new(Hooks {
            lists: self.lists.get_or_create(&reflector).clone(),
            relists: self.relists.get_or_create(&reflector).clone(),
            list_duration: self.list_duration.get_or_create(&reflector).clone(),
            listed_items: self.listed_items.get_or_create(&reflector).clone(),
            watches: self.watches.get_or_create(&reflector).clone(),
            short_watches: self.short_watches.get_or_create(&reflector).clone(),
            watch_duration: self.watch_duration.get_or_create(&reflector).clone(),
            watched_objects: self.watched_objects.get_or_create(&reflector).clone(),
            events: self.events.get_or_create(&reflector).clone(),
            last_resource_version: self.last_resource_version.get_or_create(&reflector).clone(),
            queued_items: self.queued_items.get_or_create(&informer).clone(),
            processing_latency: self.processing_latency.get_or_create(&informer).clone(),
            store_resource_version: self.store_resource_version.get_or_create(&informer).clone(),
            store_items: self.store_items.get_or_create(&informer).clone(),
            decode_failures: self.decode_failures.get_or_create(&informer).clone(),
        })
    }

    /// Reports the handler of `registration`, added to the informer called `informer` over
    /// `resource`, as `handler`: its backlog (`informer_pending_notifications`, read at each
    /// scrape) and the duration of each of its calls from now on
    /// (`informer_event_process_duration_seconds`), until it is removed.
    pub fn track_handler(
        &self,
        informer: &str,
        resource: &ApiResource,
        handler: &str,
        registration: &Registration,
    ) {
        let mut labels = informer_labels(informer, resource);
        labels.push(("handler".to_owned(), handler.to_owned()));
        self.handlers.track(labels, registration);
    }
}

fn reflector_labels(name: &str, resource: &ApiResource) -> Labels {
    vec![
        ("name".to_owned(), name.to_owned()),
        ("resource_type".to_owned(), resource.kind.clone()),
    ]
}

fn informer_labels(name: &str, resource: &ApiResource) -> Labels {
    vec![
        ("name".to_owned(), name.to_owned()),
        ("group".to_owned(), resource.group.clone()),
        ("version".to_owned(), resource.version.clone()),
        ("resource".to_owned(), resource.plural.clone()),
    ]
}
