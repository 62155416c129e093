//! A relist keeps the cache's copies of unchanged objects: after a 410, the cache holds the
//! very same `Arc`s it held before, so the relist never built a second cache.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{Object, StoreRead, object_key};
use kinformer_listwatch::ListWatch;
use kinformer_reflector::{Config as ReflectorConfig, Counters};
use kinformer_rest::Client;
use kinformer_sim::{DropMode, ObjectOp, OpKind, Sim};
use serde_json::json;

mod common;

use common::spawn_run;
use kinformer_informer::{Config, HandlerFns, QueueKind, SharedIndexInformer};

fn snapshot(informer: &SharedIndexInformer<Pod>) -> BTreeMap<String, Arc<Pod>> {
    informer
        .indexer()
        .list()
        .into_iter()
        .map(|p| (object_key(&*p), p))
        .collect()
}

async fn relist_reuses_unchanged_objects(streaming: bool, queue: QueueKind) {
    let sim = Sim::builder().pods(120).seed(8).start().await.unwrap();
    let counters = Arc::new(Counters::default());
    let reflector = ReflectorConfig::default()
        .with_streaming_list(streaming)
        // Paged relists, so objects are swapped page by page.
        .with_page_size(25);
    let informer = SharedIndexInformer::new(
        ListWatch::<Pod, _>::for_type(Client::new(sim.service())),
        Config::default()
            .with_name("pods")
            .with_queue(queue)
            .with_reflector(reflector)
            .with_metrics(counters.clone()),
    )
    .unwrap();
    let updates = Arc::new(AtomicUsize::new(0));
    let counter = updates.clone();
    informer
        .add_event_handler(
            HandlerFns::new().update_fn(move |_: &Arc<Pod>, _: &Arc<Pod>| {
                counter.fetch_add(1, Ordering::SeqCst);
            }),
        )
        .unwrap();
    let runner = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();
    let before = snapshot(&informer);

    // One object changes; then the watch is told its resourceVersion expired.
    let (changed_ns, changed_name) = {
        let pod = before.values().next().unwrap();
        (pod.namespace().unwrap().to_owned(), pod.name().to_owned())
    };
    let patch = json!({"metadata": {"name": changed_name, "namespace": changed_ns,
                                    "labels": {"changed": "yes"}}});
    sim.apply(ObjectOp::new(OpKind::Patch, "pods", patch))
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(30), async {
        while updates.load(Ordering::SeqCst) == 0 || sim.stats().await.open_watches == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the change reached the handler over an open watch");
    sim.drop_watches(DropMode::Error410).await;
    // Unchanged objects in a relist are resyncs, which no handler here asks for; a pod created
    // after the relist reaches the cache after the relist did.
    tokio::time::timeout(Duration::from_secs(30), async {
        while counters.snapshot().relists == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let marker = json!({"apiVersion": "v1", "kind": "Pod",
                            "metadata": {"name": "after-relist", "namespace": "default"}});
        sim.apply(ObjectOp::new(OpKind::Create, "pods", marker))
            .await
            .unwrap();
        while informer
            .indexer()
            .get_by_key("default/after-relist")
            .is_none()
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap_or_else(|_| {
        panic!(
            "relisted: {:?}, {} updates",
            counters.snapshot(),
            updates.load(Ordering::SeqCst)
        )
    });

    let after = snapshot(&informer);
    assert_eq!(after.len(), 121);
    let changed_key = format!("{changed_ns}/{changed_name}");
    for (key, pod) in &after {
        if key == "default/after-relist" {
            continue;
        }
        if *key == changed_key {
            assert!(!Arc::ptr_eq(pod, &before[key]), "the changed object is new");
            continue;
        }
        assert!(
            Arc::ptr_eq(pod, &before[key]),
            "{key}: the relist replaced an unchanged object with a fresh copy"
        );
    }
    informer.shutdown();
    runner.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paged_relist_keeps_the_cached_copies_with_the_delta_fifo() {
    relist_reuses_unchanged_objects(false, QueueKind::DeltaFifo).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streaming_relist_keeps_the_cached_copies_with_the_delta_fifo() {
    relist_reuses_unchanged_objects(true, QueueKind::DeltaFifo).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streaming_relist_keeps_the_cached_copies_with_the_in_order_queue() {
    relist_reuses_unchanged_objects(true, QueueKind::RealFifo).await;
}

/// With [`trim_pod_capacity`](kinformer_informer::trim_pod_capacity), pods reach the cache with no spare
/// capacity in their vectors, in both list modes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cached_pods_carry_no_spare_vector_capacity() {
    for streaming in [true, false] {
        let sim = Sim::builder().pods(50).seed(3).start().await.unwrap();
        let informer = SharedIndexInformer::new(
            ListWatch::<Pod, _>::for_type(Client::new(sim.service())),
            Config::default()
                .with_name("pods")
                .with_transform(kinformer_informer::trim_pod_capacity())
                .with_reflector(ReflectorConfig::default().with_streaming_list(streaming)),
        )
        .unwrap();
        let runner = spawn_run(&informer);
        informer.wait_for_cache_sync().await.unwrap();
        for pod in informer.indexer().list() {
            let spec = pod.spec.as_ref().unwrap();
            assert_eq!(spec.containers.capacity(), spec.containers.len());
            let statuses = pod.status.as_ref().unwrap().container_statuses.as_ref();
            assert!(statuses.is_none_or(|s| s.capacity() == s.len()));
        }
        informer.shutdown();
        runner.await.unwrap().unwrap();
    }
}
