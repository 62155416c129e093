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
fn skip_managed_fields_mode_drops_them_from_every_item() {
    let body = br#"{"metadata":{"resourceVersion":"9"},"items":[
        {"metadata":{"name":"a","managedFields":[{"manager":"m","fieldsV1":{"f:data":{}}}]},"data":{"k":"v"}},
        {"metadata":{"name":"b"}}]}"#;
    for chunk in [1, 7, body.len()] {
        let mut d = ListDecoder::<ConfigMap, crate::SkipManagedFields>::new();
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
