//! `prune` and `apply_defaults`, as kube-apiserver applies them to a custom resource.

use serde_json::{Value, json};

use crate::schema::Structural;

fn parse(schema: Value) -> Structural {
    Structural::parse(&schema, "p").unwrap_or_else(|e| panic!("schema refused: {e:?}"))
}

#[test]
fn undeclared_fields_go_and_are_reported_sorted() {
    let s = parse(
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "items": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"n": {"type": "object"}}},
        }}}}),
    );
    let mut obj = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g", "whatever": 1},
        "spec": {"foo": 1, "items": [{"name": "a", "bar": 2}], "labels": {"x": "y"},
            "free": {"kept": {"deep": true}, "n": {"gone": 1}}},
        "extra": true});
    assert_eq!(
        s.prune(&mut obj),
        ["extra", "spec.foo", "spec.free.n.gone", "spec.items[0].bar"]
    );
    assert_eq!(
        obj,
        json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g", "whatever": 1},
            "spec": {"items": [{"name": "a"}], "labels": {"x": "y"}, "free": {"kept": {"deep": true}, "n": {}}}})
    );
}

#[test]
fn embedded_resources_keep_type_meta_and_object_meta_only() {
    let s = parse(
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "template": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {"spec": {"type": "object"}}},
        }}}}),
    );
    let mut obj = json!({"spec": {"template": {"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "labels": {"a": "b"}, "bogus": 1}, "spec": {}, "status": {}}}});
    assert_eq!(
        s.prune(&mut obj),
        ["spec.template.metadata.bogus", "spec.template.status"]
    );
    assert_eq!(
        obj,
        json!({"spec": {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": "b"}}, "spec": {}}}})
    );
}

#[test]
fn non_nullable_nulls_without_default_go_on_prune() {
    let s = parse(
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "a": {"type": "string"}, "b": {"type": "string", "nullable": true}, "c": {"type": "string", "default": "x"},
        }}}}),
    );
    let mut obj = json!({"spec": {"a": null, "b": null, "c": null}});
    assert!(s.prune(&mut obj).is_empty());
    assert_eq!(obj, json!({"spec": {"b": null, "c": null}}));
    s.apply_defaults(&mut obj);
    assert_eq!(obj, json!({"spec": {"b": null, "c": "x"}}));
}

#[test]
fn defaults_fill_missing_fields_at_every_depth() {
    let s = parse(
        json!({"type": "object", "properties": {"spec": {"type": "object", "default": {}, "properties": {
            "size": {"type": "integer", "default": 3},
            "nested": {"type": "object", "default": {}, "properties": {"mode": {"type": "string", "default": "fast"}}},
            "list": {"type": "array", "items": {"type": "object", "properties": {"w": {"type": "integer", "default": 1}}}},
            "map": {"type": "object", "additionalProperties": {"type": "object", "properties": {"z": {"type": "boolean", "default": false}}}},
            "keep": {"type": "integer", "default": 9},
        }}}}),
    );
    let mut obj = json!({"metadata": {"name": "g"}});
    s.apply_defaults(&mut obj);
    assert_eq!(
        obj,
        json!({"metadata": {"name": "g"}, "spec": {"size": 3, "nested": {"mode": "fast"}, "keep": 9}})
    );
    let mut obj = json!({"spec": {"list": [{}, {"w": 5}], "map": {"k": {}}, "keep": 1}});
    s.apply_defaults(&mut obj);
    assert_eq!(
        obj,
        json!({"spec": {"size": 3, "nested": {"mode": "fast"}, "list": [{"w": 1}, {"w": 5}], "map": {"k": {"z": false}}, "keep": 1}})
    );
}
