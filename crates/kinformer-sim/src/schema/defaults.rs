//! Defaulting as kube-apiserver defaults a custom resource: a missing property with a
//! `default` gets a copy of it, so does a null where the schema does not allow null; then
//! every value is defaulted by its own schema, the inserted defaults included. Recursion
//! follows the schema, so the schema's depth bounds it.

use serde_json::Value;

use super::node::{Additional, Node};

fn non_nullable_null(value: &Value, schema: Option<&Node>) -> bool {
    value.is_null() && schema.is_some_and(|s| !s.nullable)
}

/// Applies the defaults of `schema` to `value`, at every depth.
pub(super) fn apply(schema: &Node, value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (name, property) in &schema.properties {
                let Some(default) = &property.default else {
                    continue;
                };
                let missing = map
                    .get(name)
                    .is_none_or(|v| non_nullable_null(v, Some(property)));
                if missing {
                    map.insert(name.clone(), default.clone());
                }
            }
            let additional = match &schema.additional {
                Some(Additional::Schema(s)) => Some(s.as_ref()),
                _ => None,
            };
            for (key, child) in map.iter_mut() {
                if let Some(property) = schema.property(key) {
                    apply(property, child);
                } else if let Some(additional) = additional {
                    if non_nullable_null(child, Some(additional)) {
                        *child = additional.default.clone().unwrap_or(Value::Null);
                    }
                    apply(additional, child);
                }
            }
        }
        Value::Array(items) => {
            let Some(item_schema) = schema.items.as_deref() else {
                return;
            };
            for item in items {
                if non_nullable_null(item, Some(item_schema)) {
                    *item = item_schema.default.clone().unwrap_or(Value::Null);
                }
                apply(item_schema, item);
            }
        }
        _ => {}
    }
}
