//! The informer's watch-error handler receives the reflector's typed failures, and the cache
//! still converges.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kinformer_listwatch::ListWatch;
use kinformer_reflector::{Config as ReflectorConfig, WatchBreak};
use kinformer_rest::Client;
use kinformer_sim::{DropMode, Fault, FaultKind, ObjectOp, OpKind, Sim};
use serde_json::json;

mod common;

use common::{converges_to_the_sims_pods, spawn_run, wait_until};
use kinformer_informer::{Config, SharedIndexInformer};

type ReflectorError = kinformer_reflector::Error<kinformer_rest::Error>;

#[tokio::test(start_paused = true)]
async fn the_informers_handler_sees_each_failure_typed() {
    let sim = Sim::builder()
        .pods(30)
        .seed(4)
        .compact_interval(None)
        .start()
        .await
        .unwrap();
    sim.add_faults([Fault::new(FaultKind::status(403)).verbs(["watch"])])
        .await;
    let informer = SharedIndexInformer::new(
        ListWatch::<Pod, _>::for_type(Client::new(sim.service())),
        Config::default().with_name("pods").with_reflector(
            ReflectorConfig::default()
                .with_streaming_list(false)
                .with_seed(2),
        ),
    )
    .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    informer
        .set_watch_error_handler(move |error| {
            let error = error
                .downcast_ref::<ReflectorError>()
                .expect("the reflector's error");
            let kind = match error {
                ReflectorError::WatchOpen(err) if err.is_forbidden() => "forbidden",
                ReflectorError::WatchBroken {
                    how: WatchBreak::Dropped,
                    ..
                } => "dropped",
                ReflectorError::Expired(_) => "expired",
                _ => "unexpected",
            };
            log.lock().unwrap().push(kind);
        })
        .unwrap();
    let runner = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();
    let saw = |n: usize| {
        let seen = Arc::clone(&seen);
        move || seen.lock().unwrap().len() >= n
    };
    assert!(wait_until(Duration::from_secs(60), saw(1)).await);

    // Let the watch run a while (a watch that ends within a second is a short watch).
    tokio::time::sleep(Duration::from_secs(5)).await;
    sim.drop_watches(DropMode::Abrupt).await;
    assert!(wait_until(Duration::from_secs(60), saw(2)).await);
    tokio::time::sleep(Duration::from_secs(5)).await;
    sim.drop_watches(DropMode::Error410).await;
    assert!(wait_until(Duration::from_secs(60), saw(3)).await);

    let pods = sim.versions("pods").await.unwrap();
    let (key, _) = pods.iter().next().unwrap();
    let (namespace, name) = key.split_once('/').unwrap();
    let patch = json!({"metadata": {"name": name, "namespace": namespace,
                                    "labels": {"after": "failures"}}});
    sim.apply(ObjectOp::new(OpKind::Patch, "pods", patch))
        .await
        .unwrap();
    converges_to_the_sims_pods(&sim, &informer).await;
    assert_eq!(*seen.lock().unwrap(), ["forbidden", "dropped", "expired"]);
    informer.shutdown();
    runner.await.unwrap().unwrap();
}
