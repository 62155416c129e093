//! A replica standing by for leadership is ready once its caches synced, as the leader is:
//! a rolling update waits for the new replica's readiness before it stops the old leader,
//! and the new replica cannot lead before then. Shutdown makes a replica not ready first.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
use kinformer_leaderelection::{Config, RestLeaseLock};
use kinformer_rest::Client;
use kinformer_runtime::{Action, Controller, ControllerConfig, Health, LeaderElected};
use kinformer_sim::{Sim, wait_until};
use tokio::sync::oneshot;

#[derive(Debug, thiserror::Error)]
#[error("never")]
struct Never;

/// Starts a replica named `identity`; its readiness, and the sender that shuts it down.
fn replica(
    client: &Client,
    identity: &'static str,
) -> (Health, oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    let factory = SharedInformerFactory::new(client.clone(), FactoryConfig::default());
    let configmaps = factory.informer_for::<ConfigMap>();
    factory.start();
    let health = Health::new();
    let synced = {
        let factory = factory.clone();
        async move { factory.wait_for_cache_sync().await }
    };
    let lock = RestLeaseLock::new(client.clone(), "default", "ready-test").unwrap();
    let elected = LeaderElected::new(lock, identity, Config::default())
        .unwrap()
        .with_ready_check(health.check("replica"), synced);
    let controller = move || Controller::for_type(configmaps.clone(), ControllerConfig::default());
    let reconcile =
        |_: Arc<ConfigMap>, _: Arc<()>| async { Ok::<_, Never>(Action::await_change()) };
    let (stop, stopped) = oneshot::channel::<()>();
    let running = tokio::spawn(async move {
        let shutdown = async {
            let _ = stopped.await;
        };
        elected
            .run(
                controller,
                reconcile,
                |_, _, _| Action::backoff(),
                Arc::new(()),
                shutdown,
            )
            .await;
        factory.shutdown().await;
    });
    (health, stop, running)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_leader_and_the_replica_standing_by_are_both_ready() {
    let sim = Sim::builder().configmaps(3).start().await.unwrap();
    let client = Client::new(sim.service());
    let (leader, stop_leader, leading) = replica(&client, "replica-a");
    let (standby, stop_standby, standing) = replica(&client, "replica-b");
    let limit = Duration::from_secs(20);
    wait_until("both replicas ready", limit, || async {
        leader.is_ready() && standby.is_ready()
    })
    .await;

    stop_standby.send(()).unwrap();
    standing.await.unwrap();
    assert!(!standby.is_ready(), "not ready once it shuts down");
    assert!(leader.is_ready());
    stop_leader.send(()).unwrap();
    leading.await.unwrap();
    assert!(!leader.is_ready());
}
