use k8s_openapi::api::core::v1::ConfigMap;
use proptest::prelude::*;

use super::*;
use crate::decode::decode_list;

fn summary(list: &ObjectList<ConfigMap>) -> (String, Option<String>, Option<i64>, Vec<String>) {
    let names = list
        .items
        .iter()
        .map(|c| format!("{:?}{:?}", c.metadata.name, c.data))
        .collect();
    (
        list.resource_version.clone(),
        list.continue_token.clone(),
        list.remaining_item_count,
        names,
    )
}

fn streamed(body: &[u8], chunk: usize) -> Result<ObjectList<ConfigMap>> {
    let mut d = ListDecoder::<ConfigMap>::new();
    for c in body.chunks(chunk.max(1)) {
        d.decode(c)?;
    }
    d.finish()
}

const TRICKY: &str = r#" {
  "kind" : "ConfigMapList", "apiVersion":"v1", "extra": [1, {"a": "]}"}, null, -2.5e3, true],
  "items" : [
    {"metadata":{"name":"a\"}]{["},"data":{"k":"v\\\"}"}},
    {"metadata":{"name":"b","labels":{"x":"y"}},"data":{"emoji":"\u00e9\ud83d\ude00"}}
  ],
  "count": 12345,
  "metadata" : {"resourceVersion":"77","continue":"tok","remainingItemCount":3}
} "#;

#[test]
fn matches_the_slice_decoder_on_tricky_json() {
    let expected = summary(&decode_list::<ConfigMap>(TRICKY.as_bytes()).unwrap());
    for chunk in [1, 2, 3, 7, 64, 4096] {
        assert_eq!(
            summary(&streamed(TRICKY.as_bytes(), chunk).unwrap()),
            expected,
            "chunk {chunk}"
        );
    }
    assert_eq!(expected.3.len(), 2);
    assert_eq!(expected.0, "77");
}

#[test]
fn empty_and_null_items() {
    for body in [
        r#"{}"#,
        r#"{"items":null,"metadata":{}}"#,
        r#"{"items":[]}"#,
        r#"{"metadata":null,"items":[ ]}"#,
    ] {
        let list = streamed(body.as_bytes(), 1).unwrap();
        assert!(list.items.is_empty(), "{body}");
    }
}

#[test]
fn malformed_and_truncated_bodies_are_errors() {
    for body in [
        "[]",
        r#"{"items":{}}"#,
        r#"{"items":[{"metadata":{"name":5}}]}"#,
        r#"{"items":[{}] "#,
        r#"{"items":[{}],}"#,
        r#"{"items" [{}]}"#,
        r#"{"items":[{}]} trailing"#,
        r#"{"items":[{} {}]}"#,
        r#"{"metadata":{"resourceVersion":1}}"#,
        "",
    ] {
        assert!(
            streamed(body.as_bytes(), 3).is_err_and(|e| e.is_decode()),
            "{body:?} should fail"
        );
        assert!(
            decode_list::<ConfigMap>(body.as_bytes()).is_err(),
            "{body:?} should fail both ways"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn any_chunking_matches_the_slice_decoder(
        names in proptest::collection::vec("[a-z\\\\\"{}\\[\\] ]{0,12}", 0..8),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let items: Vec<serde_json::Value> = names
            .iter()
            .map(|n| serde_json::json!({"metadata": {"name": n}, "data": {"k": n}}))
            .collect();
        let body = serde_json::to_vec(&serde_json::json!({
            "apiVersion": "v1", "kind": "ConfigMapList", "items": items,
            "metadata": {"resourceVersion": "5", "continue": ""},
        })).unwrap();
        let expected = summary(&decode_list::<ConfigMap>(&body).unwrap());
        let mut points: Vec<usize> = cuts.iter().map(|i| i.index(body.len() + 1)).collect();
        points.sort_unstable();
        let mut d = ListDecoder::<ConfigMap>::new();
        let mut last = 0;
        for p in points.into_iter().chain([body.len()]) {
            d.decode(&body[last..p]).unwrap();
            last = p;
        }
        prop_assert_eq!(summary(&d.finish().unwrap()), expected);
    }
}

#[test]
fn a_large_item_in_tiny_chunks() {
    let big = "x".repeat(200_000);
    let body = serde_json::to_vec(&serde_json::json!({
        "metadata": {"resourceVersion": "1"},
        "items": [{"metadata": {"name": "big"}, "data": {"k": big}}, {"metadata": {"name": "small"}}],
    }))
    .unwrap();
    let list = streamed(&body, 100).unwrap();
    assert_eq!(list.items.len(), 2);
    assert_eq!(list.items[0].data.as_ref().unwrap()["k"].len(), 200_000);
}

#[test]
fn the_managed_fields_projection_drops_them_from_every_item() {
    let body = br#"{"metadata":{"resourceVersion":"9"},"items":[
        {"metadata":{"name":"a","managedFields":[{"manager":"m","fieldsV1":{"f:data":{}}}]},"data":{"k":"v"}},
        {"metadata":{"name":"b"}}]}"#;
    for chunk in [1, 7, body.len()] {
        let mut d = ListDecoder::<ConfigMap>::new()
            .with_fields(kinformer_core::Fields::WithoutManagedFields);
        for c in body.chunks(chunk) {
            d.decode(c).unwrap();
        }
        let list = d.finish().unwrap();
        assert_eq!(list.resource_version, "9");
        assert_eq!(list.items.len(), 2);
        assert!(
            list.items
                .iter()
                .all(|c| c.metadata.managed_fields.is_none())
        );
        assert_eq!(list.items[0].data.as_ref().unwrap()["k"], "v");
    }
    let full = streamed(body, 5).unwrap();
    assert!(full.items[0].metadata.managed_fields.is_some());
}

