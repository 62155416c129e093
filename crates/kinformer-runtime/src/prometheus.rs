//! [`RuntimeMetrics`]: controller-runtime's controller metrics, for a Prometheus registry.

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::metrics::{ControllerMetrics, ReconcileResult};

type Labels = Vec<(String, String)>;
type Histograms = Family<Labels, Histogram, fn() -> Histogram>;

/// controller-runtime's buckets for `reconcile_time_seconds`: 5 ms to 60 s.
const RECONCILE_BUCKETS: [f64; 40] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
    1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 15.0, 20.0,
    25.0, 30.0, 40.0, 50.0, 60.0,
];

fn reconcile_histogram() -> Histogram {
    Histogram::new(RECONCILE_BUCKETS)
}

/// The metric families of every controller, labelled by controller name, under
/// controller-runtime's names: `controller_runtime_reconcile_total{controller,result}`,
/// `controller_runtime_reconcile_errors_total`, `controller_runtime_reconcile_time_seconds`,
/// `controller_runtime_max_concurrent_reconciles` and `controller_runtime_active_workers`.
///
/// # Examples
/// ```
/// use kinformer_runtime::{ControllerConfig, ReconcileResult, RuntimeMetrics};
/// use prometheus_client::registry::Registry;
///
/// let mut registry = Registry::default();
/// let metrics = RuntimeMetrics::register(&mut registry);
/// let config = ControllerConfig::default()
///     .with_name("foo")
///     .with_metrics(metrics.for_controller("foo"));
/// config.metrics().reconcile_finished(ReconcileResult::Success, std::time::Duration::ZERO);
///
/// let mut text = String::new();
/// prometheus_client::encoding::text::encode(&mut text, &registry)?;
/// assert!(text.contains(r#"controller_runtime_reconcile_total{controller="foo",result="success"} 1"#));
/// # Ok::<(), std::fmt::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct RuntimeMetrics {
    total: Family<Labels, Counter>,
    errors: Family<Labels, Counter>,
    time: Histograms,
    max_concurrent: Family<Labels, Gauge>,
    active: Family<Labels, Gauge>,
}

impl RuntimeMetrics {
    /// Registers the families in `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let metrics = Self {
            total: Family::default(),
            errors: Family::default(),
            time: Family::new_with_constructor(reconcile_histogram),
            max_concurrent: Family::default(),
            active: Family::default(),
        };
        registry.register(
            "controller_runtime_reconcile",
            "Total number of reconciliations per controller",
            metrics.total.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_errors",
            "Total number of reconciliation errors per controller",
            metrics.errors.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_time_seconds",
            "Length of time per reconciliation per controller",
            metrics.time.clone(),
        );
        registry.register(
            "controller_runtime_max_concurrent_reconciles",
            "Maximum number of concurrent reconciles per controller",
            metrics.max_concurrent.clone(),
        );
        registry.register(
            "controller_runtime_active_workers",
            "Number of currently used workers per controller",
            metrics.active.clone(),
        );
        metrics
    }

    /// The hooks for the controller called `name`; pass them to
    /// [`ControllerConfig::with_metrics`](crate::ControllerConfig::with_metrics).
    pub fn for_controller(&self, name: &str) -> Arc<dyn ControllerMetrics> {
        let labels = vec![("controller".to_owned(), name.to_owned())];
        let mut by_result = Vec::new();
        for result in [
            ReconcileResult::Success,
            ReconcileResult::RequeueAfter,
            ReconcileResult::Requeue,
            ReconcileResult::Error,
        ] {
            let mut with_result = labels.clone();
            with_result.push(("result".to_owned(), result.as_str().to_owned()));
            by_result.push((result, self.total.get_or_create(&with_result).clone()));
        }
        Arc::new(ControllerGauges {
            by_result,
            errors: self.errors.get_or_create(&labels).clone(),
            time: self.time.get_or_create(&labels).clone(),
            max_concurrent: self.max_concurrent.get_or_create(&labels).clone(),
            active: self.active.get_or_create(&labels).clone(),
        })
    }
}

/// One controller's series.
#[derive(Debug)]
struct ControllerGauges {
    by_result: Vec<(ReconcileResult, Counter)>,
    errors: Counter,
    time: Histogram,
    max_concurrent: Gauge,
    active: Gauge,
}

impl ControllerMetrics for ControllerGauges {
    fn started(&self, workers: usize) {
        self.max_concurrent
            .set(i64::try_from(workers).unwrap_or(i64::MAX));
    }

    fn reconcile_started(&self) {
        self.active.inc();
    }

    fn reconcile_finished(&self, result: ReconcileResult, took: Duration) {
        self.active.dec();
        if let Some((_, counter)) = self.by_result.iter().find(|(r, _)| *r == result) {
            counter.inc();
        }
        if result == ReconcileResult::Error {
            self.errors.inc();
        }
        self.time.observe(took.as_secs_f64());
    }
}
