//! controller-runtime's metrics for a controller run against the simulator, and the work
//! queue's under the controller's name.

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
use kinformer_rest::Client;
use kinformer_runtime::{Action, Controller, ControllerConfig, RuntimeMetrics};
use kinformer_sim::Sim;
use kinformer_workqueue::WorkqueueMetrics;
use prometheus_client::registry::Registry;

#[derive(Debug, thiserror::Error)]
#[error("once")]
struct Once;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconciles_are_counted_by_result() {
    let sim = Sim::builder().configmaps(3).seed(5).start().await.unwrap();
    let mut registry = Registry::default();
    let metrics = RuntimeMetrics::register(&mut registry);
    let queue_metrics = WorkqueueMetrics::register(&mut registry);
    let config = ControllerConfig::default()
        .with_name("cms")
        .with_concurrency(NonZeroUsize::new(2).unwrap())
        .with_metrics(metrics.for_controller("cms"))
        .with_queue_metrics(queue_metrics.for_queue("cms"));
    let factory = SharedInformerFactory::new(Client::new(sim.service()), FactoryConfig::default());
    let controller = Controller::for_type(factory.informer_for::<ConfigMap>(), config);
    factory.start();
    let failures = Arc::new(AtomicUsize::new(0));
    // The first reconcile fails; every other succeeds.
    let reconcile = |_: Arc<ConfigMap>, failures: Arc<AtomicUsize>| async move {
        if failures.fetch_add(1, Ordering::SeqCst) == 0 {
            Err(Once)
        } else {
            Ok(Action::await_change())
        }
    };
    let mut results = controller.stream(reconcile, |_, _, _| Action::backoff(), failures);
    for _ in 0..4 {
        tokio::time::timeout(Duration::from_secs(20), results.next())
            .await
            .unwrap()
            .unwrap()
            .ok();
    }
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    for line in [
        r#"controller_runtime_reconcile_total{controller="cms",result="success"} 3"#,
        r#"controller_runtime_reconcile_total{controller="cms",result="error"} 1"#,
        r#"controller_runtime_reconcile_errors_total{controller="cms"} 1"#,
        r#"controller_runtime_reconcile_time_seconds_count{controller="cms"} 4"#,
        r#"controller_runtime_max_concurrent_reconciles{controller="cms"} 2"#,
        r#"controller_runtime_active_workers{controller="cms"} 0"#,
        r#"workqueue_retries_total{name="cms"} 1"#,
    ] {
        assert!(text.contains(line), "{line} missing in\n{text}");
    }
    drop(results);
    factory.shutdown().await;
}
