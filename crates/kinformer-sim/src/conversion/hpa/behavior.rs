//! `spec.behavior` in the `behavior` annotation. Kubernetes writes its internal type there,
//! which has no JSON tags: the keys are the Go field names (`ScaleUp`, `StabilizationWindowSeconds`)
//! and every pointer is written, `null` when unset.

use serde_json::{Map, Value};

use crate::conversion::go_json::{GoObject, array, field};

/// The internal `HPAScalingRules` fields, in their Go order, with their v2 JSON names.
const RULES: [(&str, &str); 4] = [
    ("StabilizationWindowSeconds", "stabilizationWindowSeconds"),
    ("SelectPolicy", "selectPolicy"),
    ("Policies", "policies"),
    ("Tolerance", "tolerance"),
];

/// The internal `HPAScalingPolicy` fields, likewise.
const POLICY: [(&str, &str); 3] = [
    ("Type", "type"),
    ("Value", "value"),
    ("PeriodSeconds", "periodSeconds"),
];

/// The internal `HorizontalPodAutoscalerBehavior` fields, likewise.
const DIRECTIONS: [(&str, &str); 2] = [("ScaleUp", "scaleUp"), ("ScaleDown", "scaleDown")];

/// A v2 `behavior` as the annotation's text.
pub(super) fn to_annotation(behavior: &Value) -> String {
    DIRECTIONS
        .iter()
        .fold(GoObject::new(), |out, (go, json)| {
            match behavior.get(json).filter(|r| r.is_object()) {
                Some(rules) => out.raw(go, &rules_to_internal(rules)),
                None => out.raw(go, "null"),
            }
        })
        .finish()
}

fn rules_to_internal(rules: &Value) -> String {
    RULES
        .iter()
        .fold(GoObject::new(), |out, (go, json)| match *json {
            "policies" => match rules.get(json).and_then(Value::as_array) {
                Some(list) => out.raw(go, &array(list.iter().map(policy_to_internal))),
                None => out.raw(go, "null"),
            },
            _ => out.or_null(go, rules.get(json)),
        })
        .finish()
}

fn policy_to_internal(policy: &Value) -> String {
    POLICY
        .iter()
        .fold(GoObject::new(), |out, (go, json)| {
            let zero = if *json == "type" {
                Value::String(String::new())
            } else {
                Value::from(0)
            };
            out.value(go, policy.get(json).unwrap_or(&zero))
        })
        .finish()
}

/// The annotation's behavior as v2's, or `None` when it does not parse or sets neither
/// direction (Kubernetes then leaves the behavior unset).
pub(super) fn from_annotation(text: &str) -> Option<Value> {
    let internal: Value = serde_json::from_str(text).ok()?;
    let mut out = Map::new();
    for (go, json) in DIRECTIONS {
        match field(&internal, go) {
            Some(rules) if rules.is_object() => {
                out.insert(json.to_owned(), rules_from_internal(rules));
            }
            Some(_) => return None,
            None => {}
        }
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

fn rules_from_internal(rules: &Value) -> Value {
    let mut out = Map::new();
    for (go, json) in RULES {
        let Some(value) = field(rules, go) else {
            continue;
        };
        let value = match (json, value.as_array()) {
            ("policies", Some(list)) => {
                Value::Array(list.iter().map(policy_from_internal).collect())
            }
            _ => value.clone(),
        };
        out.insert(json.to_owned(), value);
    }
    Value::Object(out)
}

fn policy_from_internal(policy: &Value) -> Value {
    let mut out = Map::new();
    for (go, json) in POLICY {
        let zero = if json == "type" {
            Value::String(String::new())
        } else {
            Value::from(0)
        };
        out.insert(json.to_owned(), field(policy, go).cloned().unwrap_or(zero));
    }
    Value::Object(out)
}