#[test]
fn list_buffer_never_grows_past_item_limit_plus_chunk() {
    const LIMIT: usize = 10_000;
    const CHUNK: usize = 999;
    let mut d = ListDecoder::<ConfigMap>::new().with_max_item(LIMIT);
    d.decode(
        br#"{"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"a"}},{"data":{"k":""#,
    )
    .unwrap();
    let endless = vec![b'x'; CHUNK];
    let mut fed = 0;
    let err = loop {
        assert!(fed < 100, "the limit was never enforced");
        fed += 1;
        match d.decode(&endless) {
            Ok(()) => assert!(d.buf.len() <= LIMIT, "buffered {}", d.buf.len()),
            Err(e) => break e,
        }
        assert!(
            d.buf.capacity() <= 2 * (LIMIT + CHUNK),
            "{}",
            d.buf.capacity()
        );
    };
    assert!(d.buf.len() <= LIMIT + CHUNK);
    assert!(fed <= LIMIT / CHUNK + 1, "fed {fed} chunks");
    assert!(err.is_response_too_large() && err.is_decode(), "{err:?}");
    assert!(err.to_string().contains("list item 1"), "{err}");
}

#[test]
fn item_and_body_limits_hold_however_the_body_is_chunked() {
    let body = serde_json::to_vec(&serde_json::json!({
        "metadata": {"resourceVersion": "1"},
        "items": [{"metadata": {"name": "small"}}, {"metadata": {"name": "big"}, "data": {"k": "x".repeat(5000)}}],
    }))
    .unwrap();
    let decode = |chunk: usize, item: usize, body_limit: Option<usize>| {
        let mut d = ListDecoder::<ConfigMap>::new()
            .with_max_item(item)
            .with_max_body(body_limit);
        for c in body.chunks(chunk) {
            d.decode(c)?;
        }
        d.finish()
    };
    for chunk in [body.len(), 1000, 7] {
        let err = decode(chunk, 5000, None).unwrap_err();
        assert!(err.is_response_too_large(), "chunk {chunk}: {err:?}");
        assert!(
            err.to_string().contains("list item 1"),
            "chunk {chunk}: {err}"
        );
        assert_eq!(decode(chunk, 5100, None).unwrap().items.len(), 2);
        let err = decode(chunk, 5100, Some(body.len() - 1)).unwrap_err();
        assert!(err.is_response_too_large(), "chunk {chunk}: {err:?}");
        assert!(err.to_string().contains("list body"), "{err}");
        assert_eq!(
            decode(chunk, 5100, Some(body.len())).unwrap().items.len(),
            2
        );
    }
}

#[test]
fn items_are_decoded_while_tiny_chunks_arrive() {
    let item = serde_json::json!({"metadata": {"name": "n"}, "data": {"k": "v".repeat(300)}});
    let body = serde_json::to_vec(&serde_json::json!({
        "metadata": {"resourceVersion": "1"},
        "items": vec![item; 50],
    }))
    .unwrap();
    let mut d = ListDecoder::<ConfigMap>::new();
    let mut most = 0;
    for c in body.chunks(7) {
        d.decode(c).unwrap();
        most = most.max(d.buf.len());
    }
    // One item in progress (about 350 bytes, retried at twice that), never the whole body.
    assert!(
        most < 1000,
        "buffered up to {most} bytes of a {} byte body",
        body.len()
    );
    assert_eq!(d.finish().unwrap().items.len(), 50);
}
