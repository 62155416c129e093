//! The floors: fetch the same list kinformer's first request fetches and only decode it into the
//! same k8s-openapi type (no cache), or only read the bytes; then a raw watch decoded line by line.

use std::time::Duration;

use futures_util::StreamExt as _;
use http::Method;
use k8s_openapi::api::core::v1::Pod;
use kinformer_rest::{Client, Config as RestConfig, Kubeconfig, KubeconfigOptions, Request};
use tokio::time::{Instant, sleep};

use crate::Options;
use crate::control::Control;
use crate::measure::{Report, peak_rss, rss};

/// A watch event decoded straight into the typed object (no `serde_json::Value`).
#[derive(serde::Deserialize)]
struct Event {
    #[serde(rename = "type")]
    _kind: String,
    #[serde(rename = "object")]
    _object: Pod,
}

pub(crate) async fn run(options: &Options, report: &mut Report) -> Result<(), String> {
    let started = Instant::now();
    let decode = options.mode == "floor-decode";
    let config = Kubeconfig::read_from(&options.kubeconfig)
        .and_then(|k| RestConfig::from_custom_kubeconfig(k, &KubeconfigOptions::default()))
        .map_err(|e| e.to_string())?;
    let client = Client::from_config(&config).map_err(|e| e.to_string())?;
    let body = Request::new(client.clone(), Method::GET, "/api/v1/pods")
        .param("resourceVersion", "0")
        .param("limit", "500")
        .do_raw()
        .await
        .map_err(|e| e.to_string())?;
    let pods = if decode {
        let list: k8s_openapi::List<Pod> =
            serde_json::from_slice(&body).map_err(|e| e.to_string())?;
        list.items.len()
    } else {
        count_items(&body)
    };
    let rv = list_resource_version(&body);
    drop(body);
    report.set("sync_secs", started.elapsed().as_secs_f64());
    report.set("pods", pods);
    report.set("sync_peak_rss", peak_rss());
    sleep(Duration::from_secs(1)).await;
    report.set("steady_rss", rss());

    let mut stream = Request::new(client, Method::GET, "/api/v1/pods")
        .param("watch", "true")
        .param("resourceVersion", &rv)
        .stream()
        .await
        .map_err(|e| e.to_string())?;
    let control = Control::new(&options.control)?;
    let burst_started = Instant::now();
    control.burst(options.burst).await?;
    let deadline = burst_started + Duration::from_secs(120);
    let (mut seen, mut pending) = (0_u64, Vec::new());
    while seen < options.burst {
        let chunk = match tokio::time::timeout_at(deadline, stream.next()).await {
            Ok(Some(Ok(chunk))) => chunk,
            Ok(Some(Err(e))) => return Err(e.to_string()),
            Ok(None) | Err(_) => break,
        };
        pending.extend_from_slice(&chunk);
        let mut start = 0;
        while let Some(end) = pending[start..].iter().position(|b| *b == b'\n') {
            let line = &pending[start..start + end];
            if decode {
                serde_json::from_slice::<Event>(line).map_err(|e| e.to_string())?;
            }
            seen += 1;
            start += end + 1;
        }
        pending.drain(..start);
    }
    report.set("burst_events", seen);
    report.set(
        "events_per_sec",
        seen as f64 / burst_started.elapsed().as_secs_f64(),
    );
    Ok(())
}

/// Items in a list body, counted without decoding (each item opens with `{"metadata":`).
fn count_items(body: &[u8]) -> usize {
    body.windows(12).filter(|w| w == b"{\"metadata\":").count()
}

fn list_resource_version(body: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct Meta {
        #[serde(rename = "resourceVersion")]
        resource_version: String,
    }
    #[derive(serde::Deserialize)]
    struct Head {
        metadata: Meta,
    }
    serde_json::from_slice::<Head>(body)
        .map(|h| h.metadata.resource_version)
        .unwrap_or_default()
}
