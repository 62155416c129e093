//! Stopping a controller: dropping its stream drops the reconciles under way (a replica that
//! lost its leadership must not write on), a drain lets them finish, and `run_until` drains
//! when its stop future completes.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
use kinformer_rest::Client;
use kinformer_runtime::{Action, Controller, ControllerConfig};
use kinformer_sim::Sim;
use tokio::sync::Notify;

#[derive(Debug, thiserror::Error)]
#[error("never")]
struct Never;

/// Counts its drops: a reconcile future dropped midway drops it.
struct Dropped(Arc<AtomicUsize>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

struct Ctx {
    entered: Notify,
    dropped: Arc<AtomicUsize>,
    finished: AtomicBool,
    hold: Duration,
}

async fn controller(
    sim: &kinformer_sim::SimHandle,
) -> (SharedInformerFactory, Controller<ConfigMap>) {
    let factory = SharedInformerFactory::new(Client::new(sim.service()), FactoryConfig::default());
    let controller = Controller::for_type(
        factory.informer_for::<ConfigMap>(),
        ControllerConfig::default().with_drain_timeout(Duration::from_secs(10)),
    );
    factory.start();
    (factory, controller)
}

async fn reconcile(_: Arc<ConfigMap>, ctx: Arc<Ctx>) -> Result<Action, Never> {
    let _guard = Dropped(ctx.dropped.clone());
    ctx.entered.notify_one();
    tokio::time::sleep(ctx.hold).await;
    ctx.finished.store(true, Ordering::SeqCst);
    Ok(Action::await_change())
}

fn ctx(hold: Duration) -> Arc<Ctx> {
    Arc::new(Ctx {
        entered: Notify::new(),
        dropped: Arc::default(),
        finished: AtomicBool::new(false),
        hold,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_stream_drops_reconciles_under_way() {
    let sim = Sim::builder().configmaps(1).start().await.unwrap();
    let (factory, controller) = controller(&sim).await;
    let ctx = ctx(Duration::from_secs(3600));
    let results = controller.stream(reconcile, |_, _, _| Action::backoff(), ctx.clone());
    ctx.entered.notified().await;
    drop(results);
    tokio::time::timeout(Duration::from_secs(10), async {
        while ctx.dropped.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("the reconcile was dropped");
    assert!(!ctx.finished.load(Ordering::SeqCst));
    factory.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drain_lets_reconciles_under_way_finish() {
    let sim = Sim::builder().configmaps(1).start().await.unwrap();
    let (factory, controller) = controller(&sim).await;
    let ctx = ctx(Duration::from_millis(200));
    let results = controller.stream(reconcile, |_, _, _| Action::backoff(), ctx.clone());
    ctx.entered.notified().await;
    results.drain(Duration::from_secs(10)).await;
    assert!(ctx.finished.load(Ordering::SeqCst));
    factory.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_until_drains_when_told_to_stop() {
    let sim = Sim::builder().configmaps(1).start().await.unwrap();
    let (factory, controller) = controller(&sim).await;
    let ctx = ctx(Duration::from_millis(200));
    let stop = Arc::new(Notify::new());
    let running = tokio::spawn({
        let (ctx, stop) = (ctx.clone(), stop.clone());
        async move {
            let stopped = async move { stop.notified().await };
            controller
                .run_until(reconcile, |_, _, _| Action::backoff(), ctx, stopped)
                .await;
        }
    });
    ctx.entered.notified().await;
    stop.notify_one();
    tokio::time::timeout(Duration::from_secs(10), running)
        .await
        .unwrap()
        .unwrap();
    assert!(ctx.finished.load(Ordering::SeqCst));
    factory.shutdown().await;
}
