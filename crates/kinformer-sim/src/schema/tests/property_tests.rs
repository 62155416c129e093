//! Property: for generated schemas and objects valid under them, `validate` accepts, `prune`
//! and `apply_defaults` leave a fully specified object unchanged, and breaking one field
//! (wrong type, value outside the enum, over the maximum) yields an error naming that field.

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Map, Value, json};

use crate::schema::Structural;

/// A generated schema: leaves with limits, objects, arrays and string maps.
#[derive(Debug, Clone)]
enum Gen {
    Int {
        max: i64,
        choices: Option<Vec<i64>>,
    },
    Str {
        max_len: usize,
        choices: Option<Vec<String>>,
    },
    Bool,
    Object(Vec<(String, Self)>),
    Array(Box<Self>),
    Map(Box<Self>),
}

fn leaf() -> impl Strategy<Value = Gen> {
    prop_oneof![
        (
            0i64..100,
            prop::option::of(prop::collection::vec(0i64..100, 1..4))
        )
            .prop_map(|(max, choices)| Gen::Int { max, choices }),
        (
            1usize..8,
            prop::option::of(prop::collection::vec("[a-z]{1,5}", 1..4))
        )
            .prop_map(|(max_len, choices)| Gen::Str { max_len, choices }),
        Just(Gen::Bool),
    ]
}

fn gen_schema() -> impl Strategy<Value = Gen> {
    leaf().prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::btree_map("[a-z]{1,6}", inner.clone(), 1..4)
                .prop_map(|props| Gen::Object(props.into_iter().collect())),
            inner.clone().prop_map(|g| Gen::Array(Box::new(g))),
            inner.prop_map(|g| Gen::Map(Box::new(g))),
        ]
    })
}

impl Gen {
    /// The JSON schema, with a (valid) default on every property so defaulting has work to
    /// skip, and every property required.
    fn schema(&self) -> Value {
        match self {
            Self::Int { max, choices } => {
                let mut s = json!({"type": "integer", "minimum": 0, "maximum": max});
                if let Some(c) = choices {
                    s["enum"] = json!(c.iter().map(|v| v.min(max)).collect::<Vec<_>>());
                }
                s
            }
            Self::Str { max_len, choices } => {
                let mut s = json!({"type": "string", "maxLength": max_len});
                if let Some(c) = choices {
                    s["enum"] = json!(c.iter().map(|v| truncate(v, *max_len)).collect::<Vec<_>>());
                }
                s
            }
            Self::Bool => json!({"type": "boolean"}),
            Self::Object(props) => {
                let properties: Map<String, Value> = props
                    .iter()
                    .map(|(k, g)| {
                        let mut s = g.schema();
                        s["default"] = g.some_value();
                        (k.clone(), s)
                    })
                    .collect();
                let required: Vec<&String> = props.iter().map(|(k, _)| k).collect();
                json!({"type": "object", "properties": properties, "required": required})
            }
            Self::Array(items) => json!({"type": "array", "items": items.schema(), "maxItems": 3}),
            Self::Map(values) => json!({"type": "object", "additionalProperties": values.schema()}),
        }
    }

    /// One valid value, used as a default.
    fn some_value(&self) -> Value {
        match self {
            Self::Int { max, choices } => json!(choices.as_ref().map_or(0, |c| c[0].min(*max))),
            Self::Str { max_len, choices } => json!(
                choices
                    .as_ref()
                    .map_or(String::new(), |c| truncate(&c[0], *max_len))
            ),
            Self::Bool => json!(true),
            Self::Object(props) => Value::Object(
                props
                    .iter()
                    .map(|(k, g)| (k.clone(), g.some_value()))
                    .collect(),
            ),
            Self::Array(_) => json!([]),
            Self::Map(_) => json!({}),
        }
    }

