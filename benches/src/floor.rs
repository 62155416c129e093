//! The floors: make the same request kinformer's default first request makes (a streaming list)
//! and only decode each event into the same k8s-openapi type, skipping managedFields in the parser
//! as kinformer does, kept in a plain `Vec` (no index, no queue, no handler), or only split the
//! bytes into lines; the same stream then carries the watch.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::StreamExt as _;
use http::Method;
use k8s_openapi::api::core::v1::Pod;
use kinformer_core::Projection;
use kinformer_rest::decoders::ProjectionSeed;
use kinformer_rest::{Client, Request};
use serde::de::DeserializeSeed as _;
use tokio::sync::oneshot;
use tokio::time::{Instant, sleep};

use crate::control::Control;
use crate::floor_protobuf;
use crate::lag::{self, LagSamples};
use crate::measure::{Report, report_burst, report_sync};
use crate::{Options, setup};

/// A watch event decoded straight into the typed object (no `serde_json::Value`), its
/// managedFields skipped by the parser: on pods like a real cluster's, decoding them would make
/// the floor slower than the client it bounds.
#[derive(serde::Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    #[serde(deserialize_with = "without_managed_fields")]
    object: Pod,
}

/// The projection that skips managedFields, held here so a decode borrows it without a
/// reference count to bump per object.
static MANAGED_FIELDS: std::sync::LazyLock<Arc<Projection>> =
    std::sync::LazyLock::new(Projection::managed_fields);

fn without_managed_fields<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Pod, D::Error> {
    ProjectionSeed::new(&MANAGED_FIELDS).deserialize(d)
}

pub(crate) async fn run(options: &Options, report: &mut Report) -> Result<(), String> {
    let started = Instant::now();
    let protobuf = options.mode == "floor-decode-protobuf";
    let decode = options.mode == "floor-decode" || protobuf;
    let mut config = setup::kinformer_config(&options.kubeconfig)?;
    // No gzip: the floor is the cost of decoding alone, and neither kinformer's streaming list
    // (a watch, never compressed) nor kube-rs (built without its gzip feature) inflates.
    config = config.with_compression(false);
    let client = Client::from_config(&config).map_err(|e| e.to_string())?;
    // The same request as kinformer's default first request: a streaming list (the initial
    // events, then the initial-events-end bookmark, then the watch, on one stream).
    let mut request = Request::new(client, Method::GET, "/api/v1/pods");
    if protobuf {
        request = request.header("Accept", floor_protobuf::ACCEPT);
    }
    let stream = request
        .param("watch", "true")
        .param("sendInitialEvents", "true")
        .param("resourceVersionMatch", "NotOlderThan")
        .param("allowWatchBookmarks", "true")
        .stream()
        .await
        .map_err(|e| e.to_string())?;
    let seen = Arc::new(AtomicU64::new(0));
    let lags = Arc::new(LagSamples::default());
    let (synced_tx, synced_rx) = oneshot::channel();
    let reader = if protobuf {
        tokio::spawn(floor_protobuf::read_watch(
            stream,
            synced_tx,
            Arc::clone(&seen),
            Arc::clone(&lags),
        ))
    } else {
        tokio::spawn(read_watch(
            stream,
            decode,
            synced_tx,
            Arc::clone(&seen),
            Arc::clone(&lags),
        ))
    };
    let Ok(pods) = synced_rx.await else {
        return match reader.await.map_err(|e| e.to_string())? {
            Ok(()) => Err("the stream ended before the initial-events-end bookmark".into()),
            Err(e) => Err(e),
        };
    };
    report_sync(options, report, started.elapsed(), pods).await;
    if options.sync_only {
        reader.abort();
        return Ok(());
    }

    let control = Control::new(&options.control)?;
    let burst_started = Instant::now();
    control.burst(options.burst).await?;
    let deadline = burst_started + Duration::from_secs(120);
    while seen.load(Ordering::Relaxed) < options.burst
        && Instant::now() < deadline
        && !reader.is_finished()
    {
        sleep(Duration::from_millis(2)).await;
    }
    let handled = seen.load(Ordering::Relaxed);
    report_burst(report, handled, burst_started);
    if decode {
        // Only the decoding floor sees the stamp; the bytes floor never parses an object.
        sleep(Duration::from_millis(500)).await;
        lag::measure(options, &control, &lags, report).await?;
    }
    if reader.is_finished() {
        return reader.await.map_err(|e| e.to_string())?;
    }
    reader.abort();
    Ok(())
}

/// Whether a watch line is the bookmark that ends a streaming list's initial events.
fn initial_events_end(line: &[u8]) -> bool {
    const END: &[u8] = b"k8s.io/initial-events-end";
    line.starts_with(b"{\"type\":\"BOOKMARK\"") && line.windows(END.len()).any(|w| w == END)
}

/// Reads watch lines, decoding each into the typed event when `decode`, until the stream ends.
/// The initial events are kept (a cache without an index) and counted into `synced` at the
/// initial-events-end bookmark; later events count into `seen`.
async fn read_watch(
    mut stream: impl futures_util::Stream<Item = Result<bytes::Bytes, kinformer_rest::Error>> + Unpin,
    decode: bool,
    synced: oneshot::Sender<usize>,
    seen: Arc<AtomicU64>,
    lags: Arc<LagSamples>,
) -> Result<(), String> {
    let mut pending = Vec::new();
    let mut cache: Vec<Pod> = Vec::new();
    let mut initial = 0_usize;
    let mut synced = Some(synced);
    // Bytes already searched for a newline: a line spanning many chunks is scanned once.
    let mut scanned = 0;
    while let Some(chunk) = stream.next().await {
        pending.extend_from_slice(&chunk.map_err(|e| e.to_string())?);
        let mut start = 0;
        while let Some(end) = memchr::memchr(b'\n', &pending[scanned..]) {
            let line = &pending[start..scanned + end];
            start = scanned + end + 1;
            scanned = start;
            if synced.is_some() && initial_events_end(line) {
                if let Some(tx) = synced.take() {
                    let _ = tx.send(initial);
                }
                continue;
            }
            if decode {
                let event: Event = serde_json::from_slice(line).map_err(|e| e.to_string())?;
                if event.kind == "BOOKMARK" {
                    continue;
                }
                let pod = event.object;
                if synced.is_some() {
                    cache.push(pod);
                } else {
                    lags.record(&pod.metadata);
                }
            } else if line.starts_with(b"{\"type\":\"BOOKMARK\"") {
                continue;
            }
            if synced.is_some() {
                initial += 1;
            } else {
                seen.fetch_add(1, Ordering::Relaxed);
            }
        }
        pending.drain(..start);
        scanned = pending.len();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_initial_events_end_bookmark_is_told_apart() {
        let end = br#"{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"9","annotations":{"k8s.io/initial-events-end":"true"}}}}"#;
        let plain =
            br#"{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"9"}}}"#;
        let added = br#"{"type":"ADDED","object":{"metadata":{"annotations":{"k8s.io/initial-events-end":"x"}}}}"#;
        assert!(super::initial_events_end(end));
        assert!(!super::initial_events_end(plain));
        assert!(!super::initial_events_end(added));
    }
}
