//! `Structural::parse`: what kube-apiserver refuses in a CRD's `openAPIV3Schema`.

use serde_json::{Value, json};

use crate::schema::Structural;

const PREFIX: &str = "spec.versions[0].schema.openAPIV3Schema";

fn refusals(schema: Value) -> Vec<String> {
    match Structural::parse(&schema, PREFIX) {
        Ok(_) => Vec::new(),
        Err(errors) => errors.into_iter().map(|e| e.message).collect(),
    }
}

#[test]
fn a_plain_schema_is_structural() {
    assert!(
        refusals(json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "size": {"type": "integer", "default": 1},
                "ports": {"type": "array", "items": {"x-kubernetes-int-or-string": true}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "raw": {"x-kubernetes-preserve-unknown-fields": true},
            }},
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
        }}))
        .is_empty()
    );
}

#[test]
fn missing_types_are_required_per_level() {
    assert_eq!(
        refusals(json!({"properties": {
            "spec": {"properties": {"list": {"type": "array", "items": {}}}},
        }})),
        [
            format!(
                "{PREFIX}.properties[spec].properties[list].items.type: Required value: must not be empty for specified array items"
            ),
            format!(
                "{PREFIX}.properties[spec].type: Required value: must not be empty for specified object fields"
            ),
            format!("{PREFIX}.type: Required value: must not be empty at the root"),
        ]
    );
}

#[test]
fn arrays_need_items_and_root_is_an_object() {
    assert_eq!(
        refusals(json!({"type": "array"})),
        [
            format!("{PREFIX}.items: Required value: must be specified"),
            format!("{PREFIX}.type: Invalid value: \"array\": must be object at the root"),
        ]
    );
}

#[test]
fn value_validations_must_not_carry_structure() {
    assert_eq!(
        refusals(
            json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {"a": {"type": "string"}},
            "anyOf": [{"type": "object", "description": "x", "properties": {"a": {"nullable": true}}}]}}})
        ),
        [
            format!(
                "{PREFIX}.properties[spec].anyOf[0].description: Forbidden: must be empty to be structural"
            ),
            format!(
                "{PREFIX}.properties[spec].anyOf[0].properties[a].nullable: Forbidden: must be false to be structural"
            ),
            format!(
                "{PREFIX}.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural"
            ),
        ]
    );
}

#[test]
fn value_validations_may_only_name_declared_fields() {
    assert_eq!(
        refusals(
            json!({"type": "object", "properties": {"spec": {"type": "object"}}, "allOf": [{"properties": {"other": {}}}]})
        ),
        [format!(
            "{PREFIX}.properties[other]: Required value: because it is defined in {PREFIX}.allOf[0].properties[other]"
        )]
    );
}

#[test]
fn int_or_string_patterns_may_name_types() {
    assert!(
        refusals(
            json!({"type": "object", "properties": {"port": {"x-kubernetes-int-or-string": true,
        "anyOf": [{"type": "integer"}, {"type": "string"}]}}})
        )
        .is_empty()
    );
}

#[test]
fn root_metadata_may_only_restrict_names() {
    assert!(
        refusals(
            json!({"type": "object", "properties": {"metadata": {"type": "object",
        "properties": {"name": {"type": "string", "maxLength": 10}}}}})
        )
        .is_empty()
    );
    assert_eq!(
        refusals(
            json!({"type": "object", "properties": {"metadata": {"type": "object", "properties": {"labels": {"type": "object"}}}}})
        ),
        [format!(
            "{PREFIX}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"
        )]
    );
}

#[test]
fn crd_schema_rules() {
    assert_eq!(
        refusals(
            json!({"type": "object", "additionalProperties": {"type": "string"}, "properties": {
                "a": {"type": "array", "uniqueItems": true, "items": {"type": "string"}},
                "b": {"type": "string", "pattern": "("},
                "c": {"type": "foo"},
                "d": {"$ref": "#/x", "type": "string"},
            }})
        ),
        [
            format!(
                "{PREFIX}.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive"
            ),
            format!("{PREFIX}.additionalProperties: Forbidden: must not be used at the root"),
            format!(
                "{PREFIX}.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic"
            ),
            format!(
                "{PREFIX}.properties[b].pattern: Invalid value: \"(\": must be a valid regular expression, but isn't: error parsing regexp: unclosed group"
            ),
            format!(
                "{PREFIX}.properties[c].type: Unsupported value: \"foo\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\""
            ),
            format!("{PREFIX}.properties[d].$ref: Forbidden: $ref is not supported"),
        ]
    );
}

#[test]
fn embedded_resources_and_list_types() {
    assert_eq!(
        refusals(json!({"type": "object", "properties": {
            "e": {"type": "string", "x-kubernetes-embedded-resource": true},
            "l": {"type": "array", "x-kubernetes-list-type": "map", "items": {"type": "string"}},
        }})),
        [
            format!(
                "{PREFIX}.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"
            ),
            format!(
                "{PREFIX}.properties[e].type: Invalid value: \"string\": must be object if x-kubernetes-embedded-resource is true"
            ),
            format!(
                "{PREFIX}.properties[l].items.type: Invalid value: \"string\": must be object if parent array's x-kubernetes-list-type is map"
            ),
            format!(
                "{PREFIX}.properties[l].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map"
            ),
        ]
    );
}

#[test]
fn anything_is_refused_without_panic() {
    for schema in [
        json!(null),
        json!(1),
        json!("x"),
        json!([]),
        json!({"properties": 3}),
        json!({"items": [{}]}),
        json!({"type": 1, "enum": {}, "maximum": "x", "required": [1], "allOf": {}, "not": 2}),
    ] {
        assert!(!refusals(schema).is_empty());
    }
    let mut deep = json!({"type": "object"});
    for _ in 0..100 {
        deep = json!({"type": "object", "properties": {"a": deep}});
    }
    let refused = refusals(deep);
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].ends_with("Forbidden: must not be nested more than 64 levels deep"));
}

#[test]
fn defaults_must_be_pruned_valid_and_outside_top_level_metadata() {
    assert_eq!(
        refusals(json!({"type": "object", "properties": {
            "metadata": {"type": "object", "default": {}},
            "spec": {"type": "object", "properties": {
                "size": {"type": "integer", "default": "big"},
                "opts": {"type": "object", "default": {"mode": 1, "extra": true}, "properties": {"mode": {"type": "string"}}},
            }},
        }})),
        [
            format!(
                "{PREFIX}.properties[metadata].default: Forbidden: must not be set in top-level metadata"
            ),
            format!(
                "{PREFIX}.properties[spec].properties[opts].default.mode: Invalid value: \"integer\": mode in body must be of type string: \"integer\""
            ),
            format!(
                "{PREFIX}.properties[spec].properties[opts].default: Invalid value: {{\"extra\":true,\"mode\":1}}: must not have unknown fields"
            ),
            format!(
                "{PREFIX}.properties[spec].properties[size].default: Invalid value: \"string\":  in body must be of type integer: \"string\""
            ),
        ]
    );
}
