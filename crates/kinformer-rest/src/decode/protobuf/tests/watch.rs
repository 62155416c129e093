use std::collections::VecDeque;
use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{DynamicObject, Fields, Projection, WatchEvent};
use kinformer_protobuf::envelope;
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{enveloped, pod, typed};
use crate::decode::{ProtobufCodec, WatchDecoder};
use crate::error::Result;

/// One event: its type, the apiVersion and kind of its object, and the object's JSON form.
type Event = (&'static str, &'static str, &'static str, Value);

fn events() -> Vec<Event> {
    let mut events: Vec<Event> = (0..6)
        .map(|i| (["ADDED", "MODIFIED", "DELETED"][i % 3], "v1", "Pod", pod(i)))
        .collect();
    events.push((
        "BOOKMARK",
        "v1",
        "Pod",
        json!({"metadata": {"resourceVersion": "200", "annotations": {"k8s.io/initial-events-end": "true"}}}),
    ));
    events.push((
        "ERROR",
        "v1",
        "Status",
        json!({"status": "Failure", "message": "too old resource version: 1 (200)", "reason": "Expired", "code": 410}),
    ));
    events
}

fn json_stream(events: &[Event]) -> Vec<u8> {
    let mut out = Vec::new();
    for (ty, api_version, kind, object) in events {
        let event = json!({"type": ty, "object": typed(api_version, kind, object)});
        serde_json::to_writer(&mut out, &event).unwrap();
        out.push(b'\n');
    }
    out
}

fn pb_stream(events: &[Event]) -> Vec<u8> {
    let mut out = Vec::new();
    for (ty, api_version, kind, object) in events {
        envelope::encode_watch_frame(ty, &enveloped(api_version, kind, object), &mut out);
    }
    out
}

/// Each event as it prints, errors by their kind: equal summaries are equal events.
fn summary<K: std::fmt::Debug>(events: VecDeque<Result<WatchEvent<K>>>) -> Vec<String> {
    events
        .into_iter()
        .map(|e| match e {
            Ok(event) => format!("{event:?}"),
            Err(e) if e.is_response_too_large() => "too large".to_owned(),
            Err(e) if e.is_decode() => "decode error".to_owned(),
            Err(e) => format!("error {e}"),
        })
        .collect()
}

fn from_json<K: DeserializeOwned + std::fmt::Debug>(bytes: &[u8], fields: Fields) -> Vec<String> {
    let mut d = WatchDecoder::<K>::new(1 << 20).with_fields(fields);
    let mut out = VecDeque::new();
    d.decode(bytes, &mut out);
    d.finish(&mut out);
    summary(out)
}

fn from_pb<K: DeserializeOwned + std::fmt::Debug + 'static>(
    chunks: &[&[u8]],
    max: usize,
    fields: Fields,
) -> Vec<String> {
    let mut d = WatchDecoder::<K, ProtobufCodec<K>>::new(max).with_fields(fields);
    let mut out = VecDeque::new();
    for c in chunks {
        d.decode(c, &mut out);
    }
    d.finish(&mut out);
    summary(out)
}

#[test]
fn a_stream_decodes_as_its_json_does_split_anywhere() {
    let events = events();
    let expected = from_json::<Pod>(&json_stream(&events), Fields::All);
    assert_eq!(expected.len(), 8);
    assert!(
        expected[6].contains("initial_events_end: true"),
        "{}",
        expected[6]
    );
    assert!(expected[7].contains("Expired"), "{}", expected[7]);
    let bytes = pb_stream(&events);
    assert_eq!(from_pb::<Pod>(&[&bytes], 1 << 20, Fields::All), expected);
    let ones: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(from_pb::<Pod>(&ones, 1 << 20, Fields::All), expected);
    // Frames straddling many chunks, their length prefixes split too.
    for size in [2, 3, 5, 7, 64, 1000] {
        let chunks: Vec<&[u8]> = bytes.chunks(size).collect();
        assert_eq!(
            from_pb::<Pod>(&chunks, 1 << 20, Fields::All),
            expected,
            "chunks of {size}"
        );
    }
    for cut in (0..=bytes.len()).step_by(13) {
        let (a, b) = bytes.split_at(cut);
        assert_eq!(
            from_pb::<Pod>(&[a, b], 1 << 20, Fields::All),
            expected,
            "cut at {cut}"
        );
    }
}

#[test]
fn dynamic_objects_and_projections_match_json() {
    let mut events = events();
    // A zero time that JSON writes as `null` (a condition's lastProbeTime) is left out by the
    // protobuf decoder: typed objects are equal either way, a JSON value is not.
    for (_, _, _, object) in &mut events {
        if let Some(conditions) = object.pointer_mut("/status/conditions/0") {
            conditions.as_object_mut().unwrap().remove("lastProbeTime");
        }
    }
    let (json, pb) = (json_stream(&events), pb_stream(&events));
    // DynamicObject keeps apiVersion and kind: the protobuf decoder puts them back.
    let dynamic = from_pb::<DynamicObject>(&[&pb], 1 << 20, Fields::All);
    assert_eq!(dynamic, from_json::<DynamicObject>(&json, Fields::All));
    assert!(dynamic[0].contains("kind: \"Pod\""), "{}", dynamic[0]);
    let narrow = Fields::Projected(Arc::new(Projection::keep(["status.phase"]).unwrap()));
    for fields in [Fields::WithoutManagedFields, narrow] {
        let expected = from_json::<Pod>(&json, fields.clone());
        let chunks: Vec<&[u8]> = pb.chunks(97).collect();
        assert_eq!(from_pb::<Pod>(&chunks, 1 << 20, fields), expected);
    }
    assert!(
        !from_pb::<Pod>(&[&pb], 1 << 20, Fields::WithoutManagedFields)[0]
            .contains("kube-controller-manager")
    );
}

