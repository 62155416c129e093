//! Bytes per cached pod, with and without a managedFields-stripping transform, the indexer's
//! own overhead per object, and a compact indexer's whole footprint per object, measured with a
//! counting global allocator.
//!
//! Run with `cargo bench -p kinformer-indexer --features protobuf --bench memory`.

#![allow(clippy::print_stdout)] // A benchmark reports its numbers on stdout.

#[path = "support/pods.rs"]
mod pods;

use std::alloc::System;
use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::Store;
use kinformer_indexer::{Compact, Config, IndexFunc, Indexer};
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
const NAMESPACES: usize = 20;

/// Net bytes still allocated since `region` started.
fn net(region: &Region<'_, System>) -> isize {
    let change = region.change();
    change.bytes_allocated as isize - change.bytes_deallocated as isize + change.bytes_reallocated
}

/// Decodes every pod from JSON (as a list or watch would), optionally stripping managedFields
/// the way an informer transform does, and counts the bytes that stay allocated.
///
/// `compact` re-allocates the decoded pod with a clone, which sizes every `Vec` exactly: it shows
/// how much of a decoded object is spare `Vec` capacity left by deserialization.
fn build(json: &[Vec<u8>], strip: bool, compact: bool) -> (Vec<Arc<Pod>>, isize) {
    let mut pods = Vec::with_capacity(json.len());
    let region = Region::new(GLOBAL);
    for bytes in json {
        let mut pod = pods::from_json(bytes);
        if strip {
            pods::strip_managed_fields(&mut pod);
        }
        if compact {
            pod = pod.clone();
        }
        pods.push(Arc::new(pod));
    }
    let bytes = net(&region);
    (pods, bytes)
}

fn three_indexes() -> Config<Pod> {
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
        )
}

/// Bytes a compact indexer with three indexes holds per object (its entries, maps, keys and
/// index sets, everything), filled the way an informer fills it: `listed` through a list
/// (each object admitted as it arrives, then one replace), else by adds (watch events).
fn compact_total(pods: &[Arc<Pod>], listed: bool, codec: Compact<Pod>) -> isize {
    let region = Region::new(GLOBAL);
    let indexer = Indexer::new(three_indexes().with_compact(codec));
    if listed {
        let list = pods
            .iter()
            .map(|pod| indexer.admit_with(Arc::clone(pod), |pod| pod))
            .collect();
        indexer
            .replace_admitted(list, "1")
            .expect("the benchmark's index functions never fail");
    } else {
        for pod in pods {
            indexer
                .add(Arc::clone(pod))
                .expect("the benchmark's index functions never fail");
        }
    }
    let bytes = net(&region);
    drop(indexer);
    bytes
}

/// Bytes the indexer itself holds per object (maps, keys, index sets), objects excluded.
fn index_overhead(pods: &[Arc<Pod>], config: Config<Pod>) -> isize {
    let region = Region::new(GLOBAL);
    let indexer = Indexer::new(config);
    for pod in pods {
        indexer
            .add(Arc::clone(pod))
            .expect("the benchmark's index functions never fail");
    }
    let bytes = net(&region);
    drop(indexer);
    bytes
}

fn main() {
    let pod_count = size(10_000);
    let json: Vec<Vec<u8>> = (0..pod_count)
        .map(|i| pods::to_json(&pods::pod(i, NAMESPACES)))
        .collect();
    let average_json = json.iter().map(Vec::len).sum::<usize>() / pod_count;
    let per = |bytes: isize| bytes / pod_count as isize;

    let (full, full_bytes) = build(&json, false, false);
    let store_namespace = index_overhead(&full, Config::default());
    let store_three = index_overhead(&full, three_indexes());
    drop(full);
    let (stripped, stripped_bytes) = build(&json, true, false);
    let compact_added = compact_total(&stripped, false, Compact::json());
    let compact_listed = compact_total(&stripped, true, Compact::json());
    // Built with the `protobuf` feature (as the workspace builds it).
    #[cfg(feature = "protobuf")]
    let protobuf_listed = compact_total(
        &stripped,
        true,
        Compact::protobuf().expect("Pod has a protobuf message"),
    );
    // With the `compression` feature too: the default dictionary, trained on the first pods.
    #[cfg(all(feature = "protobuf", feature = "compression"))]
    let compressed_listed = compact_total(
        &stripped,
        true,
        Compact::protobuf()
            .expect("Pod has a protobuf message")
            .with_compression(kinformer_indexer::Compression::default()),
    );
    drop(stripped);
    let (compacted, compacted_bytes) = build(&json, true, true);
    drop(compacted);

    println!(
        "memory per cached pod ({pod_count} generated pods, average JSON size {average_json} B)"
    );
    println!(
        "  (inline sizes: Pod {} B, Container {} B)",
        std::mem::size_of::<Pod>(),
        std::mem::size_of::<k8s_openapi::api::core::v1::Container>()
    );
    println!(
        "  pod object, as decoded (Arc<Pod>):        {:>6} B",
        per(full_bytes)
    );
    println!(
        "  pod object, managedFields stripped:       {:>6} B",
        per(stripped_bytes)
    );
    println!(
        "  pod object, stripped and re-allocated:    {:>6} B  (decode leaves spare Vec capacity)",
        per(compacted_bytes)
    );
    println!(
        "  indexer overhead, namespace index only:   {:>6} B",
        per(store_namespace)
    );
    println!(
        "  indexer overhead, namespace+node+app:     {:>6} B",
        per(store_three)
    );
    println!(
        "  total per cached pod (stripped, 3 indexes): {:>4} B",
        per(stripped_bytes + store_three)
    );
    println!(
        "  compact, total per pod (stripped, 3 indexes), added:  {:>5} B",
        per(compact_added)
    );
    println!(
        "  compact, total per pod (stripped, 3 indexes), listed: {:>5} B",
        per(compact_listed)
    );
    #[cfg(feature = "protobuf")]
    println!(
        "  compact protobuf, total per pod (stripped, 3 indexes), listed: {:>5} B",
        per(protobuf_listed)
    );
    #[cfg(all(feature = "protobuf", feature = "compression"))]
    println!(
        "  compact protobuf compressed, total per pod (stripped, 3 indexes), listed: {:>5} B",
        per(compressed_listed)
    );
}
