//! Decode throughput of a 50,000-pod list body and a 100,000-event watch stream, against the floor:
//! plain `serde_json::from_slice` of the same bytes into the same k8s-openapi types.
//!
//! Rows: a list body decoded from one buffer (`decode_list`), the same body decoded as it
//! arrives in 64 KiB chunks (`ListDecoder`, what `Request::list` does), and a watch stream; the
//! streamed list and the watch also with managedFields skipped (a list-watch's default) and
//! through a keep projection; and the same pods as protobuf against JSON (`protobuf.rs`).
//! The pods come from kinformer-sim (its generator, served in-process); the watch stream wraps
//! those pods as `MODIFIED`/`ADDED` events, one per line, fed to the decoder in 64 KiB chunks as a
//! socket would. Plain timing with `Instant`, best of five (interleaved); run with
//! `cargo bench -p kinformer-rest --bench decode` (set `DECODE_BENCH_PODS` for a smaller run,
//! `DECODE_BENCH_ONLY` to run only the rows whose name contains it; under `cargo test` it runs
//! 200 pods as a smoke test).

#![allow(clippy::print_stdout, clippy::unwrap_used)] // a benchmark reports on stdout

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{Fields, ObjectList, Projection};
use kinformer_rest::decoders::{ListDecoder, WatchDecoder, decode_list};
use serde::Deserialize;
use serde_json::value::RawValue;
use tower::ServiceExt;

#[path = "decode/protobuf.rs"]
mod protobuf;

const CHUNK: usize = 64 * 1024;
/// Rounds per measurement; the best time counts (a shared machine is noisy).
const ROUNDS: usize = 5;
/// The largest watch event accepted.
const FRAME: usize = 16 << 20;

#[derive(Deserialize)]
struct RawList<'a> {
    #[serde(borrow)]
    items: Vec<&'a RawValue>,
}

/// The floor for a watch event: serde_json straight into a derived envelope holding a `Pod`.
#[derive(Deserialize)]
struct FloorEvent {
    #[serde(rename = "type")]
    _type: String,
    #[serde(rename = "object")]
    _object: Pod,
}

/// Times `ours` and `floor` alternately, `ROUNDS` rounds each, keeping each one's best time, so
/// neither profits from running second (a warm allocator). Results are dropped outside the timed
/// regions (freeing is not decoding); the last ones are returned for checking.
fn interleaved<T, U>(
    mut ours: impl FnMut() -> T,
    mut floor: impl FnMut() -> U,
) -> (Duration, T, Duration, U) {
    let (mut best_ours, mut best_floor) = (Duration::MAX, Duration::MAX);
    let (mut out_ours, mut out_floor) = (None, None);
    for _ in 0..ROUNDS {
        drop(out_ours.take());
        let start = Instant::now();
        out_ours = Some(ours());
        best_ours = best_ours.min(start.elapsed());
        drop(out_floor.take());
        let start = Instant::now();
        out_floor = Some(floor());
        best_floor = best_floor.min(start.elapsed());
    }
    (best_ours, out_ours.unwrap(), best_floor, out_floor.unwrap())
}

/// Reports two decoders of the same objects from their own encodings: each one's bytes, MB/s and
/// objects/s, and the ratio of their objects/s.
fn report_pair(
    name: &str,
    (ours_label, ours_bytes): (&str, usize),
    (theirs_label, theirs_bytes): (&str, usize),
    objects: usize,
    ours: Duration,
    theirs: Duration,
) {
    let line = |label: &str, bytes: usize, d: Duration| {
        format!(
            "  {label}: {:.1} MB, {:>7.1} MB/s {:>9.0} objects/s ({:.3} s)",
            bytes as f64 / 1e6,
            bytes as f64 / 1e6 / d.as_secs_f64(),
            objects as f64 / d.as_secs_f64(),
            d.as_secs_f64()
        )
    };
    println!(
        "{name}: {objects} objects\n{}\n{}\n  ratio ({ours_label}/{theirs_label} objects/s): {:.3}",
        line(ours_label, ours_bytes, ours),
        line(theirs_label, theirs_bytes, theirs),
        theirs.as_secs_f64() / ours.as_secs_f64(),
    );
}

