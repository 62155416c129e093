//! `validate`: one test per rule, with kube-apiserver's exact messages and reasons.

use serde_json::{Value, json};

use super::{messages, with_spec};
use crate::schema::Structural;

fn reasons(schema: &Structural, spec: Value) -> Vec<(String, &'static str)> {
    let obj = json!({"spec": spec});
    schema
        .validate(&obj)
        .into_iter()
        .map(|e| (e.field, e.reason))
        .collect()
}

#[test]
fn wrong_type_and_enum_read_as_kube_writes_them() {
    let s = with_spec(json!({"type": "object", "properties": {
        "size": {"type": "integer"},
        "color": {"type": "string", "enum": ["red", "blue"]},
    }}));
    assert_eq!(
        messages(&s, json!({"size": "string", "color": "green"})),
        [
            "spec.color: Unsupported value: \"green\": supported values: \"red\", \"blue\"",
            "spec.size: Invalid value: \"string\": spec.size in body must be of type integer: \"string\"",
        ]
    );
    assert_eq!(
        reasons(&s, json!({"size": "string", "color": "green"})),
        [
            ("spec.color".to_owned(), "FieldValueNotSupported"),
            ("spec.size".to_owned(), "FieldValueTypeInvalid"),
        ]
    );
    assert!(messages(&s, json!({"size": 3, "color": "red"})).is_empty());
}

#[test]
fn every_type_names_the_value_type() {
    for (ty, value, got) in [
        ("object", json!("x"), "string"),
        ("array", json!({}), "object"),
        ("string", json!(1), "integer"),
        ("integer", json!(true), "boolean"),
        ("number", json!([]), "array"),
        ("boolean", json!(1.5), "number"),
    ] {
        let s = with_spec(
            json!({"type": "object", "properties": {"f": {"type": ty, "items": {"type": "string"}}}}),
        );
        assert_eq!(
            messages(&s, json!({"f": value})),
            [format!(
                "spec.f: Invalid value: \"{got}\": spec.f in body must be of type {ty}: \"{got}\""
            )]
        );
    }
}

#[test]
fn integers_accept_integral_floats_and_numbers_accept_integers() {
    let s = with_spec(
        json!({"type": "object", "properties": {"i": {"type": "integer"}, "n": {"type": "number"}}}),
    );
    assert!(messages(&s, json!({"i": 2.0, "n": 3})).is_empty());
    assert_eq!(
        messages(&s, json!({"i": 2.5})),
        [
            "spec.i: Invalid value: \"number\": spec.i in body must be of type integer: \"number\"",
            "<nil>: Invalid value: \"\": Checked value must be of type integer (default format) in spec.i",
        ]
    );
}

#[test]
fn null_is_refused_unless_nullable() {
    let s = with_spec(json!({"type": "object", "properties": {
        "a": {"type": "string"},
        "b": {"type": "string", "nullable": true},
    }}));
    assert_eq!(
        messages(&s, json!({"a": null, "b": null})),
        ["spec.a: Invalid value: \"null\": spec.a in body must be of type string: \"null\""]
    );
}

#[test]
fn enum_of_numbers_compares_values() {
    let s = with_spec(
        json!({"type": "object", "properties": {"n": {"type": "number", "enum": [1, 2.5]}}}),
    );
    assert!(messages(&s, json!({"n": 1.0})).is_empty());
    assert_eq!(
        messages(&s, json!({"n": 3})),
        ["spec.n: Unsupported value: 3: supported values: \"1\", \"2.5\""]
    );
}

