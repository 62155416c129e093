//! [`InformerMetrics`]: the reflector's counters and each handler's backlog, for a Prometheus
//! registry.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use kinformer_reflector::Metrics;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::{ConstGauge, Gauge};
use prometheus_client::registry::Registry;

use super::Registration;

type Labels = Vec<(String, String)>;

/// Informer metrics labelled by informer `name`, under client-go's reflector names where they
/// exist: `reflector_lists_total`, `reflector_watches_total`, `reflector_short_watches_total`,
/// `reflector_last_resource_version`; and kinformer's own `reflector_relists_total`,
/// `reflector_watch_events_total` and `informer_handler_pending` (notifications waiting in a
/// handler's buffer, labelled `name` and `handler`, read at each scrape).
///
/// # Examples
/// ```
/// use prometheus_client::registry::Registry;
/// use kinformer_informer::InformerMetrics;
///
/// let mut registry = Registry::default();
/// let metrics = InformerMetrics::register(&mut registry);
/// // Pass this to `informer::Config::metrics`; the reflector calls it.
/// let hooks = metrics.for_informer("pods");
/// hooks.list_started(false);
/// hooks.last_resource_version("1234");
///
/// let mut text = String::new();
/// prometheus_client::encoding::text::encode(&mut text, &registry)?;
/// assert!(text.contains(r#"reflector_lists_total{name="pods"} 1"#));
/// assert!(text.contains(r#"reflector_last_resource_version{name="pods"} 1234"#));
/// # Ok::<(), std::fmt::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct InformerMetrics {
    lists: Family<Labels, Counter>,
    relists: Family<Labels, Counter>,
    watches: Family<Labels, Counter>,
    short_watches: Family<Labels, Counter>,
    events: Family<Labels, Counter>,
    last_resource_version: Family<Labels, Gauge>,
    handlers: Arc<HandlerBacklogs>,
}

impl InformerMetrics {
    /// Registers the families in `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let metrics = Self {
            lists: Family::default(),
            relists: Family::default(),
            watches: Family::default(),
            short_watches: Family::default(),
            events: Family::default(),
            last_resource_version: Family::default(),
            handlers: Arc::default(),
        };
        let counters = [
            (
                "reflector_lists",
                "Total number of API lists done by the reflectors",
                &metrics.lists,
            ),
            (
                "reflector_relists",
                "Lists after the first sync (410, too large, errors)",
                &metrics.relists,
            ),
            (
                "reflector_watches",
                "Total number of API watches done by the reflectors",
                &metrics.watches,
            ),
            (
                "reflector_short_watches",
                "Total number of short API watches done by the reflectors",
                &metrics.short_watches,
            ),
            (
                "reflector_watch_events",
                "Watch events and bookmarks accepted by the reflectors",
                &metrics.events,
            ),
        ];
        for (name, help, family) in counters {
            registry.register(name, help, family.clone());
        }
        registry.register(
            "reflector_last_resource_version",
            "Last resource version seen for the reflectors",
            metrics.last_resource_version.clone(),
        );
        registry.register_collector(Box::new(Arc::clone(&metrics.handlers)));
        metrics
    }

    /// The hooks for the informer called `name`; pass them to
    /// [`Config::metrics`](super::Config::metrics).
    pub fn for_informer(&self, name: &str) -> Arc<dyn Metrics> {
        let labels = vec![("name".to_owned(), name.to_owned())];
        Arc::new(ReflectorCounters {
            lists: self.lists.get_or_create(&labels).clone(),
            relists: self.relists.get_or_create(&labels).clone(),
            watches: self.watches.get_or_create(&labels).clone(),
            short_watches: self.short_watches.get_or_create(&labels).clone(),
            events: self.events.get_or_create(&labels).clone(),
            last_resource_version: self.last_resource_version.get_or_create(&labels).clone(),
        })
    }

    /// Reports the backlog of `registration` as `informer_handler_pending{name, handler}` at
    /// each scrape, until the handler is removed.
    pub fn track_handler(&self, informer: &str, handler: &str, registration: &Registration) {
        let labels = vec![
            ("name".to_owned(), informer.to_owned()),
            ("handler".to_owned(), handler.to_owned()),
        ];
        self.handlers
            .tracked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((labels, registration.clone()));
    }
}

struct ReflectorCounters {
    lists: Counter,
    relists: Counter,
    watches: Counter,
    short_watches: Counter,
    events: Counter,
    last_resource_version: Gauge,
}

impl Metrics for ReflectorCounters {
    fn list_started(&self, relist: bool) {
        self.lists.inc();
        if relist {
            self.relists.inc();
        }
    }

    fn watch_started(&self) {
        self.watches.inc();
    }

    fn short_watch(&self) {
        self.short_watches.inc();
    }

