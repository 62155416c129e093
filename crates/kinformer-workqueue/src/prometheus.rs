//! [`WorkqueueMetrics`]: client-go's workqueue metrics, for a Prometheus registry.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use super::QueueItem;
use super::metrics::QueueMetrics;
use super::queue::Queue;

type Labels = Vec<(String, String)>;
type Histograms = Family<Labels, Histogram, fn() -> Histogram>;
type Seconds = Gauge<f64, AtomicU64>;

/// client-go's buckets for queue and work durations: 10 ns to 10 s, by factors of 10.
fn duration_histogram() -> Histogram {
    Histogram::new(exponential_buckets(1e-8, 10.0, 10))
}

/// The metric families of every work queue, labelled by queue name, under client-go's names:
/// `workqueue_depth`, `workqueue_adds_total`, `workqueue_queue_duration_seconds`,
/// `workqueue_work_duration_seconds`, `workqueue_retries_total`,
/// `workqueue_unfinished_work_seconds` and `workqueue_longest_running_processor_seconds`.
///
/// # Examples
/// ```
/// use prometheus_client::registry::Registry;
/// use kinformer_workqueue::{Queue, QueueConfig, WorkqueueMetrics};
///
/// let mut registry = Registry::default();
/// let metrics = WorkqueueMetrics::register(&mut registry);
/// let config = QueueConfig::default()
///     .with_name("pods")
///     .with_metrics(metrics.for_queue("pods"));
/// let queue: Queue<String> = Queue::with_config(config);
/// queue.add("ns/a".into());
/// metrics.observe_unfinished_work("pods", &queue);
///
/// let mut text = String::new();
/// prometheus_client::encoding::text::encode(&mut text, &registry)?;
/// assert!(text.contains(r#"workqueue_adds_total{name="pods"} 1"#));
/// assert!(text.contains(r#"workqueue_depth{name="pods"} 1"#));
/// # Ok::<(), std::fmt::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct WorkqueueMetrics {
    depth: Family<Labels, Gauge>,
    adds: Family<Labels, Counter>,
    queue_duration: Histograms,
    work_duration: Histograms,
    retries: Family<Labels, Counter>,
    unfinished: Family<Labels, Seconds>,
    longest: Family<Labels, Seconds>,
}

impl WorkqueueMetrics {
    /// Registers the families in `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let metrics = Self {
            depth: Family::default(),
            adds: Family::default(),
            queue_duration: Family::new_with_constructor(duration_histogram),
            work_duration: Family::new_with_constructor(duration_histogram),
            retries: Family::default(),
            unfinished: Family::default(),
            longest: Family::default(),
        };
        registry.register(
            "workqueue_depth",
            "Current depth of workqueue",
            metrics.depth.clone(),
        );
        registry.register(
            "workqueue_adds",
            "Total number of adds handled by workqueue",
            metrics.adds.clone(),
        );
        registry.register(
            "workqueue_queue_duration_seconds",
            "How long in seconds an item stays in workqueue before being requested",
            metrics.queue_duration.clone(),
        );
        registry.register(
            "workqueue_work_duration_seconds",
            "How long in seconds processing an item from workqueue takes",
            metrics.work_duration.clone(),
        );
        registry.register(
            "workqueue_retries",
            "Total number of retries handled by workqueue",
            metrics.retries.clone(),
        );
        registry.register(
            "workqueue_unfinished_work_seconds",
            "How many seconds of work has been done that is in progress",
            metrics.unfinished.clone(),
        );
        registry.register(
            "workqueue_longest_running_processor_seconds",
            "How many seconds has the longest running processor for workqueue been running",
            metrics.longest.clone(),
        );
        metrics
    }

    /// The hooks for the queue called `name`; pass them to
    /// [`QueueConfig::metrics`](super::QueueConfig::metrics).
    pub fn for_queue(&self, name: &str) -> Arc<dyn QueueMetrics> {
        let labels = labels(name);
        Arc::new(QueueGauges {
            depth: self.depth.get_or_create(&labels).clone(),
            adds: self.adds.get_or_create(&labels).clone(),
            queue_duration: self.queue_duration.get_or_create(&labels).clone(),
            work_duration: self.work_duration.get_or_create(&labels).clone(),
            retries: self.retries.get_or_create(&labels).clone(),
        })
    }

    /// Sets the unfinished-work gauges of queue `name` from `queue` (call it before a scrape;
    /// client-go refreshes them every 500 ms).
    pub fn observe_unfinished_work<T: QueueItem>(&self, name: &str, queue: &Queue<T>) {
        let labels = labels(name);
        let (total, longest) = queue.unfinished_work();
        self.unfinished
            .get_or_create(&labels)
            .set(total.as_secs_f64());
        self.longest
            .get_or_create(&labels)
            .set(longest.as_secs_f64());
    }
}

fn labels(name: &str) -> Labels {
    vec![("name".to_owned(), name.to_owned())]
}

#[derive(Debug)]
struct QueueGauges {
    depth: Gauge,
    adds: Counter,
    queue_duration: Histogram,
    work_duration: Histogram,
    retries: Counter,
}

impl QueueMetrics for QueueGauges {
    fn added(&self) {
        self.adds.inc();
    }

    fn depth(&self, depth: usize) {
        self.depth.set(i64::try_from(depth).unwrap_or(i64::MAX));
    }

    fn queue_latency(&self, waited: Duration) {
        self.queue_duration.observe(waited.as_secs_f64());
    }

    fn work_duration(&self, worked: Duration) {
        self.work_duration.observe(worked.as_secs_f64());
    }

    fn retry(&self) {
        self.retries.inc();
    }
}