#[test]
fn numeric_bounds() {
    let s = with_spec(json!({"type": "object", "properties": {
        "max": {"type": "integer", "maximum": 10},
        "xmax": {"type": "integer", "maximum": 10, "exclusiveMaximum": true},
        "min": {"type": "number", "minimum": 1.5},
        "xmin": {"type": "number", "minimum": 0, "exclusiveMinimum": true},
        "mult": {"type": "integer", "multipleOf": 3},
        "fmult": {"type": "number", "multipleOf": 0.5},
    }}));
    let got = messages(
        &s,
        json!({"max": 11, "xmax": 10, "min": 1.2, "xmin": 0.0, "mult": 4, "fmult": 0.3}),
    );
    assert_eq!(
        got,
        [
            "spec.fmult: Invalid value: 0.3: spec.fmult in body should be a multiple of 0.5",
            "spec.max: Invalid value: 11: spec.max in body should be less than or equal to 10",
            "spec.min: Invalid value: 1.2: spec.min in body should be greater than or equal to 1.5",
            "spec.mult: Invalid value: 4: spec.mult in body should be a multiple of 3",
            "spec.xmax: Invalid value: 10: spec.xmax in body should be less than 10",
            "spec.xmin: Invalid value: 0: spec.xmin in body should be greater than 0",
        ]
    );
    // An int64 value meets a float bound truncated to int64, as kube-openapi compares them.
    assert!(messages(&s, json!({"min": 1})).is_empty());
    assert!(
        messages(
            &s,
            json!({"max": 10, "xmax": 9, "min": 1.5, "xmin": 0.1, "mult": 9, "fmult": 2.5})
        )
        .is_empty()
    );
}

#[test]
fn int32_format_bounds_the_value() {
    let s = with_spec(
        json!({"type": "object", "properties": {"p": {"type": "integer", "format": "int32"}}}),
    );
    assert_eq!(
        messages(&s, json!({"p": 3_000_000_000_i64})),
        [
            "<nil>: Invalid value: \"\": Checked value must be of type integer with format int32 in spec.p"
        ]
    );
    assert!(messages(&s, json!({"p": 2_147_483_647})).is_empty());
}

#[test]
fn string_limits_and_pattern() {
    let s = with_spec(json!({"type": "object", "properties": {
        "long": {"type": "string", "maxLength": 3},
        "short": {"type": "string", "minLength": 3},
        "pat": {"type": "string", "pattern": "^[a-z]+$"},
    }}));
    assert_eq!(
        messages(&s, json!({"long": "abcd", "short": "ab", "pat": "A1"})),
        [
            "spec.long: Too long: may not be more than 3 bytes",
            "spec.pat: Invalid value: \"A1\": spec.pat in body should match '^[a-z]+$'",
            "spec.short: Invalid value: \"ab\": spec.short in body should be at least 3 chars long",
        ]
    );
    assert_eq!(
        reasons(&s, json!({"long": "abcd"})),
        [("spec.long".to_owned(), "FieldValueTooLong")]
    );
    // Lengths count characters, not bytes.
    assert!(messages(&s, json!({"long": "ééé", "short": "ééé", "pat": "abc"})).is_empty());
}

#[test]
fn formats_kube_checks() {
    let s = with_spec(json!({"type": "object", "properties": {
        "when": {"type": "string", "format": "date-time"},
        "day": {"type": "string", "format": "date"},
        "id": {"type": "string", "format": "uuid"},
        "ignored": {"type": "string", "format": "no-such-format"},
    }}));
    assert!(messages(&s, json!({"when": "2024-02-29T12:00:00Z", "day": "2024-02-29", "id": "0f8fad5b-d9cb-469f-a165-70867728950e", "ignored": "x"})).is_empty());
    assert_eq!(
        messages(
            &s,
            json!({"when": "yesterday", "day": "2023-02-29", "id": "nope"})
        ),
        [
            "spec.day: Invalid value: \"2023-02-29\": spec.day in body must be of type date: \"2023-02-29\"",
            "spec.id: Invalid value: \"nope\": spec.id in body must be of type uuid: \"nope\"",
            "spec.when: Invalid value: \"yesterday\": spec.when in body must be of type date-time: \"yesterday\"",
        ]
    );
}