fn report(name: &str, bytes: usize, objects: usize, ours: Duration, floor: Duration) {
    let mbs = |d: Duration| bytes as f64 / 1e6 / d.as_secs_f64();
    let ops = |d: Duration| objects as f64 / d.as_secs_f64();
    println!(
        "{name}: {:.1} MB, {objects} objects\n  kinformer-rest: {:>7.1} MB/s {:>9.0} objects/s ({:.3} s)\n  serde_json floor: {:>5.1} MB/s {:>9.0} objects/s ({:.3} s)\n  ratio (ours/floor throughput): {:.3}",
        bytes as f64 / 1e6,
        mbs(ours),
        ops(ours),
        ours.as_secs_f64(),
        mbs(floor),
        ops(floor),
        floor.as_secs_f64(),
        floor.as_secs_f64() / ours.as_secs_f64(),
    );
}

async fn list_body(pods: usize) -> Bytes {
    let sim = kinformer_sim::Sim::builder()
        .pods(pods)
        .namespaces(50)
        .seed(42)
        .start()
        .await
        .unwrap();
    let req = http::Request::get("/api/v1/pods")
        .body(Empty::<Bytes>::new())
        .unwrap();
    let resp = sim.service().oneshot(req).await.unwrap();
    assert_eq!(resp.status(), 200);
    resp.into_body().collect().await.unwrap().to_bytes()
}

fn watch_stream(list: &[u8], events: usize) -> Vec<u8> {
    let raw: RawList<'_> = serde_json::from_slice(list).unwrap();
    let mut out = Vec::with_capacity(list.len() * events / raw.items.len().max(1) + events * 32);
    for (i, item) in raw.items.iter().cycle().take(events).enumerate() {
        let ty = if i % 2 == 0 { "MODIFIED" } else { "ADDED" };
        out.extend_from_slice(format!("{{\"type\":\"{ty}\",\"object\":").as_bytes());
        out.extend_from_slice(item.get().as_bytes());
        out.extend_from_slice(b"}\n");
    }
    out
}

fn main() {
    // `cargo bench` passes `--bench`; under `cargo test --all-targets` this is a quick smoke run.
    let full = std::env::args().any(|a| a == "--bench");
    let pods: usize = std::env::var("DECODE_BENCH_PODS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if full { 50_000 } else { 200 });
    let only = std::env::var("DECODE_BENCH_ONLY").ok();
    let row = Rows {
        only: only.as_deref(),
    };
    let events = pods * 2;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let body = runtime.block_on(list_body(pods));
    drop(runtime);

    let floor_list = || serde_json::from_slice::<k8s_openapi::List<Pod>>(&body).unwrap();
    let both_whole = |list: &ObjectList<Pod>, floor: &k8s_openapi::List<Pod>| {
        assert_eq!((list.items.len(), floor.items.len()), (pods, pods));
    };
    let list_size = (body.len(), pods);
    row.run(
        "list (whole body)",
        list_size,
        || decode_list::<Pod>(&body).unwrap(),
        floor_list,
        both_whole,
    );
    // What `Request::list` does: decode while the body arrives, chunk by chunk: whole objects
    // (no projection), managedFields skipped (a list-watch's default) and a keep projection.
    row.run(
        "list (streamed, 64 KiB chunks)",
        list_size,
        || list_streamed(&body, ListDecoder::<Pod>::new()),
        floor_list,
        both_whole,
    );
    row.run(
        "list (streamed, managedFields skipped)",
        list_size,
        || {
            let decoder = ListDecoder::<Pod>::new().with_fields(Fields::WithoutManagedFields);
            list_streamed(&body, decoder)
        },
        floor_list,
        |list, floor| {
            both_whole(list, floor);
            assert!(
                list.items
                    .iter()
                    .all(|p| p.metadata.managed_fields.is_none())
            );
        },
    );
    row.run(
        "list (streamed, keep projection)",
        list_size,
        || list_projected(&body),
        floor_list,
        |list, floor| {
            both_whole(list, floor);
            assert!(
                list.items
                    .iter()
                    .all(|p| p.status.as_ref().unwrap().pod_ip.is_none())
            );
        },
    );

    let stream = watch_stream(&body, events);
    protobuf::rows(&row, &body, &stream, pods, events);
    drop(body);
    let floor_watch = || {
        let mut n = 0usize;
        let mut rest = &stream[..];
        while let Some(end) = memchr::memchr(b'\n', rest) {
            let event: FloorEvent = serde_json::from_slice(&rest[..end]).unwrap();
            drop(event);
            n += 1;
            rest = &rest[end + 1..];
        }
        n
    };
    let all_events = |n: &usize, m: &usize| assert_eq!((*n, *m), (events, events));
    let watch_size = (stream.len(), events);
    row.run(
        "watch",
        watch_size,
        || watch(&stream, WatchDecoder::<Pod>::new(FRAME)),
        floor_watch,
        all_events,
    );
    row.run(
        "watch (managedFields skipped)",
        watch_size,
        || {
            let decoder = WatchDecoder::<Pod>::new(FRAME).with_fields(Fields::WithoutManagedFields);
            watch(&stream, decoder)
        },
        floor_watch,
        all_events,
    );
    row.run(
        "watch (keep projection)",
        watch_size,
        || watch_projected(&stream),
        floor_watch,
        all_events,
    );
}

/// The rows to run: those whose name contains `DECODE_BENCH_ONLY` when it is set (to time or
/// profile one row on its own).
struct Rows<'a> {
    only: Option<&'a str>,
}

