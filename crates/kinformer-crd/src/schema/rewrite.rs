//! The rewrite of one JSON Schema 2020-12 node (as schemars writes it, subschemas inlined) into
//! the OpenAPI v3 subset of a Kubernetes structural schema, children first.
//!
//! A structural schema gives every node one `type` (or `x-kubernetes-int-or-string` /
//! `x-kubernetes-preserve-unknown-fields`), has no `$ref`, and keeps `oneOf`/`anyOf`/`allOf` to
//! value constraints whose properties the node itself declares. Nullability is OpenAPI's
//! `nullable`, not a `null` type.

use serde_json::{Map, Value};

use super::variants;
use crate::error::{Error, Result};

const PRESERVE: &str = "x-kubernetes-preserve-unknown-fields";
const INT_OR_STRING: &str = "x-kubernetes-int-or-string";

/// JSON Schema keywords with no OpenAPI v3 counterpart in `JSONSchemaProps`, dropped so that what
/// the API server gets is what the CRD shows. `uniqueItems: true` is refused by the API server
/// (a set is `x-kubernetes-list-type: set`, which only the author can promise for the items).
const DROPPED: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "$defs",
    "definitions",
    "uniqueItems",
    "deprecated",
    "readOnly",
    "writeOnly",
    "propertyNames",
    "contentEncoding",
    "contentMediaType",
];

/// Rewrites `schema`, found at `path` (`.spec.size`), in place.
pub(super) fn rewrite(schema: &mut Value, path: &str) -> Result<()> {
    match schema {
        // `serde_json::Value` and other "anything" types.
        Value::Bool(true) => {
            *schema = Value::Object(Map::from_iter([(PRESERVE.to_owned(), Value::Bool(true))]));
            Ok(())
        }
        Value::Bool(false) => Err(Error::unsupported(path, "a type that admits no value")),
        Value::Object(node) => rewrite_node(node, path),
        _ => Err(Error::unsupported(path, "a schema that is not an object")),
    }
}

fn rewrite_node(node: &mut Map<String, Value>, path: &str) -> Result<()> {
    if node.contains_key("$ref") {
        return Err(Error::unsupported(
            path,
            "a recursive type (a structural schema cannot refer to itself)",
        ));
    }
    for key in DROPPED {
        node.remove(*key);
    }
    additional_properties(node);
    rewrite_children(node, path)?;

    if let Some(value) = node.remove("const") {
        node.insert("enum".to_owned(), Value::Array(vec![value]));
    }
    if let Some(Value::Array(mut examples)) = node.remove("examples")
        && !examples.is_empty()
    {
        node.insert("example".to_owned(), examples.swap_remove(0));
    }
    exclusive_bound(node, "exclusiveMinimum", "minimum");
    exclusive_bound(node, "exclusiveMaximum", "maximum");
    null_type(node, path)?;
    if let Some(Value::Array(all_of)) = node.remove("allOf") {
        for branch in all_of {
            merge_into(node, branch, path)?;
        }
    }
    variants::any_of(node, path)?;
    variants::one_of(node, path)?;
    optional_int_or_string(node);
    Ok(())
}

/// A map is `additionalProperties: <schema>`; `false` (`deny_unknown_fields`) is the API server's
/// pruning anyway, and `true` beside declared properties (a flattened map of anything) keeps the
/// unknown fields.
fn additional_properties(node: &mut Map<String, Value>) {
    match node.get("additionalProperties") {
        Some(Value::Bool(false)) => {
            node.remove("additionalProperties");
        }
        Some(Value::Bool(true)) if node.contains_key("properties") => {
            node.remove("additionalProperties");
            node.insert(PRESERVE.to_owned(), Value::Bool(true));
        }
        // A flattened map of a typed value cannot sit beside properties either.
        Some(Value::Object(_)) if node.contains_key("properties") => {
            node.remove("additionalProperties");
            node.insert(PRESERVE.to_owned(), Value::Bool(true));
        }
        _ => {}
    }
}

fn rewrite_children(node: &mut Map<String, Value>, path: &str) -> Result<()> {
    if let Some(Value::Object(properties)) = node.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            rewrite(property, &format!("{path}.{name}"))?;
        }
    }
    if let Some(items) = node.get_mut("items") {
        rewrite(items, &format!("{path}[*]"))?;
    }
    if let Some(additional) = node.get_mut("additionalProperties") {
        rewrite(additional, &format!("{path}.*"))?;
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = node.get_mut(key) {
            for branch in branches.iter_mut() {
                rewrite(branch, path)?;
            }
        }
    }
    Ok(())
}

