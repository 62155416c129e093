//! The protobuf decode floor: the same streaming list as the JSON floor, asked for as protobuf
//! (`Accept: application/vnd.kubernetes.protobuf, application/json`, as client-go asks), its
//! length-prefixed frames decoded straight into the same k8s-openapi type by its generated typed
//! decoder with managedFields skipped, kept in a plain `Vec`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use futures_util::StreamExt as _;
use k8s_openapi::api::core::v1::Pod;
use kinformer_core::Fields;
use kinformer_protobuf::{TypedDecoder, envelope};
use tokio::sync::oneshot;

use crate::lag::LagSamples;

/// What a client asks for to get protobuf where the server has it, JSON elsewhere.
pub(crate) const ACCEPT: &str = "application/vnd.kubernetes.protobuf, application/json";

/// Decodes one enveloped pod, managedFields skipped.
fn decode(object: &[u8], decoder: TypedDecoder<Pod>) -> Result<Pod, String> {
    let unknown = envelope::decode(object).map_err(|e| e.to_string())?;
    if (unknown.api_version, unknown.kind) != ("v1", "Pod") {
        return Err(format!(
            "a {} {} in a pod watch",
            unknown.api_version, unknown.kind
        ));
    }
    decoder.decode(unknown.raw).map_err(|e| e.to_string())
}

/// Reads protobuf watch frames until the stream ends, as the JSON floor reads lines: the initial
/// events kept and counted into `synced` at the initial-events-end bookmark, later events into
/// `seen`.
pub(crate) async fn read_watch(
    mut stream: impl futures_util::Stream<Item = Result<bytes::Bytes, kinformer_rest::Error>> + Unpin,
    synced: oneshot::Sender<usize>,
    seen: Arc<AtomicU64>,
    lags: Arc<LagSamples>,
) -> Result<(), String> {
    let decoder = TypedDecoder::<Pod>::new(&Fields::WithoutManagedFields)
        .ok_or("no typed decoder for pods")?;
    let mut pending: Vec<u8> = Vec::new();
    let mut cache: Vec<Pod> = Vec::new();
    let mut initial = 0_usize;
    let mut synced = Some(synced);
    while let Some(chunk) = stream.next().await {
        pending.extend_from_slice(&chunk.map_err(|e| e.to_string())?);
        let mut start = 0;
        while let Some(len) = pending.get(start..start + 4) {
            let len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
            let Some(frame) = pending.get(start + 4..start + 4 + len) else {
                break;
            };
            start += 4 + len;
            let event = envelope::decode_watch_frame(frame).map_err(|e| e.to_string())?;
            let pod = decode(event.object, decoder)?;
            if event.event_type == "BOOKMARK" {
                let end = pod
                    .metadata
                    .annotations
                    .as_ref()
                    .is_some_and(|a| a.contains_key("k8s.io/initial-events-end"));
                if let (true, Some(tx)) = (end, synced.take()) {
                    let _ = tx.send(initial);
                }
                continue;
            }
            if synced.is_some() {
                cache.push(pod);
                initial += 1;
            } else {
                lags.record(&pod.metadata);
                seen.fetch_add(1, Ordering::Relaxed);
            }
        }
        pending.drain(..start);
    }
    Ok(())
}
