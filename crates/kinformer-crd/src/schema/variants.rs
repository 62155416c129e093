//! Enums: schemars writes a choice among variants as `oneOf` (tagged and documented enums) or
//! `anyOf` (untagged ones). A structural schema cannot type a value inside those, so the
//! variants' values and properties are hoisted into the node, which keeps only what a value
//! check can say: for an externally tagged enum, `oneOf` the variants' `required` key.

use serde_json::{Map, Value};

use super::rewrite::merge_into;
use crate::error::{Error, Result};

/// `oneOf`: a unit-only enum becomes `type: string` with `enum`; an enum of object variants
/// one object holding every variant's properties.
pub(super) fn one_of(node: &mut Map<String, Value>, path: &str) -> Result<()> {
    let Some(Value::Array(branches)) = node.remove("oneOf") else {
        return Ok(());
    };
    if branches.iter().all(is_string_values) {
        return hoist_strings(node, &branches, path);
    }
    if branches.iter().all(is_object) {
        let keys = hoist_objects(node, &branches, path)?;
        // Exactly one variant's key for an externally tagged enum; other forms (internally
        // tagged, where variants share the tag) are told apart by the tag's value instead.
        if let Some(keys) = keys {
            let only_one = keys
                .into_iter()
                .map(|key| {
                    Value::Object(Map::from_iter([(
                        "required".to_owned(),
                        Value::Array(vec![key]),
                    )]))
                })
                .collect();
            node.insert("oneOf".to_owned(), Value::Array(only_one));
        }
        return Ok(());
    }
    Err(Error::unsupported(
        path,
        "an enum mixing unit and data variants (serialized as a string or an object); use \
         #[serde(tag = \"...\")] or give every variant data",
    ))
}

/// `anyOf` left after `null` was taken out: an untagged enum. Objects merge as in `oneOf`
/// without the one-variant rule; integers and strings are `x-kubernetes-int-or-string`.
pub(super) fn any_of(node: &mut Map<String, Value>, path: &str) -> Result<()> {
    let Some(Value::Array(branches)) = node.remove("anyOf") else {
        return Ok(());
    };
    if branches.iter().all(is_string_values) {
        return hoist_strings(node, &branches, path);
    }
    if branches.iter().all(is_object) {
        hoist_objects(node, &branches, path)?;
        return Ok(());
    }
    let types: Vec<&str> = branches
        .iter()
        .filter_map(|b| b.get("type").and_then(Value::as_str))
        .collect();
    if types.len() == branches.len()
        && types.iter().all(|t| matches!(*t, "integer" | "string"))
        && types.contains(&"integer")
        && types.contains(&"string")
    {
        node.insert("x-kubernetes-int-or-string".to_owned(), Value::Bool(true));
        let only_types = branches
            .iter()
            .map(|b| Value::Object(Map::from_iter([("type".to_owned(), b["type"].clone())])))
            .collect();
        node.insert("anyOf".to_owned(), Value::Array(only_types));
        return Ok(());
    }
    Err(Error::unsupported(
        path,
        "an untagged enum whose variants are of different types",
    ))
}

fn is_string_values(branch: &Value) -> bool {
    branch.get("enum").is_some_and(Value::is_array)
        && branch.get("type").is_none_or(|t| t == "string")
        && branch.get("properties").is_none()
}

fn is_object(branch: &Value) -> bool {
    branch.get("type").is_some_and(|t| t == "object")
}

fn hoist_strings(node: &mut Map<String, Value>, branches: &[Value], path: &str) -> Result<()> {
    let mut values = Vec::new();
    for branch in branches {
        for value in branch["enum"].as_array().into_iter().flatten() {
            if !value.is_string() {
                return Err(Error::unsupported(
                    path,
                    "an enum value that is not a string",
                ));
            }
            if !values.contains(value) {
                values.push(value.clone());
            }
        }
    }
    node.insert("type".to_owned(), Value::from("string"));
    node.insert("enum".to_owned(), Value::Array(values));
    Ok(())
}

/// Declares every variant's properties on `node`, required where every variant requires them.
/// Returns each variant's one required key when each requires exactly one, a different one (an
/// externally tagged enum).
fn hoist_objects(
    node: &mut Map<String, Value>,
    branches: &[Value],
    path: &str,
) -> Result<Option<Vec<Value>>> {
    let mut properties = match node.remove("properties") {
        Some(Value::Object(existing)) => existing,
        _ => Map::new(),
    };
    let mut required: Option<Vec<Value>> = None;
    let mut keys = Vec::new();
    for branch in branches {
        let branch_required = branch
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let own = branch.get("properties").and_then(Value::as_object);
        for (name, property) in own.into_iter().flatten() {
            let mut property = property.clone();
            // A variant's doc comment describes its key, where kubectl explain shows it.
            if let (Some(doc), [key]) = (branch.get("description"), branch_required.as_slice())
                && key == name
                && let Value::Object(p) = &mut property
            {
                p.entry("description").or_insert_with(|| doc.clone());
            }
            add_property(&mut properties, name, property, &format!("{path}.{name}"))?;
        }
        if let [key] = branch_required.as_slice() {
            keys.push(key.clone());
        }
        required = Some(match required {
            None => branch_required,
            Some(so_far) => so_far
                .into_iter()
                .filter(|n| branch_required.contains(n))
                .collect(),
        });
    }
    node.insert("type".to_owned(), Value::from("object"));
    node.insert("properties".to_owned(), Value::Object(properties));
    if let Some(required) = required.filter(|r| !r.is_empty()) {
        let mut all = node
            .remove("required")
            .and_then(|r| r.as_array().cloned())
            .unwrap_or_default();
        for name in required {
            if !all.contains(&name) {
                all.push(name);
            }
        }
        node.insert("required".to_owned(), Value::Array(all));
    }
    let distinct = keys.iter().enumerate().all(|(i, k)| !keys[..i].contains(k));
    Ok((keys.len() == branches.len() && distinct).then_some(keys))
}

/// Two variants may declare the same property: the same schema, or a tag (string values) whose
/// values are unioned.
fn add_property(
    properties: &mut Map<String, Value>,
    name: &str,
    property: Value,
    path: &str,
) -> Result<()> {
    let Some(existing) = properties.get_mut(name) else {
        properties.insert(name.to_owned(), property);
        return Ok(());
    };
    if *existing == property {
        return Ok(());
    }
    if is_string_values(existing) && is_string_values(&property) {
        let more = property["enum"].as_array().cloned().unwrap_or_default();
        if let Some(Value::Array(values)) = existing.get_mut("enum") {
            for value in more {
                if !values.contains(&value) {
                    values.push(value);
                }
            }
        }
        return Ok(());
    }
    let Value::Object(existing) = existing else {
        return Err(Error::unsupported(
            path,
            "a subschema that is not an object",
        ));
    };
    merge_into(existing, property, path)
        .map_err(|_| Error::unsupported(path, "variants declare this field with different schemas"))
}