#[test]
fn a_frame_over_the_limit_ends_the_stream_from_its_length() {
    let bytes = pb_stream(&events()[..3]);
    let mut lengths = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let len = u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        lengths.push(len as usize);
        at += 4 + len as usize;
    }
    // Only the first length has arrived: the frame is refused before it is buffered.
    let events = from_pb::<Pod>(&[&bytes[..4], &bytes[4..]], lengths[0] - 1, Fields::All);
    assert_eq!(events, ["too large"]);
    // The same when the length itself comes in pieces, behind frames that fit: the first frame
    // larger than every one before it, with the limit just under it.
    let over = (1..lengths.len())
        .find(|&i| lengths[i] > lengths[..i].iter().copied().max().unwrap_or(0))
        .expect("a frame larger than those before it");
    let at: usize = lengths[..over].iter().map(|len| 4 + len).sum();
    let pieces = [
        &bytes[..at - 1],
        &bytes[at - 1..at + 2],
        &bytes[at + 2..at + 3],
        &bytes[at + 3..],
    ];
    let events = from_pb::<Pod>(&pieces, lengths[over] - 1, Fields::All);
    assert_eq!(events.len(), over + 1, "{events:?}");
    assert_eq!(events[over], "too large");
    let largest = lengths.iter().copied().max().unwrap();
    assert_eq!(from_pb::<Pod>(&[&bytes], largest, Fields::All).len(), 3);
    let events = from_pb::<Pod>(&[&bytes], largest - 1, Fields::All);
    assert_eq!(events.last().map(String::as_str), Some("too large"));
}

#[test]
fn cut_garbled_and_unknown_frames_are_typed_errors() {
    let good = pb_stream(&events()[..1]);
    let mut cut = good.clone();
    cut.truncate(good.len() - 1);
    let cut_events = from_pb::<Pod>(&[&cut], 1 << 20, Fields::All);
    assert_eq!(cut_events.len(), 1);
    assert!(
        cut_events[0].contains("ended in the middle of an event"),
        "{cut_events:?}"
    );

    let mut invalid_type = Vec::new();
    envelope::encode_watch_frame(
        "EXPLODED",
        &enveloped("v1", "Pod", &pod(0)),
        &mut invalid_type,
    );
    let mut no_envelope = Vec::new();
    envelope::encode_watch_frame("ADDED", b"{\"kind\":\"Pod\"}", &mut no_envelope);
    let mut unknown_kind = Vec::new();
    let mut widget = Vec::new();
    envelope::encode("example.com/v1", "Widget", b"", &mut widget);
    envelope::encode_watch_frame("ADDED", &widget, &mut unknown_kind);
    let mut wrong_object = Vec::new();
    envelope::encode_watch_frame(
        "ADDED",
        &enveloped("v1", "Status", &json!({"code": 1})),
        &mut wrong_object,
    );
    let garbage = [0, 0, 0, 3, 0xff, 0xff, 0xff];
    for bad in [&invalid_type[..], &no_envelope, &unknown_kind, &garbage] {
        // A good event first, then the bad one, then a good one nobody sees.
        let events = from_pb::<Pod>(&[&good, bad, &good], 1 << 20, Fields::All);
        assert_eq!(events.len(), 2, "{events:?}");
        assert_eq!(events[1], "decode error", "{bad:?}");
    }
    // A Status is no Pod: the Pod refuses its kind, as it does on JSON.
    let wrong = from_pb::<Pod>(&[&wrong_object], 1 << 20, Fields::All);
    assert_eq!(wrong, ["decode error"]);
    let json = br#"{"type":"ADDED","object":{"apiVersion":"v1","kind":"Status","code":1}}"#;
    assert_eq!(wrong, from_json::<Pod>(json, Fields::All));
}

/// Events come first; an error, if any, is the one last item (errors print in lower case,
/// events by their variant's name).
fn at_most_one_error_last(events: &[String]) -> bool {
    let errors = events
        .iter()
        .filter(|e| e.starts_with(|c: char| c.is_ascii_lowercase()))
        .count();
    errors == 0
        || (errors == 1
            && events
                .last()
                .is_some_and(|e| e.starts_with(|c: char| c.is_ascii_lowercase())))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any bytes: events and at most one error, never a panic.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400), chunk in 1usize..40) {
        let chunks: Vec<&[u8]> = bytes.chunks(chunk).collect();
        let events = from_pb::<Pod>(&chunks, 1 << 12, Fields::All);
        prop_assert!(at_most_one_error_last(&events), "{events:?}");
    }

    /// A valid stream with one byte changed: never a panic; at most one error, last.
    #[test]
    fn a_flipped_byte_never_panics(at in 0usize..20_000, to in any::<u8>(), chunk in 1usize..300) {
        let mut bytes = pb_stream(&events());
        let at = at % bytes.len();
        bytes[at] = to;
        let chunks: Vec<&[u8]> = bytes.chunks(chunk).collect();
        let events = from_pb::<Pod>(&chunks, 1 << 20, Fields::All);
        prop_assert!(at_most_one_error_last(&events), "{events:?}");
    }
}
