//! The rules of CRD validation about one schema node's keywords: supported types, keywords
//! kube-apiserver refuses, and the list and map type extensions.

use super::field_error::FieldError;
use super::go_text;
use super::node::{Additional, Node};

/// The types a CRD schema may declare, in the order kube-apiserver lists them.
const TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];

/// The rules of CRD validation about one node's keywords.
pub(super) fn shape_rules(node: &Node, path: &str, errors: &mut Vec<FieldError>) {
    if !node.ty.is_empty() && !TYPES.contains(&node.ty.as_str()) {
        let supported: Vec<String> = TYPES.iter().map(|t| (*t).to_owned()).collect();
        errors.push(FieldError::not_supported(
            &format!("{path}.type"),
            &go_text::quote(&node.ty),
            &supported,
        ));
    }
    if node.ty == "null" {
        errors.push(FieldError::forbidden(
            &format!("{path}.type"),
            "type cannot be set to null, use nullable as an alternative",
        ));
    }
    if node.checks.unique_items {
        errors.push(FieldError::forbidden(
            &format!("{path}.uniqueItems"),
            "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
        ));
    }
    let exclusive = matches!(
        node.additional,
        Some(Additional::Schema(_)) | Some(Additional::Allows(false))
    );
    if exclusive && !node.properties.is_empty() {
        errors.push(FieldError::forbidden(
            &format!("{path}.additionalProperties"),
            "additionalProperties and properties are mutual exclusive",
        ));
    }
    list_type_rules(node, path, errors);
}

fn list_type_rules(node: &Node, path: &str, errors: &mut Vec<FieldError>) {
    if let Some(list_type) = &node.list_type {
        if node.ty != "array" {
            let detail = "must be array if x-kubernetes-list-type is specified";
            errors.push(type_error(node, path, detail));
        }
        if !matches!(list_type.as_str(), "atomic" | "set" | "map") {
            let supported = ["atomic", "set", "map"].map(str::to_owned);
            let field = format!("{path}.x-kubernetes-list-type");
            errors.push(FieldError::not_supported(
                &field,
                &go_text::quote(list_type),
                &supported,
            ));
        }
    }
    if let Some(map_type) = &node.map_type {
        if node.ty != "object" {
            errors.push(type_error(
                node,
                path,
                "must be object if x-kubernetes-map-type is specified",
            ));
        }
        if !matches!(map_type.as_str(), "atomic" | "granular") {
            let supported = ["atomic", "granular"].map(str::to_owned);
            let field = format!("{path}.x-kubernetes-map-type");
            errors.push(FieldError::not_supported(
                &field,
                &go_text::quote(map_type),
                &supported,
            ));
        }
    }
    let keys_field = format!("{path}.x-kubernetes-list-map-keys");
    if !node.list_map_keys.is_empty() {
        let detail = "must be map if x-kubernetes-list-map-keys is non-empty";
        match node.list_type.as_deref() {
            None => errors.push(FieldError::required(
                &format!("{path}.x-kubernetes-list-type"),
                detail,
            )),
            Some("map") => {}
            Some(other) => errors.push(FieldError::invalid(
                &format!("{path}.x-kubernetes-list-type"),
                &go_text::quote(other),
                detail,
            )),
        }
    }
    if node.list_type.as_deref() != Some("map") {
        return;
    }
    if node.list_map_keys.is_empty() {
        errors.push(FieldError::required(
            &keys_field,
            "must not be empty if x-kubernetes-list-type is map",
        ));
    }
    let Some(items) = &node.items else {
        errors.push(FieldError::required(
            &format!("{path}.items"),
            "must have a schema if x-kubernetes-list-type is map",
        ));
        return;
    };
    if items.ty != "object" {
        errors.push(FieldError::invalid(
            &format!("{path}.items.type"),
            &go_text::quote(&items.ty),
            "must be object if parent array's x-kubernetes-list-type is map",
        ));
        return;
    }
    let keys_value = go_text::json(&serde_json::json!(node.list_map_keys));
    for (i, key) in node.list_map_keys.iter().enumerate() {
        match items.property(key) {
            Some(p) if p.ty == "array" || p.ty == "object" => errors.push(FieldError::invalid(
                &format!("{path}.items.properties[{key}].type"),
                &go_text::quote(&items.ty),
                "must be a scalar type if parent array's x-kubernetes-list-type is map",
            )),
            Some(_) => {}
            None => errors.push(FieldError::invalid(
                &keys_field,
                &keys_value,
                "entries must all be names of item properties",
            )),
        }
        if node.list_map_keys[..i].contains(key) {
            errors.push(FieldError::invalid(
                &keys_field,
                &keys_value,
                "must not contain duplicate entries",
            ));
        }
    }
}

/// `type` is required (empty) or invalid (something else) for `detail`.
pub(super) fn type_error(node: &Node, path: &str, detail: &str) -> FieldError {
    let field = format!("{path}.type");
    if node.ty.is_empty() {
        FieldError::required(&field, detail)
    } else {
        FieldError::invalid(&field, &go_text::quote(&node.ty), detail)
    }
}