impl Rows<'_> {
    /// Times `ours` against `floor` on input of `(bytes, objects)`, checks both results and
    /// reports.
    fn run<T, U>(
        &self,
        name: &str,
        (bytes, objects): (usize, usize),
        ours: impl FnMut() -> T,
        floor: impl FnMut() -> U,
        check: impl FnOnce(&T, &U),
    ) {
        if self.only.is_some_and(|only| !name.contains(only)) {
            return;
        }
        let (ours, out, floor, floor_out) = interleaved(ours, floor);
        check(&out, &floor_out);
        drop((out, floor_out));
        report(name, bytes, objects, ours, floor);
    }
}

/// The keep projection of the projected benchmark client: metadata, the node, the phase, and
/// the containers' names and images.
fn keep() -> Projection {
    Projection::keep([
        "spec.nodeName",
        "status.phase",
        "spec.containers[].name",
        "spec.containers[].image",
    ])
    .unwrap()
}

/// Feeds `body` to `decoder` in socket-sized chunks. Never inlined (nor is [`watch`]), so a
/// profile of one row finds its decoding under this function.
#[inline(never)]
fn list_streamed(body: &[u8], mut decoder: ListDecoder<Pod>) -> ObjectList<Pod> {
    for chunk in body.chunks(CHUNK) {
        decoder.decode(chunk).unwrap();
    }
    decoder.finish().unwrap()
}

/// Feeds `stream` to `decoder` in socket-sized chunks; the events decoded.
#[inline(never)]
fn watch(stream: &[u8], mut decoder: WatchDecoder<Pod>) -> usize {
    let mut ready = VecDeque::new();
    let mut n = 0usize;
    for chunk in stream.chunks(CHUNK) {
        decoder.decode(chunk, &mut ready);
        n += ready
            .drain(..)
            .map(|e| usize::from(e.is_ok()))
            .sum::<usize>();
    }
    decoder.finish(&mut ready);
    n + ready.len()
}

/// The streamed list, each item decoded through the keep projection.
fn list_projected(body: &[u8]) -> ObjectList<Pod> {
    let decoder = ListDecoder::<Pod>::new().with_fields(Fields::projected(keep()));
    list_streamed(body, decoder)
}

/// The watch stream, each object decoded through the keep projection.
fn watch_projected(stream: &[u8]) -> usize {
    let decoder = WatchDecoder::<Pod>::new(FRAME).with_fields(Fields::projected(keep()));
    watch(stream, decoder)
}
