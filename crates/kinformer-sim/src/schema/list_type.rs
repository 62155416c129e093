//! `x-kubernetes-list-type: set` and `map`: items (or map keys) must be unique, checked after
//! the schema as kube-apiserver does, with paths in `field.Path` form (`spec.labels[foo]`).

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::field_error::FieldError;
use super::go_text;
use super::node::{Additional, Node};

/// Every duplicate in the object's sets and map lists, in the order kube reports them.
pub(super) fn check(schema: &Node, obj: &Map<String, Value>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    object(schema, obj, "", &mut errors);
    errors
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

fn object(schema: &Node, obj: &Map<String, Value>, path: &str, errors: &mut Vec<FieldError>) {
    if let Some(Additional::Schema(additional)) = &schema.additional {
        for (key, value) in obj {
            any(additional, value, &format!("{path}[{key}]"), errors);
        }
    }
    for (key, value) in obj {
        if let Some(property) = schema.property(key) {
            any(property, value, &child(path, key), errors);
        }
    }
}

fn any(schema: &Node, value: &Value, path: &str, errors: &mut Vec<FieldError>) {
    match value {
        Value::Array(items) => array(schema, items, path, errors),
        Value::Object(map) => object(schema, map, path, errors),
        _ => {}
    }
}

fn array(schema: &Node, items: &[Value], path: &str, errors: &mut Vec<FieldError>) {
    match schema.list_type.as_deref() {
        Some("set") => {
            for i in repeated(items.iter().map(identity)) {
                errors.push(FieldError::duplicate(
                    &format!("{path}[{i}]"),
                    &go_text::bad_value(&items[i]),
                ));
            }
        }
        Some("map") => map_list(schema, items, path, errors),
        _ => {}
    }
    if let Some(item_schema) = &schema.items {
        for (i, item) in items.iter().enumerate() {
            any(item_schema, item, &format!("{path}[{i}]"), errors);
        }
    }
}

/// What makes two items the same for kube: compound values by their JSON, scalars by Go type
/// and value (so `1` and `1.0` differ).
fn identity(value: &Value) -> String {
    match value {
        Value::Object(_) | Value::Array(_) => format!("json:{}", go_text::json(value)),
        Value::Number(n) if n.as_i64().is_none() => format!("float:{}", go_text::number(n)),
        other => format!("scalar:{}", go_text::json(other)),
    }
}

/// The indices where an identity is seen for the second time (not the third and later).
fn repeated(identities: impl Iterator<Item = String>) -> Vec<usize> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut indices = Vec::new();
    for (i, id) in identities.enumerate() {
        let count = seen.entry(id).or_insert(0);
        *count += 1;
        if *count == 2 {
            indices.push(i);
        }
    }
    indices
}

fn map_list(schema: &Node, items: &[Value], path: &str, errors: &mut Vec<FieldError>) {
    if let Some((i, item)) = items
        .iter()
        .enumerate()
        .find(|(_, x)| !x.is_null() && !x.is_object())
    {
        let field = format!("{path}[{i}]");
        errors.push(FieldError::invalid(
            &field,
            &go_text::bad_value(item),
            "must be an object for an array of list-type map",
        ));
        return;
    }
    let keys: Vec<Value> = items
        .iter()
        .map(|item| {
            let mut key = Map::new();
            for name in &schema.list_map_keys {
                if let Some(v) = item.get(name) {
                    key.insert(name.clone(), v.clone());
                }
            }
            Value::Object(key)
        })
        .collect();
    let identities = keys.iter().map(|key| match key.as_object() {
        // One key field: its value alone is the identity, typed as a scalar is.
        Some(map) if schema.list_map_keys.len() == 1 => map
            .values()
            .next()
            .map_or_else(|| "unset".to_owned(), identity),
        _ => identity(key),
    });
    for i in repeated(identities) {
        errors.push(FieldError::duplicate(
            &format!("{path}[{i}]"),
            &go_text::json(&keys[i]),
        ));
    }
}
