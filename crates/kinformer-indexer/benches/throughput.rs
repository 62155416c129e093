//! Indexer write and read throughput with realistic pods: adds/s, updates/s with three indexes
//! (namespace, node, app), replace of 50k objects, and indexed reads.
//!
//! Run with `cargo bench -p kinformer-indexer --features protobuf --bench throughput`.

#![allow(clippy::print_stdout)] // A benchmark reports its numbers on stdout.

#[path = "support/pods.rs"]
mod pods;

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{Store, StoreRead, object_key};
use kinformer_indexer::{
    CacheLister, Compact, Config, IndexFunc, IndexRead, Indexer, NAMESPACE_INDEX,
};
use kinformer_selector::LabelSelector;

/// The full size under `cargo bench`; a small smoke run under `cargo test --all-targets`,
/// which runs benchmark targets unoptimised and without `--bench`.
fn size(full: usize) -> usize {
    if std::env::args().any(|arg| arg == "--bench") {
        full
    } else {
        full / 100
    }
}

fn three_indexes() -> Indexer<Pod> {
    Indexer::new(
        Config::default()
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
    )
}

fn rate(label: &str, count: usize, run: impl FnOnce()) {
    let start = Instant::now();
    run();
    let elapsed = start.elapsed();
    println!(
        "  {label:<44} {:>10.0} /s  ({count} in {:.1} ms)",
        count as f64 / elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1e3
    );
}

/// Reads of a compact cache of the pods without managedFields (as an informer holds them),
/// each decoding the pods it returns: a `get`, and the whole cache read at once (`list`) and
/// one pod at a time (`iter`).
fn compact_reads(pods: &[Arc<Pod>], codec: Compact<Pod>) {
    let objects = pods.len();
    let label = |what: &str| format!("compact ({:?}) {what}", codec.encoding());
    let compact = Indexer::new(Config::default().with_compact(codec.clone()));
    let stripped: Vec<Arc<Pod>> = pods
        .iter()
        .map(|pod| {
            let mut pod = (**pod).clone();
            pods::strip_managed_fields(&mut pod);
            Arc::new(pod)
        })
        .collect();
    // Each add packs (encodes) the pod.
    rate(&label("add (encodes)"), objects, || {
        for pod in &stripped {
            compact
                .add(Arc::clone(pod))
                .expect("index functions never fail here");
        }
    });
    drop(stripped);
    let keys: Vec<String> = pods.iter().map(|pod| object_key(&**pod)).collect();
    let start = Instant::now();
    for key in &keys {
        black_box(compact.get_by_key(key));
    }
    let per_get = start.elapsed().as_secs_f64() * 1e6 / objects as f64;
    println!("  {:<44} {per_get:>10.2} µs", label("get_by_key, mean"));
    rate(&label("list (all decoded)"), objects, || {
        black_box(compact.list().len());
    });
    rate(&label("iter (one at a time)"), objects, || {
        black_box(compact.iter().count());
    });
}

fn main() {
    let objects = size(50_000);
    let pods: Vec<Arc<Pod>> = (0..objects).map(|i| Arc::new(pods::pod(i, 50))).collect();
    // Updates move every pod to another node, so the node index really changes.
    let moved: Vec<Arc<Pod>> = (0..objects)
        .map(|i| {
            let mut pod = pods::pod(i, 50);
            if let Some(spec) = pod.spec.as_mut() {
                spec.node_name = Some(format!("node-{}", (i + 1) % 100));
            }
            Arc::new(pod)
        })
        .collect();
    println!("indexer throughput ({objects} pods, 50 namespaces, 100 nodes)");

    let plain: Indexer<Pod> = Indexer::default();
    rate("add, namespace index only", objects, || {
        for pod in &pods {
            plain
                .add(Arc::clone(pod))
                .expect("index functions never fail here");
        }
    });
    let indexed = three_indexes();
    rate("add, 3 indexes", objects, || {
        for pod in &pods {
            indexed
                .add(Arc::clone(pod))
                .expect("index functions never fail here");
        }
    });
    rate("update, 3 indexes (node changes)", objects, || {
        for pod in &moved {
            indexed
                .update(Arc::clone(pod))
                .expect("index functions never fail here");
        }
    });
    rate(
        "update with the stored Arc (resync; no index work)",
        objects,
        || {
            for pod in &moved {
                indexed
                    .update(Arc::clone(pod))
                    .expect("index functions never fail here");
            }
        },
    );
    rate(
        "replace of 50k objects, 3 indexes (objects)",
        objects,
        || {
            indexed
                .replace(pods.to_vec(), "2")
                .expect("index functions never fail here");
        },
    );
    let keys: Vec<String> = pods.iter().map(|pod| object_key(&**pod)).collect();
    rate("get_by_key", objects, || {
        for key in &keys {
            black_box(indexed.get_by_key(key));
        }
    });
    rate("by_index(namespace) (1000 pods each)", 500, || {
        for i in 0..500 {
            black_box(
                indexed
                    .by_index(NAMESPACE_INDEX, &format!("namespace-{}", i % 50))
                    .ok(),
            );
        }
    });
    compact_reads(&pods, Compact::json());
    // Built with the `protobuf` feature (as the workspace builds it).
    #[cfg(feature = "protobuf")]
    compact_reads(
        &pods,
        Compact::protobuf().expect("Pod has a protobuf message"),
    );
    let lister = CacheLister::new(Arc::new(indexed), "pods");
    let selector = LabelSelector::parse("app=app-7,tier in (frontend,backend)").unwrap_or_default();
    rate("namespaced list with selector (1000 pods)", 500, || {
        for i in 0..500 {
            black_box(
                lister
                    .namespaced(format!("namespace-{}", i % 50))
                    .list(&selector)
                    .len(),
            );
        }
    });
    rate("delete, 3 indexes", objects, || {
        for pod in &pods {
            plain
                .delete(Arc::clone(pod))
                .expect("index functions never fail here");
        }
    });
}
