//! The floors: fetch the same list kinformer's first request fetches and only decode it into the
//! same k8s-openapi type (no cache), or only read the bytes; then a raw watch decoded line by line.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::StreamExt as _;
use http::Method;
use k8s_openapi::api::core::v1::Pod;
use kinformer_rest::{Client, Config as RestConfig, Kubeconfig, KubeconfigOptions, Request};
use tokio::time::{Instant, sleep};

use crate::Options;
use crate::control::Control;
use crate::lag::{self, LagSamples};
use crate::measure::{Report, exit_after_sync, peak_rss, rss};

/// A watch event decoded straight into the typed object (no `serde_json::Value`).
#[derive(serde::Deserialize)]
struct Event {
    #[serde(rename = "type")]
    _kind: String,
    object: Pod,
}

pub(crate) async fn run(options: &Options, report: &mut Report) -> Result<(), String> {
    let started = Instant::now();
    let decode = options.mode == "floor-decode";
    let mut config = Kubeconfig::read_from(&options.kubeconfig)
        .and_then(|k| RestConfig::from_custom_kubeconfig(k, &KubeconfigOptions::default()))
        .map_err(|e| e.to_string())?;
    // No gzip: the floor is the cost of decoding alone, and neither kinformer's streaming list
    // (a watch, never compressed) nor kube-rs (built without its gzip feature) inflates.
    config.disable_compression = true;
    let client = Client::from_config(&config).map_err(|e| e.to_string())?;
    let body = Request::new(client.clone(), Method::GET, "/api/v1/pods")
        .param("resourceVersion", "0")
        .param("limit", "500")
        .do_raw()
        .await
        .map_err(|e| e.to_string())?;
    // The decoded list is held like a cache until the steady memory is read: dropping 50,000
    // pods is not part of a sync, and their memory is what a cache would hold.
    let (pods, rv, decoded) = if decode {
        let list: k8s_openapi::List<Pod> =
            serde_json::from_slice(&body).map_err(|e| e.to_string())?;
        let rv = list.metadata.resource_version.clone().unwrap_or_default();
        (list.items.len(), rv, Some(list))
    } else {
        (count_items(&body), list_resource_version(&body), None)
    };
    drop(body);
    report.set("sync_secs", started.elapsed().as_secs_f64());
    report.set("pods", pods);
    report.set("sync_peak_rss", peak_rss());
    exit_after_sync(options, report);
    sleep(Duration::from_secs(1)).await;
    report.set("steady_rss", rss());
    drop(decoded);

    if options.sync_only {
        return Ok(());
    }

    let stream = Request::new(client, Method::GET, "/api/v1/pods")
        .param("watch", "true")
        .param("resourceVersion", &rv)
        .stream()
        .await
        .map_err(|e| e.to_string())?;
    let seen = Arc::new(AtomicU64::new(0));
    let lags = Arc::new(LagSamples::default());
    let reader = tokio::spawn(read_watch(
        stream,
        decode,
        Arc::clone(&seen),
        Arc::clone(&lags),
    ));
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
    report.set("burst_events", handled);
    report.set(
        "events_per_sec",
        handled as f64 / burst_started.elapsed().as_secs_f64(),
    );
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

/// Reads watch lines, decoding each into the typed event when `decode`, until the stream ends.
async fn read_watch(
    mut stream: impl futures_util::Stream<Item = Result<bytes::Bytes, kinformer_rest::Error>> + Unpin,
    decode: bool,
    seen: Arc<AtomicU64>,
    lags: Arc<LagSamples>,
) -> Result<(), String> {
    let mut pending = Vec::new();
    while let Some(chunk) = stream.next().await {
        pending.extend_from_slice(&chunk.map_err(|e| e.to_string())?);
        let mut start = 0;
        while let Some(end) = pending[start..].iter().position(|b| *b == b'\n') {
            let line = &pending[start..start + end];
            if decode {
                let event: Event = serde_json::from_slice(line).map_err(|e| e.to_string())?;
                lags.record(&event.object);
            }
            seen.fetch_add(1, Ordering::Relaxed);
            start += end + 1;
        }
        pending.drain(..start);
    }
    Ok(())
}

/// Items in a list body, counted without decoding (each item opens with `{"metadata":`).
fn count_items(body: &[u8]) -> usize {
    body.windows(12).filter(|w| w == b"{\"metadata\":").count()
}

/// The list's resourceVersion, read from its `metadata`, which comes before the items.
fn list_resource_version(body: &[u8]) -> String {
    const KEY: &[u8] = b"\"resourceVersion\":\"";
    let head = &body[..body.len().min(4096)];
    head.windows(KEY.len())
        .position(|w| w == KEY)
        .map(|at| &head[at + KEY.len()..])
        .and_then(|rest| rest.iter().position(|b| *b == b'"').map(|end| &rest[..end]))
        .map(|rv| String::from_utf8_lossy(rv).into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn resource_version_and_items_are_read_without_decoding() {
        let body = br#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42"},"items":[{"metadata":{"name":"a","resourceVersion":"7"}},{"metadata":{"name":"b"}}]}"#;
        assert_eq!(super::list_resource_version(body), "42");
        assert_eq!(super::count_items(body), 2);
        assert_eq!(super::list_resource_version(b"{}"), "");
    }
}
