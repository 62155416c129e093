//! The type meta of embedded resources (`x-kubernetes-embedded-resource`), which
//! kube-apiserver checks after the schema: `apiVersion` and `kind` present, strings, not
//! empty, well formed. Paths in `field.Path` form (`spec.templates[a].kind`).

use serde_json::{Map, Value};

use super::field_error::FieldError;
use super::go_text;
use super::node::{Additional, Node};

/// Every problem with the embedded resources in `obj` (the root itself is not one).
pub(super) fn check(schema: &Node, obj: &Map<String, Value>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    fields(schema, obj, "", &mut errors);
    errors
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// Walks `value` along `schema`; recursion follows the schema, whose depth `parse` bounds.
fn walk(schema: &Node, value: &Value, path: &str, errors: &mut Vec<FieldError>) {
    match value {
        Value::Object(map) => {
            if schema.embedded {
                type_meta(map, path, errors);
            }
            fields(schema, map, path, errors);
        }
        Value::Array(items) => {
            if let Some(item_schema) = &schema.items {
                for (i, item) in items.iter().enumerate() {
                    walk(item_schema, item, &format!("{path}[{i}]"), errors);
                }
            }
        }
        _ => {}
    }
}

fn fields(schema: &Node, map: &Map<String, Value>, path: &str, errors: &mut Vec<FieldError>) {
    for (key, value) in map {
        if let Some(property) = schema.property(key) {
            walk(property, value, &child(path, key), errors);
        } else if let Some(Additional::Schema(additional)) = &schema.additional {
            walk(additional, value, &format!("{path}[{key}]"), errors);
        }
    }
}

fn type_meta(map: &Map<String, Value>, path: &str, errors: &mut Vec<FieldError>) {
    for key in ["apiVersion", "kind"] {
        let field = child(path, key);
        match map.get(key) {
            None => errors.push(FieldError::required(&field, "")),
            Some(Value::String(text)) if text.is_empty() => {
                errors.push(FieldError::invalid(&field, "\"\"", "must not be empty"));
            }
            Some(Value::String(text)) => {
                if let Some(why) = malformed(key, text) {
                    errors.push(FieldError::invalid(&field, &go_text::quote(text), &why));
                }
            }
            Some(other) => {
                errors.push(FieldError::invalid(
                    &field,
                    &go_text::bad_value(other),
                    "must be a string",
                ));
            }
        }
    }
}

/// Why a non-empty `apiVersion` or `kind` is refused, if it is.
fn malformed(key: &str, text: &str) -> Option<String> {
    if key == "apiVersion" {
        return (text.matches('/').count() > 1)
            .then(|| format!("unexpected GroupVersion string: {text}"));
    }
    let lower = text.to_lowercase();
    let bytes = lower.as_bytes();
    let shaped = bytes.first().is_some_and(u8::is_ascii_lowercase)
        && bytes
            .last()
            .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-');
    let mut problems = Vec::new();
    if lower.len() > 63 {
        problems.push("must be no more than 63 characters".to_owned());
    }
    if !shaped {
        problems.push(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
                .to_owned(),
        );
    }
    (!problems.is_empty()).then(|| {
        format!(
            "may have mixed case, but should otherwise match: {}",
            problems.join(",")
        )
    })
}
