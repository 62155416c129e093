//! Property: any JSON as a schema, and any JSON as an object under a schema that parsed, is
//! handled without panicking, and every error reads `field: body`.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use crate::schema::Structural;

/// Keys that schemas use, so generated objects often read as (odd) schemas.
const KEYS: [&str; 28] = [
    "type",
    "properties",
    "items",
    "additionalProperties",
    "enum",
    "maximum",
    "minimum",
    "multipleOf",
    "pattern",
    "format",
    "required",
    "default",
    "nullable",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-int-or-string",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "maxLength",
    "minItems",
    "exclusiveMinimum",
    "metadata",
    "spec",
    "a",
];

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        prop::sample::select(vec![
            "object",
            "array",
            "string",
            "integer",
            "number",
            "boolean",
            "set",
            "map",
            "(",
            "^a+$",
            "int32",
            "date-time"
        ])
        .prop_map(|s| json!(s)),
        any::<i64>().prop_map(|i| json!(i)),
        (-3i64..20).prop_map(|i| json!(i)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        (-2.0f64..2.0).prop_map(|f| json!(f)),
        "[a-z(\\[é]{0,6}".prop_map(|s| json!(s)),
    ]
}

fn any_json() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(6, 64, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS.to_vec()), inner), 0..5).prop_map(
                |pairs| Value::Object(
                    pairs
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect::<Map<_, _>>()
                )
            ),
        ]
    })
}

/// Schemas that are mostly structural, with value validations of any (odd) value.
fn schema_like() -> impl Strategy<Value = Value> {
    let extras = prop::collection::vec(
        (
            prop::sample::select(vec![
                "enum",
                "maximum",
                "minimum",
                "multipleOf",
                "pattern",
                "format",
                "maxLength",
                "minItems",
                "nullable",
                "default",
                "exclusiveMinimum",
                "maxProperties",
                "x-kubernetes-int-or-string",
            ]),
            prop_oneof![
                scalar(),
                prop::collection::vec(scalar(), 1..4).prop_map(Value::Array)
            ],
        ),
        0..3,
    );
    let types = prop::sample::select(vec!["string", "integer", "number", "boolean", "object"]);
    let leaf = (types, extras.clone()).prop_map(|(ty, extras)| {
        let mut map: Map<String, Value> =
            extras.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        map.insert("type".to_owned(), json!(ty));
        Value::Object(map)
    });
    leaf.prop_recursive(4, 32, 4, move |inner| {
        let names = prop::sample::select(KEYS.to_vec());
        prop_oneof![
            prop::collection::vec((names, inner.clone()), 1..4).prop_map(|props| {
                let props: Map<String, Value> =
                    props.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
                json!({"type": "object", "properties": props, "required": ["a"]})
            }),
            inner
                .clone()
                .prop_map(|items| json!({"type": "array", "items": items, "maxItems": 2})),
            inner
                .clone()
                .prop_map(|values| json!({"type": "object", "additionalProperties": values})),
            inner.prop_map(
                |items| json!({"type": "array", "items": items, "x-kubernetes-list-type": "set"})
            ),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn any_schema_and_object_are_handled(schema in prop_oneof![1 => any_json(), 3 => schema_like()], mut obj in any_json()) {
        let schema = json!({"type": "object", "properties": {"spec": schema}});
        match Structural::parse(&schema, "s") {
            Err(errors) => {
                prop_assert!(!errors.is_empty());
                for e in &errors {
                    prop_assert!(e.message.starts_with(&format!("{}: ", e.field)), "{:?}", e);
                }
            }
            Ok(parsed) => {
                let mut wrapped = json!({"spec": obj.take()});
                parsed.prune(&mut wrapped);
                parsed.apply_defaults(&mut wrapped);
                for e in parsed.validate(&wrapped) {
                    prop_assert!(!e.field.is_empty());
                    prop_assert!(e.message.starts_with(&format!("{}: ", e.field)), "{:?}", e);
                }
            }
        }
    }
}
