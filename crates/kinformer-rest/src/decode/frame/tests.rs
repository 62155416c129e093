use std::collections::VecDeque;

use k8s_openapi::api::core::v1::Pod;
use proptest::prelude::*;

use super::*;
use crate::decode::WatchDecoder;

fn event(ty: &str, name: &str, rv: u32) -> String {
    format!(
        r#"{{"type":"{ty}","object":{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"ns","resourceVersion":"{rv}","labels":{{"app":"x"}}}},"spec":{{"containers":[{{"name":"c","image":"i"}}]}}}}}}"#
    )
}

fn stream_bytes() -> Vec<u8> {
    let mut out = String::new();
    for i in 0..20 {
        let ty = ["ADDED", "MODIFIED", "DELETED"][i % 3];
        out.push_str(&event(ty, &format!("p{i}"), 100 + i as u32));
        out.push('\n');
    }
    out.push_str(r#"{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"200","annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null}}}"#);
    out.push('\n');
    out.push_str(r#"{"object":{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired"},"type":"ERROR"}"#);
    out.push('\n');
    out.into_bytes()
}

/// A comparable summary of each event.
fn summary(events: VecDeque<Result<WatchEvent<Pod>>>) -> Vec<String> {
    events
        .into_iter()
        .map(|e| match e {
            Ok(WatchEvent::Bookmark(b)) => {
                format!("BOOKMARK {} {}", b.resource_version, b.initial_events_end)
            }
            Ok(WatchEvent::Error(s)) => format!("ERROR {:?}", s.code),
            Ok(ev) => {
                let o = ev.object().unwrap();
                let id = (o.metadata.name.clone(), o.metadata.resource_version.clone());
                format!("{} {id:?}", ev.type_name())
            }
            Err(e) => format!("Err {e}"),
        })
        .collect()
}

fn decode_chunks(chunks: &[&[u8]], max: usize) -> Vec<String> {
    let mut d = WatchDecoder::<Pod>::new(max);
    let mut out = VecDeque::new();
    for c in chunks {
        d.decode(c, &mut out);
    }
    d.finish(&mut out);
    summary(out)
}

#[test]
fn whole_stream_decodes() {
    let bytes = stream_bytes();
    let events = decode_chunks(&[&bytes], 1 << 20);
    assert_eq!(events.len(), 22);
    assert_eq!(events[0], r#"ADDED (Some("p0"), Some("100"))"#);
    assert_eq!(events[20], "BOOKMARK 200 true");
    assert_eq!(events[21], "ERROR Some(410)");
}

#[test]
fn events_without_newlines_and_pretty_printed() {
    let a = event("ADDED", "a", 1);
    let b = event("MODIFIED", "b", 2);
    let joined = format!("{a}{b}  {a}");
    assert_eq!(decode_chunks(&[joined.as_bytes()], 1 << 20).len(), 3);
    let pretty =
        serde_json::to_string_pretty(&serde_json::from_str::<serde_json::Value>(&a).unwrap())
            .unwrap();
    let two = format!("{pretty}\n{pretty}\n");
    let events = decode_chunks(&[two.as_bytes()], 1 << 20);
    assert_eq!(events, [r#"ADDED (Some("a"), Some("1"))"#; 2]);
}

#[test]
fn malformed_event_yields_one_error_and_ends() {
    let good = event("ADDED", "a", 1);
    let input = format!("{good}\n{{\"type\":\"ADDED\",\"object\":[1,2]}}\n{good}\n");
    let events = decode_chunks(&[input.as_bytes()], 1 << 20);
    assert_eq!(events.len(), 2);
    assert!(events[1].starts_with("Err decode error"), "{}", events[1]);
    let unknown = decode_chunks(&[b"{\"type\":\"NOPE\",\"object\":{}}\n"], 1 << 20);
    assert_eq!(unknown.len(), 1);
    assert!(decode_chunks(&[b"not json\n"], 1 << 20)[0].starts_with("Err"));
}

#[test]
fn truncated_stream_is_an_error_not_a_skip() {
    let good = event("ADDED", "a", 1);
    let input = format!("{good}\n{}", &good[..40]);
    let events = decode_chunks(&[input.as_bytes()], 1 << 20);
    assert_eq!(events.len(), 2);
    assert!(events[1].contains("middle of an event"));
}

#[test]
fn oversized_frame_is_typed() {
    let big = event("ADDED", &"x".repeat(5000), 1);
    let mut d = WatchDecoder::<Pod>::new(1024);
    let mut out = VecDeque::new();
    d.decode(&big.as_bytes()[..3000], &mut out);
    let err = out.pop_front().unwrap().unwrap_err();
    assert!(err.is_response_too_large() && err.is_decode());
    d.decode(b"\n", &mut out);
    d.finish(&mut out);
    assert!(out.is_empty());
    // A frame of exactly the limit passes.
    let small = event("ADDED", "a", 1);
    assert_eq!(
        decode_chunks(&[small.as_bytes(), b"\n"], small.len()).len(),
        1
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn any_chunking_decodes_the_same(cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..40)) {
        let bytes = stream_bytes();
        let expected = decode_chunks(&[&bytes], 1 << 20);
        let mut points: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
        points.sort_unstable();
        let mut chunks = Vec::new();
        let mut last = 0;
        for p in points {
            chunks.push(&bytes[last..p]);
            last = p;
        }
        chunks.push(&bytes[last..]);
        prop_assert_eq!(decode_chunks(&chunks, 1 << 20), expected);
    }
}

#[test]
fn buffer_never_grows_past_limit_plus_chunk() {
    const LIMIT: usize = 10_000;
    const CHUNK: usize = 999;
    let mut d = WatchDecoder::<Pod>::new(LIMIT);
    let mut out = VecDeque::new();
    // A small event, then one that never ends (a hostile or broken server).
    let first = format!("{}\n", event("ADDED", "a", 1));
    d.decode(first.as_bytes(), &mut out);
    d.decode(
        br#"{"type":"ADDED","object":{"metadata":{"name":""#,
        &mut out,
    );
    let endless = vec![b'x'; CHUNK];
    let mut fed = 0;
    while !d.is_finished() {
        assert!(fed < 100, "the limit was never enforced");
        d.decode(&endless, &mut out);
        fed += 1;
        assert!(d.buf.len() <= LIMIT + CHUNK, "buffered {}", d.buf.len());
        assert!(
            d.buf.capacity() <= 2 * (LIMIT + CHUNK),
            "{}",
            d.buf.capacity()
        );
    }
    assert!(fed <= LIMIT / CHUNK + 1, "fed {fed} chunks");
    assert!(matches!(out.pop_front(), Some(Ok(WatchEvent::Added(_)))));
    let err = out.pop_front().unwrap().unwrap_err();
    assert!(err.is_response_too_large(), "{err:?}");
    assert!(err.to_string().contains("10000 bytes"), "{err}");
    d.decode(b"\n", &mut out);
    d.finish(&mut out);
    assert!(out.is_empty(), "the stream ends after the error");
}

#[test]
fn oversized_event_is_rejected_however_it_is_chunked() {
    let big = format!("{}\n", event("ADDED", &"x".repeat(5000), 1));
    let limit = big.len() - 100;
    for chunk in [big.len(), 1000, 7] {
        let chunks: Vec<&[u8]> = big.as_bytes().chunks(chunk).collect();
        let events = decode_chunks(&chunks, limit);
        assert_eq!(events.len(), 1, "chunk {chunk}: {events:?}");
        assert!(
            events[0].starts_with("Err response too large"),
            "{events:?}"
        );
        // Within the limit, the same event decodes.
        assert_eq!(decode_chunks(&chunks, big.len())[0].get(..5), Some("ADDED"));
    }
    // A producer without newlines is held to the same limit.
    let bare = event("ADDED", &"y".repeat(5000), 1);
    let events = decode_chunks(&[bare.as_bytes()], bare.len() - 1);
    assert!(
        events[0].starts_with("Err response too large"),
        "{events:?}"
    );
}
