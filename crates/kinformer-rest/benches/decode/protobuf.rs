//! The protobuf rows: the same pods, encoded as the API server's protobuf (a `k8s\0`-enveloped
//! `PodList`, and length-prefixed `WatchEvent` frames), decoded by the protobuf decoders against
//! the JSON decoders on the same pods, managedFields skipped on both: objects per second on one
//! core, each encoding's own bytes. Both rows of a pair keep what they decoded until their
//! timing ends (the list and its items, the watch's events), so freeing the pods is timed by
//! neither.

use std::collections::VecDeque;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{Fields, ObjectList, WatchEvent};
use kinformer_protobuf::{Schema, envelope, wire};
use kinformer_rest::decoders::{ListDecoder, ProtobufCodec, ProtobufListCodec, WatchDecoder};

use super::{CHUNK, FRAME, RawList, Rows, interleaved, list_streamed, report_pair};

/// The JSON list `body` as the API server's protobuf list body.
fn list_body(body: &[u8]) -> Vec<u8> {
    let schema = Schema::kubernetes();
    let pod = schema.message_for("v1", "Pod").unwrap();
    let list: serde_json::Value = serde_json::from_slice(body).unwrap();
    let mut raw = Vec::new();
    wire::put_nested::<()>(&mut raw, 1, |meta| {
        let rv = list["metadata"]["resourceVersion"].as_str().unwrap_or("1");
        wire::put_bytes(meta, 2, rv.as_bytes());
        Ok(())
    })
    .unwrap();
    for item in list["items"].as_array().unwrap() {
        let message = kinformer_protobuf::to_vec(schema, pod, item).unwrap();
        wire::put_bytes(&mut raw, 2, &message);
    }
    let mut out = Vec::new();
    envelope::encode("v1", "PodList", &raw, &mut out);
    out
}

/// `events` watch frames cycling over the pods of the JSON list `body`.
fn watch_stream(body: &[u8], events: usize) -> Vec<u8> {
    let schema = Schema::kubernetes();
    let pod = schema.message_for("v1", "Pod").unwrap();
    let raw: RawList<'_> = serde_json::from_slice(body).unwrap();
    let objects: Vec<Vec<u8>> = raw
        .items
        .iter()
        .map(|item| {
            let value: serde_json::Value = serde_json::from_str(item.get()).unwrap();
            let message = kinformer_protobuf::to_vec(schema, pod, &value).unwrap();
            let mut object = Vec::new();
            envelope::encode("v1", "Pod", &message, &mut object);
            object
        })
        .collect();
    let mut out = Vec::new();
    for (i, object) in objects.iter().cycle().take(events).enumerate() {
        let ty = if i % 2 == 0 { "MODIFIED" } else { "ADDED" };
        envelope::encode_watch_frame(ty, object, &mut out);
    }
    out
}

#[inline(never)]
fn list_protobuf(body: &[u8]) -> ObjectList<Pod> {
    let mut decoder =
        ListDecoder::<Pod, ProtobufListCodec<Pod>>::new().with_fields(Fields::WithoutManagedFields);
    for chunk in body.chunks(CHUNK) {
        decoder.decode(chunk).unwrap();
    }
    decoder.finish().unwrap()
}

/// Feeds `stream` in socket-sized chunks to a watch decoder (by its `decode` and `finish`); the
/// events, kept until the timing ends as the list rows keep their objects (an informer keeps them
/// too), so neither row of the pair times freeing the pods it decoded.
#[inline(never)]
fn watch_kept<D>(
    stream: &[u8],
    events: usize,
    mut decoder: D,
    decode: fn(&mut D, &[u8], &mut Events),
    finish: fn(&mut D, &mut Events),
) -> Events {
    let mut ready = VecDeque::with_capacity(events);
    for chunk in stream.chunks(CHUNK) {
        decode(&mut decoder, chunk, &mut ready);
    }
    finish(&mut decoder, &mut ready);
    ready
}

/// The protobuf watch stream, managedFields skipped.
fn watch_protobuf(stream: &[u8], events: usize) -> Events {
    let decoder = WatchDecoder::<Pod, ProtobufCodec<Pod>>::new(FRAME)
        .with_fields(Fields::WithoutManagedFields);
    watch_kept(
        stream,
        events,
        decoder,
        WatchDecoder::decode,
        WatchDecoder::finish,
    )
}

/// The JSON watch stream, managedFields skipped.
fn watch_json(stream: &[u8], events: usize) -> Events {
    let decoder = WatchDecoder::<Pod>::new(FRAME).with_fields(Fields::WithoutManagedFields);
    watch_kept(
        stream,
        events,
        decoder,
        WatchDecoder::decode,
        WatchDecoder::finish,
    )
}

type Events = VecDeque<kinformer_rest::Result<WatchEvent<Pod>>>;

/// Events decoded without an error.
fn decoded(events: &Events) -> usize {
    events.iter().filter(|e| e.is_ok()).count()
}

/// Protobuf against JSON, managedFields skipped on both, for the list and the watch.
pub(super) fn rows(
    row: &Rows<'_>,
    json_list: &[u8],
    json_watch: &[u8],
    pods: usize,
    events: usize,
) {
    if row.only.is_some_and(|only| !"protobuf".contains(only)) {
        return;
    }
    let list = list_body(json_list);
    let (ours, out, theirs, theirs_out) = interleaved(
        || list_protobuf(&list),
        || {
            let decoder = ListDecoder::<Pod>::new().with_fields(Fields::WithoutManagedFields);
            list_streamed(json_list, decoder)
        },
    );
    assert_eq!(
        out.items, theirs_out.items,
        "protobuf and JSON decode to the same pods"
    );
    assert_eq!(out.items.len(), pods);
    drop((out, theirs_out));
    report_pair(
        "list, managedFields skipped: protobuf vs JSON",
        ("protobuf", list.len()),
        ("JSON", json_list.len()),
        pods,
        ours,
        theirs,
    );
    drop(list);
    let stream = watch_stream(json_list, events);
    let (ours, out, theirs, theirs_out) = interleaved(
        || watch_protobuf(&stream, events),
        || watch_json(json_watch, events),
    );
    assert_eq!((decoded(&out), decoded(&theirs_out)), (events, events));
    drop((out, theirs_out));
    report_pair(
        "watch, managedFields skipped: protobuf vs JSON",
        ("protobuf", stream.len()),
        ("JSON", json_watch.len()),
        events,
        ours,
        theirs,
    );
}
