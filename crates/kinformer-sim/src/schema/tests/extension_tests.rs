//! `validate` and `validate_update` for the Kubernetes extensions: list types, embedded
//! resources, and ratcheting on update.

use serde_json::json;

use super::{messages, with_spec};

#[test]
fn list_type_set_and_map_report_duplicates() {
    let s = with_spec(json!({"type": "object", "properties": {
        "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}},
    }}));
    let obj = json!({"spec": {"tags": ["a", "b", "a", "a"], "ports": [{"name": "http", "port": 80}, {"name": "http", "port": 81}]}});
    let got: Vec<(String, String, &str)> = s
        .validate(&obj)
        .into_iter()
        .map(|e| (e.field.clone(), e.body().to_owned(), e.reason))
        .collect();
    let mut got = got;
    got.sort();
    assert_eq!(
        got,
        [
            (
                "spec.ports[1]".to_owned(),
                "Duplicate value: {\"name\":\"http\"}".to_owned(),
                "FieldValueDuplicate"
            ),
            (
                "spec.tags[2]".to_owned(),
                "Duplicate value: \"a\"".to_owned(),
                "FieldValueDuplicate"
            ),
        ]
    );
}

#[test]
fn embedded_resources_need_their_type_meta() {
    let s = with_spec(json!({"type": "object", "properties": {
        "pods": {"type": "object", "additionalProperties": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}},
    }}));
    assert!(
        messages(
            &s,
            json!({"pods": {"a": {"apiVersion": "v1", "kind": "Pod"}}})
        )
        .is_empty()
    );
    assert_eq!(
        messages(
            &s,
            json!({"pods": {"a": {"kind": ""}, "b": {"apiVersion": "a/b/c", "kind": 3}}})
        ),
        [
            "spec.pods[a].apiVersion: Required value",
            "spec.pods[a].kind: Invalid value: \"\": must not be empty",
            "spec.pods[b].apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c",
            "spec.pods[b].kind: Invalid value: 3: must be a string",
        ]
    );
}

#[test]
fn updates_ratchet_errors_in_unchanged_values() {
    let s = with_spec(json!({"type": "object", "properties": {
        "size": {"type": "integer", "maximum": 10},
        "name": {"type": "string", "maxLength": 3},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer", "maximum": 100}}}},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 2}},
    }}));
    let old = json!({"spec": {"size": 50, "name": "long", "ports": [{"name": "a", "port": 500}], "tags": ["xyz"]}});
    // Only the changed size is reported; the map-list item moved but kept its key and value.
    let new = json!({"spec": {"size": 60, "name": "long", "ports": [{"name": "b", "port": 1}, {"name": "a", "port": 500}], "tags": ["xyz", "a"]}});
    let fields: Vec<String> = s
        .validate_update(&new, &old)
        .into_iter()
        .map(|e| e.field)
        .collect();
    // Atomic lists do not correlate their items: the changed list reports its old tag again.
    assert_eq!(fields, ["spec.size", "spec.tags[0]"]);
    assert_eq!(s.validate(&new).len(), 4);
    assert!(s.validate_update(&old, &old).is_empty());
}
