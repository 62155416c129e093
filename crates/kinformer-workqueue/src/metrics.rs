//! [`QueueMetrics`]: hooks a work queue calls so callers can export client-go's workqueue metrics.

use std::fmt;
use std::time::Duration;

/// Receives a work queue's measurements, one instance per queue.
///
/// The hooks mirror client-go's workqueue metrics: `depth`, `adds_total`, `queue_duration_seconds`,
/// `work_duration_seconds` and `retries_total`. `unfinished_work_seconds` and
/// `longest_running_processor_seconds` are read on demand with
/// [`Queue::unfinished_work`](super::Queue::unfinished_work) (at scrape time) instead of being
/// refreshed by a timer.
///
/// Every method has a no-op default. Hooks are called while the queue's lock is held: keep them
/// cheap (increment an atomic, observe a histogram) and never call back into the queue.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use kinformer_workqueue::{Queue, QueueConfig, QueueMetrics};
///
/// #[derive(Debug, Default)]
/// struct Adds(AtomicUsize);
///
/// impl QueueMetrics for Adds {
///     fn added(&self) {
///         self.0.fetch_add(1, Ordering::Relaxed);
///     }
/// }
///
/// let adds = Arc::new(Adds::default());
/// let queue = Queue::with_config(QueueConfig::default().with_metrics(adds.clone()));
/// queue.add(1);
/// queue.add(1);
/// assert_eq!(adds.0.load(Ordering::Relaxed), 1);
/// ```
pub trait QueueMetrics: fmt::Debug + Send + Sync {
    /// An item entered the ready queue (`adds_total`).
    fn added(&self) {}

    /// The number of items ready to be handed out changed (`depth`).
    fn depth(&self, _depth: usize) {}

    /// An item was handed out after waiting `waited` in the ready queue (`queue_duration_seconds`).
    fn queue_latency(&self, _waited: Duration) {}

    /// A worker finished an item it held for `worked` (`work_duration_seconds`).
    fn work_duration(&self, _worked: Duration) {}

    /// An item was re-added with a delay (`retries_total`).
    fn retry(&self) {}
}

/// Metrics that go nowhere: the default.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoQueueMetrics;

impl QueueMetrics for NoQueueMetrics {}
