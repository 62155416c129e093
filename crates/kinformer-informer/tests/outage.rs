//! A ten-minute API server outage, in paused time: the informer keeps its cache, sends few
//! requests, never relists, and resumes its watch within one backoff period of the recovery.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{Backoff, Object, StoreRead};
use kinformer_listwatch::ListWatch;
use kinformer_reflector::{Config as ReflectorConfig, Counters};
use kinformer_rest::Client;
use kinformer_sim::{DropMode, Fault, FaultKind, ObjectOp, OpKind, Sim};
use serde_json::json;

mod common;

use common::spawn_run;
use kinformer_informer::{Config, SharedIndexInformer};

const OUTAGE: Duration = Duration::from_secs(600);

async fn outage(streaming: bool) {
    let sim = Sim::builder()
        .pods(50)
        .seed(17)
        .compact_interval(None)
        .start()
        .await
        .unwrap();
    let counters = Arc::new(Counters::default());
    let source = ListWatch::<Pod, _>::for_type(Client::new(sim.service()));
    let informer = SharedIndexInformer::new(
        source,
        Config::default()
            .with_name("pods")
            .with_reflector(
                ReflectorConfig::default()
                    .with_streaming_list(streaming)
                    .with_seed(3),
            )
            .with_metrics(counters.clone()),
    )
    .unwrap();
    let runner = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();
    while sim.stats().await.open_watches == 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // An outage hits a watch that has been running (one that ends within a second with no
    // events is a short watch, which relists by design).
    tokio::time::sleep(Duration::from_secs(5)).await;
    let synced = counters.snapshot();

    // The server fails every request and its watches break.
    sim.clear_requests().await;
    let unavailable = FaultKind::status(503);
    sim.add_faults([Fault::new(unavailable).count(-1)]).await;
    sim.drop_watches(DropMode::Abrupt).await;
    tokio::time::sleep(OUTAGE).await;

    let requests = sim.requests().await;
    assert!(requests.iter().all(|r| r.status == 503), "{requests:?}");
    // The backoff reaches its cap after about 76 s; from then on at most one request per
    // [30, 60) s, far below the 0.25/s the API server's owners would tolerate.
    let rate = requests.len() as f64 / OUTAGE.as_secs_f64();
    eprintln!(
        "streaming={streaming}: {} requests in a 600 s outage ({rate:.3}/s)",
        requests.len()
    );
    assert!(rate <= 0.05, "{} requests in 600 s", requests.len());
    assert!(
        requests.iter().all(|r| r.path.contains("watch=true")),
        "a failing server is re-watched at the last resourceVersion, never relisted: {requests:?}"
    );
    assert_eq!(
        informer.indexer().len(),
        50,
        "the cache is kept through the outage"
    );

    // The server comes back; a change made now reaches the cache within one backoff period.
    sim.clear_faults().await;
    let pod = informer.indexer().list()[0].clone();
    let (namespace, name) = (pod.namespace().unwrap(), pod.name());
    let patch = json!({"metadata": {"name": name, "namespace": namespace,
                                    "labels": {"outage": "over"}}});
    let updated = sim
        .apply(ObjectOp::new(OpKind::Patch, "pods", patch))
        .await
        .unwrap();
    let key = format!("{namespace}/{name}");
    let max_delay = Backoff::REFLECTOR.cap().unwrap_or_default() * 2;
    tokio::time::timeout(max_delay, async {
        loop {
            let cached = informer.indexer().get_by_key(&key).unwrap();
            if cached.resource_version() == updated["metadata"]["resourceVersion"].as_str() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the watch resumed within one backoff period");
    let after = counters.snapshot();
    assert_eq!(
        after.lists, synced.lists,
        "no relist: the resourceVersion was still valid"
    );
    assert_eq!(after.relists, 0);

    informer.shutdown();
    runner.await.unwrap().unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_ten_minute_outage_costs_no_relist_and_few_requests_with_list_watch() {
    outage(false).await;
}

#[tokio::test(start_paused = true)]
async fn a_ten_minute_outage_costs_no_relist_and_few_requests_with_streaming_lists() {
    outage(true).await;
}
