//! Time from start to a synced store, for list+watch and for streaming lists, against the
//! in-process simulator (no socket), with the requests each mode sent.
//!
//! Run with `cargo bench -p kinformer-listwatch --bench sync` (optionally `-- 10000` to pick sizes).

#![allow(
    missing_docs,
    clippy::print_stdout,
    reason = "a benchmark binary reports on stdout"
)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{Store, StoreError, object_key};
use kinformer_listwatch::ListWatch;
use kinformer_reflector::{Config, Reflector};
use kinformer_rest::Client;
use kinformer_sim::Sim;

#[derive(Default)]
struct MapStore {
    objects: Mutex<HashMap<String, Arc<Pod>>>,
    replaced: AtomicUsize,
}

impl Store<Pod> for MapStore {
    fn add(&self, obj: Arc<Pod>) -> Result<(), StoreError> {
        self.objects
            .lock()
            .unwrap()
            .insert(object_key(obj.as_ref()), obj);
        Ok(())
    }
    fn update(&self, obj: Arc<Pod>) -> Result<(), StoreError> {
        self.add(obj)
    }
    fn delete(&self, obj: Arc<Pod>) -> Result<(), StoreError> {
        self.objects
            .lock()
            .unwrap()
            .remove(&object_key(obj.as_ref()));
        Ok(())
    }
    fn replace(&self, list: Vec<Arc<Pod>>, _rv: &str) -> Result<(), StoreError> {
        let map = list
            .into_iter()
            .map(|p| (object_key(p.as_ref()), p))
            .collect();
        *self.objects.lock().unwrap() = map;
        self.replaced.store(1, Ordering::SeqCst);
        Ok(())
    }
    fn resync(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

async fn measure(pods: usize, streaming: bool) {
    let sim = Sim::builder()
        .pods(pods)
        .namespaces(10)
        .seed(1)
        .start()
        .await
        .unwrap();
    let mut lw = ListWatch::<Pod, _>::for_type(Client::new(sim.service()));
    if !streaming {
        lw = lw.with_streaming_list(false);
    }
    if !streaming {
        // The bare list call, for comparison: where the time goes is the transport and decoding.
        let started = Instant::now();
        let list = kinformer_core::Lister::<Pod>::list(
            &lw,
            &kinformer_core::ListOptions::default()
                .resource_version("0")
                .limit(500),
        )
        .await
        .unwrap();
        println!(
            "{pods:>6} pods, bare list call : {:>8.1} ms for {} items",
            started.elapsed().as_secs_f64() * 1000.0,
            list.items.len()
        );
        sim.clear_requests().await;
    }
    let store = Arc::new(MapStore::default());
    let started = Instant::now();
    let task =
        tokio::spawn(Reflector::new(lw, Arc::clone(&store), Config::default().with_seed(1)).run());
    while store.replaced.load(Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let elapsed = started.elapsed();
    // Let the follow-up watch request land before counting.
    tokio::time::sleep(Duration::from_millis(50)).await;
    task.abort();
    let synced = store.objects.lock().unwrap().len();
    assert_eq!(synced, pods);
    let requests = sim.requests().await;
    let paths: Vec<String> = requests
        .iter()
        .map(|r| r.path.split('?').nth(1).unwrap_or("").to_owned())
        .collect();
    println!(
        "{pods:>6} pods, {:<14}: synced in {:>8.1} ms, {} requests: {paths:?}",
        if streaming {
            "streaming list"
        } else {
            "list+watch"
        },
        elapsed.as_secs_f64() * 1000.0,
        requests.len()
    );
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 50_000]
    } else {
        sizes
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        for pods in sizes {
            for streaming in [false, true] {
                measure(pods, streaming).await;
            }
        }
    });
}