/// JSON Schema 2020-12's `exclusiveMinimum: n` is OpenAPI v3's `minimum: n` with
/// `exclusiveMinimum: true`.
fn exclusive_bound(node: &mut Map<String, Value>, exclusive: &str, bound: &str) {
    if let Some(limit) = node.get(exclusive).filter(|v| v.is_number()).cloned() {
        node.insert(bound.to_owned(), limit);
        node.insert(exclusive.to_owned(), Value::Bool(true));
    }
}

/// `Option<T>`: schemars writes `type: [T, "null"]` (with `null` among an enum's values) or
/// `anyOf: [T, {type: null}]`; OpenAPI says `nullable: true`.
fn null_type(node: &mut Map<String, Value>, path: &str) -> Result<()> {
    let mut nullable = false;
    if let Some(Value::Array(types)) = node.get_mut("type") {
        let before = types.len();
        types.retain(|t| t != "null");
        nullable = types.len() < before;
        match types.len() {
            0 => return Err(Error::unsupported(path, "a value that can only be null")),
            1 => {
                let only = types.swap_remove(0);
                node.insert("type".to_owned(), only);
            }
            _ => {
                return Err(Error::unsupported(
                    path,
                    format!("a value of several types ({types:?})"),
                ));
            }
        }
    } else if node.get("type").is_some_and(|t| t == "null") {
        return Err(Error::unsupported(path, "a value that can only be null"));
    }
    if let Some(Value::Array(any_of)) = node.get_mut("anyOf") {
        let before = any_of.len();
        any_of.retain(|branch| !is_null(branch));
        if any_of.len() < before {
            nullable = true;
            if let [_] = any_of.as_slice() {
                let only = any_of.swap_remove(0);
                node.remove("anyOf");
                merge_into(node, only, path)?;
            }
        }
    }
    if nullable {
        if let Some(Value::Array(values)) = node.get_mut("enum") {
            values.retain(|v| !v.is_null());
        }
        node.insert("nullable".to_owned(), Value::Bool(true));
    }
    Ok(())
}

fn is_null(schema: &Value) -> bool {
    schema.get("type").is_some_and(|t| t == "null")
        || schema
            .get("enum")
            .is_some_and(|e| e.as_array().is_some_and(|e| e.iter().all(Value::is_null)))
}

/// Copies `branch`'s keywords into `node`; the node's own (a field's description) win, and two
/// different values of a validation keyword are a conflict.
pub(super) fn merge_into(node: &mut Map<String, Value>, branch: Value, path: &str) -> Result<()> {
    let Value::Object(branch) = branch else {
        return Err(Error::unsupported(
            path,
            "a subschema that is not an object",
        ));
    };
    for (key, value) in branch {
        match node.get(&key) {
            None => {
                node.insert(key, value);
            }
            Some(existing) if *existing == value => {}
            Some(_) if matches!(key.as_str(), "description" | "default" | "example") => {}
            Some(_) => {
                return Err(Error::unsupported(
                    path,
                    format!("`{key}` is given two different values"),
                ));
            }
        }
    }
    Ok(())
}

/// kube-derive's rule, kept so that a CRD's schema reads the same: an int-or-string property that
/// may be absent (`Option<IntOrString>`, whose schema schemars leaves as it is) may also be null.
fn optional_int_or_string(node: &mut Map<String, Value>) {
    let required: Vec<String> = match node.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(|n| n.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    let Some(Value::Object(properties)) = node.get_mut("properties") else {
        return;
    };
    for (name, property) in properties.iter_mut() {
        if required.contains(name) {
            continue;
        }
        if let Value::Object(property) = property
            && property.get(INT_OR_STRING) == Some(&Value::Bool(true))
        {
            property.insert("nullable".to_owned(), Value::Bool(true));
        }
    }
}

/// Whether `node` has a type, as every node of a structural schema outside `anyOf`, `oneOf`
/// and `allOf` must.
pub(super) fn has_type(node: &Value) -> bool {
    node.get("type").is_some_and(Value::is_string)
        || node.get(INT_OR_STRING) == Some(&Value::Bool(true))
        || node.get(PRESERVE) == Some(&Value::Bool(true))
}
