//! Whether a parsed schema is structural, as kube-apiserver checks a CRD's
//! `openAPIV3Schema` before serving it: the invariants of apiextensions' `ValidateStructural`
//! with the per-node rules of CRD validation (`crd_rules`) and of value validations
//! (`value_rules`).

use super::crd_rules::{shape_rules, type_error};
use super::field_error::FieldError;
use super::go_text;
use super::node::{Additional, Node};
use super::value_rules::{completeness, is_int_or_string_pair, value_validation};

/// Where a node sits; the structural rules for an empty `type` depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    Item,
    Field,
}

/// Every reason `root` (at `path`) is not an acceptable structural schema, sorted as
/// kube-apiserver sorts them (by message).
pub(super) fn check(root: &Node, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    invariants(root, Level::Root, path, &mut errors);
    completeness(&root.checks, root, path, path, &mut errors);
    errors.sort_by(|a, b| a.message.cmp(&b.message));
    errors
}

fn invariants(node: &Node, level: Level, path: &str, errors: &mut Vec<FieldError>) {
    shape_rules(node, path, errors);
    if node.ty == "array" && node.items.is_none() {
        errors.push(FieldError::required(
            &format!("{path}.items"),
            "must be specified",
        ));
    }
    if let Some(items) = &node.items {
        invariants(items, Level::Item, &format!("{path}.items"), errors);
    }
    for (name, property) in &node.properties {
        invariants(
            property,
            Level::Field,
            &format!("{path}.properties[{name}]"),
            errors,
        );
    }
    if let Some(additional) = &node.additional {
        if level == Level::Root {
            errors.push(FieldError::forbidden(
                &format!("{path}.additionalProperties"),
                "must not be used at the root",
            ));
        }
        if let Additional::Schema(schema) = additional {
            invariants(
                schema,
                Level::Field,
                &format!("{path}.additionalProperties"),
                errors,
            );
        }
    }
    if node.int_or_string && node.preserve_unknown {
        errors.push(FieldError::invalid(
            &format!("{path}.x-kubernetes-preserve-unknown-fields"),
            "true",
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    if node.int_or_string && node.embedded {
        errors.push(FieldError::invalid(
            &format!("{path}.x-kubernetes-embedded-resource"),
            "true",
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    let int_or_string_any_of = is_int_or_string_pair(&node.checks.any_of);
    let int_or_string_all_of = node
        .checks
        .all_of
        .first()
        .is_some_and(|first| is_int_or_string_pair(&first.checks.any_of));
    value_validation(
        &node.checks,
        int_or_string_any_of,
        int_or_string_all_of,
        path,
        errors,
    );
    type_rules(node, level, path, errors);
    metadata_rules(node, level, path, errors);
}
fn type_rules(node: &Node, level: Level, path: &str, errors: &mut Vec<FieldError>) {
    if node.embedded && node.ty != "object" {
        errors.push(type_error(
            node,
            path,
            "must be object if x-kubernetes-embedded-resource is true",
        ));
    } else if node.ty.is_empty() && !node.int_or_string && !node.preserve_unknown {
        let detail = match level {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        errors.push(FieldError::required(&format!("{path}.type"), detail));
    }
    if node.embedded && node.additional.is_some() {
        errors.push(FieldError::forbidden(
            &format!("{path}.additionalProperties"),
            "must not be used if x-kubernetes-embedded-resource is set",
        ));
    }
    if level == Level::Root && !node.ty.is_empty() && node.ty != "object" {
        errors.push(FieldError::invalid(
            &format!("{path}.type"),
            &go_text::quote(&node.ty),
            "must be object at the root",
        ));
    }
    if node.embedded && !node.preserve_unknown && node.properties.is_empty() {
        errors.push(FieldError::required(
            &format!("{path}.properties"),
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        ));
    }
}

/// `apiVersion`, `kind` and `metadata` of a resource (the root or an embedded one).
fn metadata_rules(node: &Node, level: Level, path: &str, errors: &mut Vec<FieldError>) {
    let resource = level == Level::Root || node.embedded;
    for (name, want) in [("kind", "string"), ("apiVersion", "string")] {
        if let Some(p) = node.property(name).filter(|p| resource && p.ty != want) {
            errors.push(FieldError::invalid(
                &format!("{path}.properties[{name}].type"),
                &go_text::quote(&p.ty),
                "must be string",
            ));
        }
    }
    let Some(metadata) = node.property("metadata") else {
        return;
    };
    let field = format!("{path}.properties[metadata]");
    if resource && metadata.ty != "object" {
        errors.push(FieldError::invalid(
            &format!("{field}.type"),
            &go_text::quote(&metadata.ty),
            "must be object",
        ));
    }
    if level == Level::Root && !only_names(metadata) {
        errors.push(FieldError::forbidden(
            &field,
            "must not specify anything other than name and generateName, but metadata is implicitly specified",
        ));
    }
}

/// Whether a root `metadata` schema says nothing beyond its type and the schemas of `name`
/// and `generateName`, all kube-apiserver lets a CRD restrict there.
fn only_names(m: &Node) -> bool {
    let names_only = m
        .properties
        .iter()
        .all(|(k, _)| k == "name" || k == "generateName");
    names_only
        && m.items.is_none()
        && m.additional.is_none()
        && !m.nullable
        && m.format.is_empty()
        && !m.has_title
        && !m.has_description
        && !m.has_x_validations
        && !m.preserve_unknown
        && !m.int_or_string
        && !m.embedded
        && m.list_type.is_none()
        && m.list_map_keys.is_empty()
        && m.map_type.is_none()
        && m.checks.is_empty()
}
