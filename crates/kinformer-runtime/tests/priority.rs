//! After a restart, a user's edit is reconciled before the backlog of unchanged objects the
//! initial list brought (which is queued at low priority).

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_core::StoreRead as _;
use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
use kinformer_rest::Client;
use kinformer_runtime::{Action, Controller, ControllerConfig};
use kinformer_sim::{ObjectOp, OpKind, Sim};
use serde_json::json;
use tokio::sync::Semaphore;

#[derive(Debug, thiserror::Error)]
#[error("never")]
struct Never;

struct Ctx {
    /// One permit per reconcile the test lets through.
    gate: Semaphore,
    order: Mutex<Vec<String>>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_goes_before_the_restart_backlog() {
    const BACKLOG: usize = 50;
    let sim = Sim::builder().start().await.unwrap();
    for i in 0..BACKLOG {
        let cm = json!({"metadata": {"name": format!("cm-{i:02}"), "namespace": "default"}, "data": {"v": "0"}});
        sim.apply(ObjectOp::new(OpKind::Create, "configmaps", cm))
            .await
            .unwrap();
    }
    let factory = SharedInformerFactory::new(Client::new(sim.service()), FactoryConfig::default());
    let informer = factory.informer_for::<ConfigMap>();
    let config = ControllerConfig::default()
        .with_name("priority")
        .with_concurrency(NonZeroUsize::MIN);
    let controller = Controller::for_type(informer.clone(), config);
    factory.start();
    let ctx = Arc::new(Ctx {
        gate: Semaphore::new(0),
        order: Mutex::default(),
    });
    let reconcile = |cm: Arc<ConfigMap>, ctx: Arc<Ctx>| async move {
        ctx.gate.acquire().await.expect("never closed").forget();
        let name = cm.metadata.name.clone().unwrap_or_default();
        ctx.order.lock().unwrap().push(name);
        Ok::<_, Never>(Action::await_change())
    };
    let mut results = controller.stream(reconcile, |_, _, _| Action::backoff(), Arc::clone(&ctx));

    // The backlog is queued (the one worker waits at the gate); now the user edits the last one.
    informer.wait_for_cache_sync().await.unwrap();
    let edited =
        json!({"metadata": {"name": "cm-49", "namespace": "default"}, "data": {"v": "edited"}});
    sim.apply(ObjectOp::new(OpKind::Update, "configmaps", edited))
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(20), async {
        while informer
            .indexer()
            .get_by_key("default/cm-49")
            .unwrap()
            .data
            .as_ref()
            .unwrap()["v"]
            != "edited"
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap();
    // The controller's handler queues from its own buffer, just after the cache.
    tokio::time::sleep(Duration::from_millis(200)).await;

    ctx.gate.add_permits(BACKLOG);
    for _ in 0..BACKLOG {
        tokio::time::timeout(Duration::from_secs(20), results.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
    }
    let order = ctx.order.lock().unwrap().clone();
    let at = order.iter().position(|n| n == "cm-49").unwrap();
    // The worker had taken one listed object before the edit arrived; the edit is next.
    assert!(
        at <= 1,
        "the edit waited behind {at} unchanged objects: {order:?}"
    );
    assert_eq!(
        order.len(),
        BACKLOG,
        "the edit raised its listed entry: no second reconcile"
    );
    drop(results);
    factory.shutdown().await;
}
