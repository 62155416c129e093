//! [`ControllerMetrics`]: hooks a controller calls around its reconciles, for any metrics
//! system (with feature `prometheus`, `RuntimeMetrics` records them
//! under controller-runtime's names).

use std::fmt;
use std::time::Duration;

/// How a reconcile ended, as controller-runtime's `result` label names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReconcileResult {
    /// It succeeded and waits for a change (`success`).
    Success,
    /// It succeeded and asked to come back after a delay (`requeue_after`).
    RequeueAfter,
    /// It asked to come back after the backoff (`requeue`).
    Requeue,
    /// It failed (`error`).
    Error,
}

impl ReconcileResult {
    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::RequeueAfter => "requeue_after",
            Self::Requeue => "requeue",
            Self::Error => "error",
        }
    }
}

/// What a controller reports; every hook does nothing by default.
pub trait ControllerMetrics: fmt::Debug + Send + Sync {
    /// The controller starts `workers` workers (`max_concurrent_reconciles`).
    fn started(&self, _workers: usize) {}

    /// A worker began a reconcile (`active_workers` up).
    fn reconcile_started(&self) {}

    /// A reconcile ended after `took` (`reconcile_total`, `reconcile_errors_total`,
    /// `reconcile_time_seconds`, `active_workers` down).
    fn reconcile_finished(&self, _result: ReconcileResult, _took: Duration) {}
}

/// Metrics that go nowhere: the default.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoControllerMetrics;

impl ControllerMetrics for NoControllerMetrics {}
