//! A custom resource's schema as kube-apiserver publishes it in `/openapi/v2`: apiextensions
//! converts the CRD's structural schema to what Swagger 2.0 (and kubectl's reading of it) can
//! hold. Junctors go; a nullable value loses its type, items and properties; a value that keeps
//! unknown fields loses its items and properties; an array left without items loses its type;
//! and a nullable property is no longer required.

use serde_json::{Map, Value};

/// Converts `schema` and every schema below it, parents before children (as apiextensions'
/// visitor does, so a parent still sees which children were nullable).
pub(super) fn to_v2(schema: &mut Map<String, Value>) {
    for junctor in ["allOf", "oneOf", "anyOf", "not"] {
        schema.remove(junctor);
    }
    if schema.get("nullable") == Some(&Value::Bool(true)) {
        for key in ["type", "nullable", "items", "properties"] {
            schema.remove(key);
        }
    }
    schema.remove("nullable");
    if schema.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) {
        schema.remove("items");
        schema.remove("properties");
    }
    if !schema.contains_key("items") && schema.get("type").and_then(Value::as_str) == Some("array")
    {
        schema.remove("type");
    }
    let nullable = |s: &Value| s.get("nullable") == Some(&Value::Bool(true));
    let nullable_properties: Vec<String> = match schema.get("properties") {
        Some(Value::Object(properties)) => properties
            .iter()
            .filter(|(_, s)| nullable(s))
            .map(|(name, _)| name.clone())
            .collect(),
        _ => Vec::new(),
    };
    if schema.get("additionalProperties").is_some_and(nullable) {
        schema.remove("required");
    }
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.retain(|name| {
            !name
                .as_str()
                .is_some_and(|n| nullable_properties.iter().any(|p| p == n))
        });
        if required.is_empty() {
            schema.remove("required");
        }
    }
    if let Some(Value::Object(items)) = schema.get_mut("items") {
        to_v2(items);
    }
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for property in properties.values_mut() {
            if let Value::Object(property) = property {
                to_v2(property);
            }
        }
    }
    if let Some(Value::Object(additional)) = schema.get_mut("additionalProperties") {
        to_v2(additional);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn converted(schema: Value) -> Value {
        let Value::Object(mut schema) = schema else {
            unreachable!()
        };
        to_v2(&mut schema);
        Value::Object(schema)
    }

    #[test]
    fn what_swagger_cannot_say_is_dropped_as_apiextensions_drops_it() {
        let schema = json!({
            "type": "object",
            "required": ["a", "b"],
            "properties": {
                "a": {"type": "object", "nullable": true, "properties": {"x": {"type": "string"}}},
                "b": {"type": "string", "oneOf": [{"pattern": "x"}], "not": {"enum": ["y"]}},
                "c": {"type": "array", "x-kubernetes-preserve-unknown-fields": true, "items": {"type": "string"}},
            },
        });
        assert_eq!(
            converted(schema),
            json!({
                "type": "object",
                "required": ["b"],
                "properties": {
                    "a": {},
                    "b": {"type": "string"},
                    "c": {"x-kubernetes-preserve-unknown-fields": true},
                },
            })
        );
    }
}