    /// Valid, fully specified values.
    fn values(&self) -> BoxedStrategy<Value> {
        match self.clone() {
            Self::Int {
                max,
                choices: Some(c),
            } => prop::sample::select(c)
                .prop_map(move |v| json!(v.min(max)))
                .boxed(),
            Self::Int { max, choices: None } => (0..=max).prop_map(|v| json!(v)).boxed(),
            Self::Str {
                max_len,
                choices: Some(c),
            } => prop::sample::select(c)
                .prop_map(move |v| json!(truncate(&v, max_len)))
                .boxed(),
            Self::Str {
                max_len,
                choices: None,
            } => {
                let chars = prop::sample::select(vec!['a', 'b', 'z', 'é', '-']);
                prop::collection::vec(chars, 0..=max_len)
                    .prop_map(|c| json!(c.into_iter().collect::<String>()))
                    .boxed()
            }
            Self::Bool => any::<bool>().prop_map(|b| json!(b)).boxed(),
            Self::Object(props) => {
                let fields: Vec<BoxedStrategy<(String, Value)>> = props
                    .into_iter()
                    .map(|(k, g)| g.values().prop_map(move |v| (k.clone(), v)).boxed())
                    .collect();
                fields
                    .prop_map(|f| Value::Object(f.into_iter().collect()))
                    .boxed()
            }
            Self::Array(items) => prop::collection::vec(items.values(), 0..=3)
                .prop_map(Value::Array)
                .boxed(),
            Self::Map(values) => prop::collection::btree_map("[a-z]{1,4}", values.values(), 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect()))
                .boxed(),
        }
    }
}

fn truncate(text: &str, max_len: usize) -> String {
    text.chars().take(max_len).collect()
}

/// Every scalar in `value` with the kube-openapi path validation reports it under.
fn leaves(value: &Value, path: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                leaves(v, &format!("{path}.{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                leaves(v, &format!("{path}[{i}]"), out);
            }
        }
        _ => out.push(path.to_owned()),
    }
}

/// The value at a leaf path written by `leaves`.
fn at<'a>(value: &'a mut Value, path: &str) -> Option<&'a mut Value> {
    let pointer: String = path
        .replace('[', ".")
        .replace(']', "")
        .split('.')
        .map(|part| format!("/{part}"))
        .collect();
    value.pointer_mut(&pointer)
}

fn case() -> impl Strategy<Value = (Gen, Value)> {
    gen_schema()
        .prop_map(|g| {
            Gen::Object(vec![(
                "spec".to_owned(),
                Gen::Object(vec![("f".to_owned(), g)]),
            )])
        })
        .prop_flat_map(|g| {
            let values = g.values();
            (Just(g), values)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn valid_objects_pass_and_round_trip((g, value) in case()) {
        let schema = Structural::parse(&g.schema(), "p").map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert_eq!(schema.validate(&value), vec![]);
        let mut copy = value.clone();
        prop_assert!(schema.prune(&mut copy).is_empty());
        schema.apply_defaults(&mut copy);
        prop_assert_eq!(copy, value);
    }

    #[test]
    fn one_broken_field_is_named((g, value) in case(), pick: Index, how in 0..3u8) {
        let schema = Structural::parse(&g.schema(), "p").map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        let mut paths = Vec::new();
        leaves(&value, "", &mut paths);
        // An empty array or map as the field: break the field itself.
        let path = if paths.is_empty() {
            "spec.f".to_owned()
        } else {
            paths[pick.index(paths.len())].trim_start_matches('.').to_owned()
        };
        let mut broken = value.clone();
        let Some(leaf) = at(&mut broken, &path) else {
            return Err(TestCaseError::fail(format!("no value at {path}")));
        };
        *leaf = match (how, &*leaf) {
            // Over the maximum (0..100), or out of any enum, for integers.
            (1, Value::Number(_)) => json!(1000),
            // Out of any enum (and over maxLength) for strings.
            (2, Value::String(_)) => json!("not-in-any-enum"),
            // Otherwise a wrong type.
            (_, Value::String(_)) => json!(7),
            (_, _) => json!("wrong"),
        };
        let errors = schema.validate(&broken);
        prop_assert!(
            errors.iter().any(|e| e.field == path),
            "no error names {}: {:?}", path, errors
        );
    }
}