    fn event(&self) {
        self.events.inc();
    }

    fn last_resource_version(&self, resource_version: &str) {
        // resourceVersions are opaque; etcd's are integers, and only those make a gauge.
        if let Ok(rv) = resource_version.parse::<i64>() {
            self.last_resource_version.set(rv);
        }
    }
}

/// The registrations whose buffers are reported at each scrape.
#[derive(Default)]
struct HandlerBacklogs {
    tracked: Mutex<Vec<(Labels, Registration)>>,
}

impl fmt::Debug for HandlerBacklogs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tracked = self.tracked.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("HandlerBacklogs")
            .field("tracked", &tracked.len())
            .finish()
    }
}

impl Collector for HandlerBacklogs {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), fmt::Error> {
        let mut tracked = self.tracked.lock().unwrap_or_else(PoisonError::into_inner);
        tracked.retain(|(_, registration)| !registration.is_removed());
        if tracked.is_empty() {
            return Ok(());
        }
        let mut family = encoder.encode_descriptor(
            "informer_handler_pending",
            "Notifications waiting in an event handler's buffer",
            None,
            MetricType::Gauge,
        )?;
        for (labels, registration) in tracked.iter() {
            let pending = i64::try_from(registration.pending()).unwrap_or(i64::MAX);
            ConstGauge::new(pending).encode(family.encode_family(labels)?)?;
        }
        Ok(())
    }
}

#[cfg(all(test, feature = "rest"))]
mod tests {
    use std::time::Duration;

    use k8s_openapi::api::core::v1::Pod;
    use kinformer_listwatch::ListWatch;
    use kinformer_rest::Client;
    use kinformer_sim::{DropMode, Sim};

    use super::*;
    use crate::{Config, HandlerFns, SharedIndexInformer};

    fn scrape(registry: &Registry) -> String {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, registry).unwrap();
        text
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_informer_reports_lists_watches_relists_and_handler_backlog() {
        let sim = Sim::builder().pods(30).seed(4).start().await.unwrap();
        let mut registry = Registry::default();
        let metrics = InformerMetrics::register(&mut registry);
        let source = ListWatch::<Pod, _>::for_type(Client::new(sim.service()));
        let informer = SharedIndexInformer::new(
            source,
            Config::default()
                .name("pods")
                .metrics(metrics.for_informer("pods")),
        );
        let (release, released) = std::sync::mpsc::channel::<()>();
        let released = Mutex::new(released);
        let slow = informer
            .add_event_handler(HandlerFns::new().add_fn(move |_: &Arc<Pod>, _| {
                // 50 ms of blocking work per pod, until the test drops `release`.
                let _ = released
                    .lock()
                    .unwrap()
                    .recv_timeout(Duration::from_millis(50));
            }))
            .unwrap();
        metrics.track_handler("pods", "slow", &slow);
        let runner = tokio::spawn({
            let informer = informer.clone();
            async move { informer.run().await }
        });
        assert!(informer.wait_for_cache_sync().await);
        // The slow handler has most of the initial list in its buffer.
        let text = scrape(&registry);
        let backlog = text
            .lines()
            .find(|l| l.starts_with(r#"informer_handler_pending{name="pods",handler="slow"}"#))
            .and_then(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
            .expect("the handler's backlog is reported");
        assert!(backlog >= 10, "{text}");
        drop(release);
        assert!(
            text.contains(r#"reflector_lists_total{name="pods"} 1"#),
            "{text}"
        );
        // Set just after the cache is replaced, so possibly after the sync is seen.
        let rv = sim.stats().await.revision;
        let expected = format!(r#"reflector_last_resource_version{{name="pods"}} {rv}"#);
        tokio::time::timeout(Duration::from_secs(5), async {
            while !scrape(&registry).contains(&expected) {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await
        .expect("the synced resourceVersion is reported");

        // A 410 on the watch makes the reflector list again: a relist.
        tokio::time::timeout(Duration::from_secs(10), async {
            while sim.stats().await.open_watches == 0 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await
        .unwrap();
        sim.drop_watches(DropMode::Error410).await;
        tokio::time::timeout(Duration::from_secs(20), async {
            while !scrape(&registry).contains(r#"reflector_relists_total{name="pods"} 1"#) {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .expect("the relist is counted");
        let text = scrape(&registry);
        assert!(
            text.contains(r#"reflector_lists_total{name="pods"} 2"#),
            "{text}"
        );
        assert!(
            !text.contains(r#"reflector_watches_total{name="pods"} 0"#),
            "{text}"
        );

        // A removed handler is no longer reported.
        informer.remove_event_handler(&slow);
        assert!(!scrape(&registry).contains("informer_handler_pending"));
        informer.shutdown();
        runner.await.unwrap().unwrap();
    }
}
