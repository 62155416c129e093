//! [`ControllerConfig`]: a controller's name, how many objects it reconciles at once, and
//! where it reports.

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Duration;

use kinformer_workqueue::{NoQueueMetrics, QueueMetrics};

use crate::metrics::{ControllerMetrics, NoControllerMetrics};

/// How many reconciles run at once by default: a bounded number, so that a backlog after a
/// restart cannot open a request per object at once (controller-runtime's default is 1,
/// kube-rs's unbounded).
pub const DEFAULT_CONCURRENCY: NonZeroUsize = NonZeroUsize::new(4).expect("4 is not zero");

/// How long reconciles under way may finish after a graceful stop, by default (kube-rs and
/// controller-runtime wait for in-flight reconciles too; 30 s is a pod's default grace period,
/// of which this leaves a third for releasing the lease and flushing events).
pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(20);

/// A controller's settings.
///
/// ```
/// use std::num::NonZeroUsize;
/// use kinformer_runtime::ControllerConfig;
///
/// let config = ControllerConfig::default()
///     .with_name("foo-controller")
///     .with_concurrency(NonZeroUsize::new(8).unwrap());
/// assert_eq!(config.name(), "foo-controller");
/// assert_eq!(config.concurrency().get(), 8);
/// ```
#[derive(Debug, Clone)]
pub struct ControllerConfig {
    name: String,
    concurrency: NonZeroUsize,
    drain_timeout: Duration,
    metrics: Arc<dyn ControllerMetrics>,
    queue_metrics: Arc<dyn QueueMetrics>,
}

impl Default for ControllerConfig {
    fn default() -> Self {
        Self {
            name: "controller".to_owned(),
            concurrency: DEFAULT_CONCURRENCY,
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
            metrics: Arc::new(NoControllerMetrics),
            queue_metrics: Arc::new(NoQueueMetrics),
        }
    }
}

impl ControllerConfig {
    /// Sets the controller's name: its work queue's name and its log spans' (default
    /// `controller`).
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The controller's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Sets how many objects are reconciled at once, at most (default
    /// [`DEFAULT_CONCURRENCY`]); one object is never reconciled twice at once.
    #[must_use]
    pub fn with_concurrency(mut self, concurrency: NonZeroUsize) -> Self {
        self.concurrency = concurrency;
        self
    }

    /// How many objects are reconciled at once, at most.
    pub fn concurrency(&self) -> NonZeroUsize {
        self.concurrency
    }

    /// Sets the hooks the controller reports its reconciles to (default: none; feature
    /// `prometheus`: `RuntimeMetrics::for_controller`).
    #[must_use]
    pub fn with_metrics(mut self, metrics: Arc<dyn ControllerMetrics>) -> Self {
        self.metrics = metrics;
        self
    }

    /// The hooks the controller reports its reconciles to.
    pub fn metrics(&self) -> &Arc<dyn ControllerMetrics> {
        &self.metrics
    }

    /// Sets the hooks the controller's work queue reports to (default: none; feature
    /// `prometheus` of `kinformer-workqueue`: `WorkqueueMetrics::for_queue` with the
    /// controller's name).
    #[must_use]
    pub fn with_queue_metrics(mut self, metrics: Arc<dyn QueueMetrics>) -> Self {
        self.queue_metrics = metrics;
        self
    }

    /// The hooks the controller's work queue reports to.
    pub fn queue_metrics(&self) -> &Arc<dyn QueueMetrics> {
        &self.queue_metrics
    }

    /// Sets how long reconciles under way may finish after a graceful stop
    /// ([`Controller::run_until`](crate::Controller::run_until),
    /// [`ResultStream::drain`](crate::ResultStream::drain)) before they are dropped (default
    /// [`DEFAULT_DRAIN_TIMEOUT`]).
    #[must_use]
    pub fn with_drain_timeout(mut self, timeout: Duration) -> Self {
        self.drain_timeout = timeout;
        self
    }

    /// How long reconciles under way may finish after a graceful stop.
    pub fn drain_timeout(&self) -> Duration {
        self.drain_timeout
    }
}
