//! The checks kube-apiserver makes of a CRD schema's `default`s: none in the root's
//! `apiVersion`, `kind` or `metadata`; each one already pruned; each one valid under its own
//! schema (errors on `<path>.default`, with kube-openapi naming the value's fields from there).

use super::field_error::FieldError;
use super::go_text;
use super::node::{Additional, Node};
use super::{prune, validate};

/// Every problem with the defaults of the (structural) schema `root` at `path`.
pub(super) fn check(root: &Node, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (name, property) in &root.properties {
        let property_path = format!("{path}.properties[{name}]");
        if ["apiVersion", "kind", "metadata"].contains(&name.as_str()) {
            forbid_defaults(property, &property_path, name, &mut errors);
        } else {
            walk(property, &property_path, &mut errors);
        }
    }
    if let Some(items) = &root.items {
        walk(items, &format!("{path}.items"), &mut errors);
    }
    errors
}

/// Defaults are not allowed anywhere under the root's `name` field.
fn forbid_defaults(node: &Node, path: &str, name: &str, errors: &mut Vec<FieldError>) {
    if node.default.is_some() {
        let detail = format!("must not be set in top-level {name}");
        errors.push(FieldError::forbidden(&format!("{path}.default"), &detail));
    }
    for (child, property) in &node.properties {
        forbid_defaults(
            property,
            &format!("{path}.properties[{child}]"),
            name,
            errors,
        );
    }
}

/// Checks the default of `node` and of every node below it. Recursion follows the parsed
/// schema, whose depth `parse` bounds.
fn walk(node: &Node, path: &str, errors: &mut Vec<FieldError>) {
    if let Some(default) = &node.default {
        one(node, default, path, errors);
    }
    for (name, property) in &node.properties {
        walk(property, &format!("{path}.properties[{name}]"), errors);
    }
    if let Some(items) = &node.items {
        walk(items, &format!("{path}.items"), errors);
    }
    if let Some(Additional::Schema(additional)) = &node.additional {
        walk(additional, &format!("{path}.additionalProperties"), errors);
    }
}

fn one(node: &Node, default: &serde_json::Value, path: &str, errors: &mut Vec<FieldError>) {
    let field = format!("{path}.default");
    let mut pruned = default.clone();
    prune::quietly(node, &mut pruned);
    if pruned != *default {
        errors.push(FieldError::invalid(
            &field,
            &go_text::json(default),
            "must not have unknown fields",
        ));
    }
    let mut found = validate::Errors::default();
    validate::node(node, default, None, "", false, &mut found);
    for error in found.0 {
        // kube-openapi names fields from the default's root; apiextensions places them under
        // `<path>.default`, and errors without a field on it.
        let placed = match error.field.as_str() {
            "<nil>" => field.clone(),
            inner => format!("{field}.{inner}"),
        };
        errors.push(error.moved_to(&placed));
    }
}