#[test]
fn array_limits_and_item_paths() {
    let s = with_spec(json!({"type": "object", "properties": {
        "few": {"type": "array", "minItems": 2, "items": {"type": "string"}},
        "many": {"type": "array", "maxItems": 1, "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}},
    }}));
    assert_eq!(
        messages(&s, json!({"few": ["a"], "many": [{"name": "a"}, {}]})),
        [
            "spec.few: Invalid value: 1: spec.few in body should have at least 2 items",
            "spec.many[1].name: Required value",
            "spec.many: Too many: 2: must have at most 1 item",
        ]
    );
}

#[test]
fn object_limits_required_and_additional_properties() {
    let s = with_spec(
        json!({"type": "object", "required": ["labels", "gone"], "properties": {
            "labels": {"type": "object", "maxProperties": 1, "additionalProperties": {"type": "string", "maxLength": 2}},
            "some": {"type": "object", "minProperties": 1, "additionalProperties": {"type": "integer"}},
            "gone": {"type": "string"},
        }}),
    );
    assert_eq!(
        messages(&s, json!({"labels": {"a": "xyz", "b": "ok"}, "some": {}})),
        [
            "spec.labels: Too many: 2: must have at most 1 item",
            "spec.labels.a: Too long: may not be more than 2 bytes",
            "spec.some: Invalid value: 0: spec.some in body should have at least 1 properties",
            "spec.gone: Required value",
        ]
    );
    assert_eq!(
        reasons(&s, json!({"labels": {}, "some": {"a": 1}})),
        [("spec.gone".to_owned(), "FieldValueRequired")]
    );
}

#[test]
fn int_or_string_takes_both() {
    let s = with_spec(
        json!({"type": "object", "properties": {"port": {"x-kubernetes-int-or-string": true}}}),
    );
    assert!(messages(&s, json!({"port": 80})).is_empty());
    assert!(messages(&s, json!({"port": "http"})).is_empty());
    assert_eq!(
        messages(&s, json!({"port": true})),
        [
            "spec.port: Invalid value: \"boolean\": spec.port in body must be of type integer,string: \"boolean\""
        ]
    );
}

#[test]
fn preserved_and_embedded_fields_are_not_checked_beyond_their_schema() {
    let s = with_spec(json!({"type": "object", "properties": {
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
        "pod": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
    }}));
    assert!(
        messages(
            &s,
            json!({"free": {"x": [1, {"y": null}]}, "pod": {"apiVersion": "v1", "kind": "Pod"}})
        )
        .is_empty()
    );
}

#[test]
fn junctors_report_on_nil_with_kube_words() {
    let s = with_spec(json!({"type": "object", "properties": {
        "any": {"type": "integer", "anyOf": [{"minimum": 10}, {"maximum": 0}]},
        "one": {"type": "integer", "oneOf": [{"minimum": 0}, {"maximum": 5}]},
        "all": {"type": "integer", "allOf": [{"minimum": 0}, {"maximum": 5}]},
        "not": {"type": "string", "not": {"enum": ["forbidden"]}},
    }}));
    assert!(messages(&s, json!({"any": 11, "one": 7, "all": 3, "not": "ok"})).is_empty());
    assert_eq!(
        messages(
            &s,
            json!({"any": 5, "one": 3, "all": 9, "not": "forbidden"})
        ),
        [
            "spec.all: Invalid value: 9: spec.all in body should be less than or equal to 5",
            "<nil>: Invalid value: \"\": \"spec.all\" must validate all the schemas (allOf)",
            "<nil>: Invalid value: \"\": \"spec.any\" must validate at least one schema (anyOf)",
            "spec.any: Invalid value: 5: spec.any in body should be greater than or equal to 10",
            "<nil>: Invalid value: \"\": \"spec.not\" must not validate the schema (not)",
            "<nil>: Invalid value: \"\": \"spec.one\" must validate one and only one schema (oneOf). Found 2 valid alternatives",
        ]
    );
}

#[test]
fn root_metadata_is_left_to_the_server() {
    let schema = json!({"type": "object", "properties": {
        "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 2}}},
        "spec": {"type": "object"},
    }});
    let s = Structural::parse(&schema, "p").unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        s.validate(&json!({"metadata": {"name": "long-name"}, "spec": {}}))
            .is_empty()
    );
}

#[test]
fn values_as_deep_as_json_allows_are_walked_without_trouble() {
    let s = with_spec(json!({"type": "object", "properties": {
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
        "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "array", "items": {"type": "integer"}}},
    }}));
    let mut deep = json!(1);
    for _ in 0..120 {
        deep = json!([deep]);
    }
    let obj = json!({"spec": {"free": {"deep": deep}, "set": [[1], [1]]}});
    assert_eq!(s.validate(&obj).len(), 1);
    let mut pruned = json!({"spec": {"gone": deep}});
    assert_eq!(s.prune(&mut pruned), ["spec.gone"]);
}
