//! kube-openapi's string, array and object validators.

use serde_json::{Map, Value};

use super::field_error::FieldError;
use super::go_text;
use super::node::{Additional, Node};
use super::validate::{self, Errors, field_of, json_equal};

/// `maxLength`, `minLength`, `pattern`: lengths in characters; only the first failure counts.
pub(super) fn string(node: &Node, text: &str, path: &str, out: &mut Errors) {
    let checks = &node.checks;
    let length = text.chars().count() as i64;
    let field = field_of(path);
    if let Some(max) = checks.max_length.filter(|max| length > *max) {
        out.push(FieldError::too_long(&field, max));
    } else if let Some(min) = checks.min_length.filter(|min| length < *min) {
        let detail = format!("{path} in body should be at least {min} chars long");
        out.push(FieldError::invalid(&field, &go_text::quote(text), &detail));
    } else if let Some((pattern, Some(regex))) = &checks.pattern
        && !regex.is_match(text)
    {
        let detail = format!("{path} in body should match '{pattern}'");
        out.push(FieldError::invalid(&field, &go_text::quote(text), &detail));
    }
}

/// `items` for each element, then `minItems`, `maxItems`, `uniqueItems`.
pub(super) fn array(
    node: &Node,
    items: &[Value],
    old: Option<&Value>,
    path: &str,
    out: &mut Errors,
) {
    if let Some(schema) = &node.items {
        let old_items = old.and_then(Value::as_array).map(Vec::as_slice);
        for (i, item) in items.iter().enumerate() {
            let old_item = old_items.and_then(|olds| correlated(node, item, olds));
            validate::node(schema, item, old_item, &format!("{path}[{i}]"), false, out);
        }
    }
    let checks = &node.checks;
    let field = field_of(path);
    let size = items.len();
    if let Some(min) = checks.min_items.filter(|min| (size as i64) < *min) {
        let detail = format!("{path} in body should have at least {min} items");
        out.push(FieldError::invalid(&field, &size.to_string(), &detail));
    }
    if let Some(max) = checks.max_items.filter(|max| (size as i64) > *max) {
        out.push(FieldError::too_many(&field, size, max));
    }
    let duplicated = || {
        items
            .iter()
            .enumerate()
            .any(|(i, a)| items[..i].iter().any(|b| json_equal(a, b)))
    };
    if checks.unique_items && duplicated() {
        let detail = format!("{path} in body shouldn't contain duplicates");
        out.push(FieldError::invalid(&field, "\"\"", &detail));
    }
}

/// The stored item an updated item corresponds to: only list-type maps correlate items, by
/// their key fields.
fn correlated<'a>(node: &Node, item: &Value, olds: &'a [Value]) -> Option<&'a Value> {
    if node.list_type.as_deref() != Some("map") || node.list_map_keys.is_empty() {
        return None;
    }
    let same_keys = |old: &Value| node.list_map_keys.iter().all(|k| old.get(k) == item.get(k));
    olds.iter().find(|old| same_keys(old))
}

/// `minProperties`, `maxProperties`, undeclared keys (forbidden or checked against
/// `additionalProperties`), declared properties, then `required`.
pub(super) fn object(
    node: &Node,
    map: &Map<String, Value>,
    old: Option<&Value>,
    path: &str,
    root: bool,
    out: &mut Errors,
) {
    let checks = &node.checks;
    let field = field_of(path);
    let size = map.len();
    if let Some(min) = checks.min_properties.filter(|min| (size as i64) < *min) {
        let detail = format!("{path} in body should have at least {min} properties");
        out.push(FieldError::invalid(&field, &size.to_string(), &detail));
    }
    if let Some(max) = checks.max_properties.filter(|max| (size as i64) > *max) {
        out.push(FieldError::too_many(&field, size, max));
    }
    let undeclared = map.iter().filter(|(key, _)| node.property(key).is_none());
    match &node.additional {
        Some(Additional::Allows(false)) => {
            for (key, _) in undeclared {
                let detail = format!("{path}.{key} in body is a forbidden property");
                out.push(FieldError::invalid(&field, &go_text::quote(key), &detail));
            }
        }
        Some(Additional::Schema(schema)) => {
            for (key, value) in undeclared {
                let old_value = old.and_then(|o| o.get(key.as_str()));
                validate::node(
                    schema,
                    value,
                    old_value,
                    &format!("{path}.{key}"),
                    false,
                    out,
                );
            }
        }
        _ => {}
    }
    for (name, schema) in &node.properties {
        if root && name == "metadata" {
            continue;
        }
        if let Some(value) = map.get(name) {
            let child = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}.{name}")
            };
            // The root's type meta is never ratcheted.
            let ratchets = !(root && (name == "apiVersion" || name == "kind"));
            let old_value = old.filter(|_| ratchets).and_then(|o| o.get(name.as_str()));
            validate::node(schema, value, old_value, &child, false, out);
        }
    }
    for name in &checks.required {
        if !map.contains_key(name) {
            out.push(FieldError::required(
                &field_of(&format!("{path}.{name}")),
                "",
            ));
        }
    }
}
