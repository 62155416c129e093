//! The encoders of a compact cache's objects measured on realistic pods (managedFields stripped,
//! as an informer holds them, and kept): the serde-driven `encode_typed` against the generated
//! `TypedEncoder`, in µs per pod and bytes per pod.
//!
//! Run with `cargo bench -p kinformer-protobuf --bench encode`.

#![allow(clippy::print_stdout)] // A benchmark reports its numbers on stdout.

// The indexer's benchmarks' realistic pods: the encoder is measured on the objects a compact
// cache packs.
#[path = "../../kinformer-indexer/benches/support/pods.rs"]
mod pods;

use std::hint::black_box;
use std::time::Instant;

use k8s_openapi::api::core::v1::Pod;
use kinformer_protobuf::{Schema, TypedEncoder, encode_typed};

/// The full size under `cargo bench`; a small smoke run under `cargo test --all-targets`.
fn size(full: usize) -> usize {
    if std::env::args().any(|arg| arg == "--bench") {
        full
    } else {
        full / 100
    }
}

/// Runs `encode` over every pod `rounds` times into one reused buffer: µs per pod and the
/// average encoded size.
fn measure(
    pods: &[Pod],
    rounds: usize,
    mut encode: impl FnMut(&Pod, &mut Vec<u8>),
) -> (f64, usize) {
    let mut out = Vec::with_capacity(64 * 1024);
    let mut bytes = 0;
    for pod in pods {
        out.clear();
        encode(pod, &mut out);
        bytes += out.len();
    }
    let started = Instant::now();
    for _ in 0..rounds {
        for pod in pods {
            out.clear();
            encode(pod, &mut out);
            black_box(&out);
        }
    }
    let us = started.elapsed().as_secs_f64() * 1e6 / (rounds * pods.len()) as f64;
    (us, bytes / pods.len())
}

fn main() {
    let count = size(2_000);
    let schema = Schema::kubernetes();
    let message = schema.message_for("v1", "Pod").expect("Pod has a message");
    let encoder = TypedEncoder::<Pod>::new().expect("Pod has a generated encoder");
    let with_managed: Vec<Pod> = (0..count).map(|i| pods::pod(i, 20)).collect();
    let stripped: Vec<Pod> = with_managed
        .iter()
        .cloned()
        .map(|mut pod| {
            pods::strip_managed_fields(&mut pod);
            pod
        })
        .collect();
    println!("encoding {count} realistic pods, 5 rounds each");
    println!(
        "  {:<34} {:>10} {:>9}",
        "encoder", "µs per pod", "B per pod"
    );
    for (name, set) in [
        ("managedFields stripped", &stripped),
        ("with managedFields", &with_managed),
    ] {
        let (serde_us, serde_bytes) = measure(set, 5, |pod, out| {
            encode_typed(schema, message, pod, out).expect("a pod encodes");
        });
        let (typed_us, typed_bytes) = measure(set, 5, |pod, out| {
            encoder.encode(pod, out).expect("a pod encodes");
        });
        println!(
            "  {:<34} {serde_us:>10.2} {serde_bytes:>9}",
            format!("encode_typed, {name}")
        );
        println!(
            "  {:<34} {typed_us:>10.2} {typed_bytes:>9}",
            format!("TypedEncoder, {name}")
        );
    }
}
