//! DeltaQueue throughput and memory: adds/s, pops/s, end-to-end updates/s into an indexer with three
//! indexes, replace of 50k objects, and bytes a queued object costs the queue.
//!
//! Run with `cargo bench -p kinformer-deltafifo --bench fifo`.

#![allow(clippy::print_stdout)] // A benchmark reports its numbers on stdout.

use std::alloc::System;
use std::sync::Arc;
use std::time::Instant;

use k8s_openapi::api::core::v1::{Pod, PodSpec};
use kinformer_core::{Delta, Store};
use kinformer_deltafifo::{
    DeltaFifo, DeltaFifoConfig, DeltaQueue, KnownObjects, PoppedItem, RealFifo, RealFifoConfig,
};
use kinformer_indexer::{Config as IndexerConfig, IndexFunc, Indexer};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The full size under `cargo bench`; a small smoke run under `cargo test --all-targets`,
/// which runs benchmark targets unoptimised and without `--bench`.
fn size(full: usize) -> usize {
    if std::env::args().any(|arg| arg == "--bench") {
        full
    } else {
        full / 100
    }
}

fn pod(i: usize, version: usize) -> Arc<Pod> {
    let mut pod = Pod::default();
    pod.metadata.namespace = Some(format!("namespace-{}", i % 50));
    pod.metadata.name = Some(format!("pod-{i:06}"));
    pod.metadata.resource_version = Some(version.to_string());
    pod.metadata.labels = Some([("app".to_owned(), format!("app-{}", i % 100))].into());
    pod.spec = Some(PodSpec {
        node_name: Some(format!("node-{}", (i + version) % 100)),
        ..PodSpec::default()
    });
    Arc::new(pod)
}

fn indexer() -> Arc<Indexer<Pod>> {
    Arc::new(Indexer::new(
        IndexerConfig::default()
            .with_index(
                "node",
                IndexFunc::new(|pod: &Pod| {
                    Ok(pod
                        .spec
                        .as_ref()
                        .and_then(|s| s.node_name.clone())
                        .into_iter()
                        .collect())
                }),
            )
            .with_index(
                "app",
                IndexFunc::new(|pod: &Pod| {
                    Ok(pod
                        .metadata
                        .labels
                        .as_ref()
                        .and_then(|l| l.get("app").cloned())
                        .into_iter()
                        .collect())
                }),
            ),
    ))
}

/// `objects` as a reflector hands a list to a queue.
fn listed(objects: &[Arc<Pod>]) -> Vec<Arc<Pod>> {
    objects.to_vec()
}

/// Applies popped deltas to the indexer, as an informer does.
fn apply(indexer: &Indexer<Pod>, item: PoppedItem<Pod>) {
    if let PoppedItem::Deltas { deltas, .. } = item {
        for delta in deltas {
            let result = match &delta {
                Delta::Deleted(state) => {
                    indexer.delete_state(state);
                    Ok(())
                }
                other => indexer.upsert(other.object()).map(drop),
            };
            result.expect("the benchmark's index functions never fail");
        }
    }
}

fn report(label: &str, count: usize, start: Instant) {
    let elapsed = start.elapsed();
    println!(
        "  {label:<52} {:>10.0} /s  ({count} in {:.1} ms)",
        count as f64 / elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1e3
    );
}

fn net(region: &Region<'_, System>) -> isize {
    let change = region.change();
    change.bytes_allocated as isize - change.bytes_deallocated as isize + change.bytes_reallocated
}

fn main() {
    let objects = size(50_000);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime builds");
    let first: Vec<Arc<Pod>> = (0..objects).map(|i| pod(i, 1)).collect();
    let second: Vec<Arc<Pod>> = (0..objects).map(|i| pod(i, 2)).collect();
    println!("queue throughput ({objects} pods)");

    // Plain adds and pops.
    let fifo: DeltaFifo<Pod> = DeltaFifo::default();
    let region = Region::new(GLOBAL);
    let start = Instant::now();
    for pod in &first {
        fifo.add(Arc::clone(pod)).expect("adds never fail");
    }
    report("DeltaFifo add", objects, start);
    let queued_bytes = net(&region);
    let start = Instant::now();
    runtime.block_on(async {
        for _ in 0..objects {
            fifo.pop(drop).await.expect("the queue is open");
        }
    });
    report("DeltaFifo pop", objects, start);

    let real: RealFifo<Pod> = RealFifo::new(RealFifoConfig::default());
    let region = Region::new(GLOBAL);
    let start = Instant::now();
    for pod in &first {
        real.add(Arc::clone(pod)).expect("adds never fail");
    }
    report("RealFifo add", objects, start);
    let real_queued_bytes = net(&region);
    let start = Instant::now();
    runtime.block_on(async {
        for _ in 0..objects {
            real.pop(drop).await.expect("the queue is open");
        }
    });
    report("RealFifo pop", objects, start);

    // End to end: queue -> pop -> indexer with three indexes.
    let store = indexer();
    let known: KnownObjects<Pod> = store.clone();
    let fifo = DeltaFifo::new(
        DeltaFifoConfig::default()
            .with_known_objects(known)
            .with_emit_replaced(true),
    );
    let start = Instant::now();
    fifo.replace(listed(&first), "1")
        .expect("replace never fails");
    report("DeltaFifo replace of 50k (empty cache)", objects, start);
    let start = Instant::now();
    runtime.block_on(async {
        while fifo.queued() > 0 {
            fifo.pop(|p| apply(&store, p.item))
                .await
                .expect("the queue is open");
        }
    });
    report(
        "  pop + apply the 50k into the indexer (3 indexes)",
        objects,
        start,
    );

    let start = Instant::now();
    runtime.block_on(async {
        for pod in &second {
            fifo.update(Arc::clone(pod)).expect("updates never fail");
            fifo.pop(|p| apply(&store, p.item))
                .await
                .expect("the queue is open");
        }
    });
    report("update + pop + indexer update (3 indexes)", objects, start);

    let start = Instant::now();
    fifo.replace(listed(&first[..objects / 2]), "3")
        .expect("replace never fails");
    report(
        "DeltaFifo replace of 25k with 25k tombstones (50k cached)",
        objects,
        start,
    );
    let start = Instant::now();
    runtime.block_on(async {
        while fifo.queued() > 0 {
            fifo.pop(|p| apply(&store, p.item))
                .await
                .expect("the queue is open");
        }
    });
    report("  pop + apply them", objects, start);

    let start = Instant::now();
    fifo.resync().expect("resync never fails");
    report("DeltaFifo resync of 25k cached", objects / 2, start);

    let atomic: RealFifo<Pod> = RealFifo::new(RealFifoConfig::default().with_atomic(true));
    let start = Instant::now();
    atomic
        .replace(listed(&second), "4")
        .expect("replace never fails");
    report("RealFifo (atomic) replace of 50k", objects, start);

    println!("queue memory per queued object (objects themselves excluded)");
    println!("  DeltaFifo: {:>5} B", queued_bytes / objects as isize);
    println!("  RealFifo:  {:>5} B", real_queued_bytes / objects as isize);
}
