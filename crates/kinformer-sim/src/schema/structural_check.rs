//! Whether a parsed schema is structural, as kube-apiserver checks a CRD's
//! `openAPIV3Schema` before serving it: the invariants of apiextensions' `ValidateStructural`
//! and the per-node rules of CRD validation that concern the schema's shape.

use super::field_error::FieldError;
use super::go_text;
use super::node::{Additional, Checks, Node};

/// Where a node sits; the structural rules for an empty `type` depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    Item,
    Field,
}

/// The types a CRD schema may declare, in the order kube-apiserver lists them.
const TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];

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

/// The rules of CRD validation about one node's keywords.
fn shape_rules(node: &Node, path: &str, errors: &mut Vec<FieldError>) {
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
fn type_error(node: &Node, path: &str, detail: &str) -> FieldError {
    let field = format!("{path}.type");
    if node.ty.is_empty() {
        FieldError::required(&field, detail)
    } else {
        FieldError::invalid(&field, &go_text::quote(&node.ty), detail)
    }
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

/// `anyOf: [{type: integer}, {type: string}]`, the one place value validations may name types.
fn is_int_or_string_pair(any_of: &[Node]) -> bool {
    matches!(any_of, [a, b] if a.ty == "integer" && b.ty == "string" && bare_type(a) && bare_type(b))
}

fn bare_type(n: &Node) -> bool {
    n.properties.is_empty()
        && n.items.is_none()
        && n.additional.is_none()
        && n.checks.is_empty()
        && !n.nullable
}

fn value_validation(
    checks: &Checks,
    skip_any_of: bool,
    skip_first_all_of_any_of: bool,
    path: &str,
    errors: &mut Vec<FieldError>,
) {
    if !skip_any_of {
        for (i, n) in checks.any_of.iter().enumerate() {
            nested(n, false, &format!("{path}.anyOf[{i}]"), errors);
        }
    }
    for (i, n) in checks.all_of.iter().enumerate() {
        nested(
            n,
            skip_first_all_of_any_of && i == 0,
            &format!("{path}.allOf[{i}]"),
            errors,
        );
    }
    for (i, n) in checks.one_of.iter().enumerate() {
        nested(n, false, &format!("{path}.oneOf[{i}]"), errors);
    }
    if let Some(n) = &checks.not {
        nested(n, false, &format!("{path}.not"), errors);
    }
    if let Some((pattern, None)) = &checks.pattern {
        let why = super::pattern::compile(pattern).err().unwrap_or_default();
        errors.push(FieldError::invalid(
            &format!("{path}.pattern"),
            &go_text::quote(pattern),
            &format!("must be a valid regular expression, but isn't: {why}"),
        ));
    }
}

/// A node under `allOf`/`anyOf`/`oneOf`/`not`: value validations only.
fn nested(n: &Node, skip_any_of: bool, path: &str, errors: &mut Vec<FieldError>) {
    value_validation(&n.checks, skip_any_of, false, path, errors);
    if let Some(items) = &n.items {
        nested(items, false, &format!("{path}.items"), errors);
    }
    for (name, p) in &n.properties {
        nested(p, false, &format!("{path}.properties[{name}]"), errors);
    }
    let forbid = |errors: &mut Vec<FieldError>, key: &str, detail: &str| {
        errors.push(FieldError::forbidden(&format!("{path}.{key}"), detail));
    };
    let rules = [
        (!n.ty.is_empty(), "type", "must be empty to be structural"),
        (
            n.additional.is_some(),
            "additionalProperties",
            "must be undefined to be structural",
        ),
        (
            n.default.is_some(),
            "default",
            "must be undefined to be structural",
        ),
        (n.has_title, "title", "must be empty to be structural"),
        (
            n.has_description,
            "description",
            "must be empty to be structural",
        ),
        (n.nullable, "nullable", "must be false to be structural"),
        (
            n.preserve_unknown,
            "x-kubernetes-preserve-unknown-fields",
            "must be false to be structural",
        ),
        (
            n.embedded,
            "x-kubernetes-embedded-resource",
            "must be false to be structural",
        ),
        (
            n.int_or_string,
            "x-kubernetes-int-or-string",
            "must be false to be structural",
        ),
        (
            !n.list_map_keys.is_empty(),
            "x-kubernetes-list-map-keys",
            "must be empty to be structural",
        ),
        (
            n.list_type.is_some(),
            "x-kubernetes-list-type",
            "must be undefined to be structural",
        ),
        (
            n.map_type.is_some(),
            "x-kubernetes-map-type",
            "must be undefined to be structural",
        ),
        (
            n.has_x_validations,
            "x-kubernetes-validations",
            "must be empty to be structural",
        ),
        (
            n.property("metadata").is_some(),
            "properties[metadata]",
            "must not be specified in a nested context",
        ),
    ];
    for (broken, key, detail) in rules {
        if broken {
            forbid(errors, key, detail);
        }
    }
}

/// Every property or items a value validation names must also be declared by the schema.
fn completeness(
    checks: &Checks,
    s: &Node,
    s_path: &str,
    v_path: &str,
    errors: &mut Vec<FieldError>,
) {
    let groups = [
        ("allOf", &checks.all_of),
        ("anyOf", &checks.any_of),
        ("oneOf", &checks.one_of),
    ];
    if let Some(n) = &checks.not {
        nested_completeness(n, Some(s), s_path, &format!("{v_path}.not"), errors);
    }
    for (key, list) in groups {
        for (i, n) in list.iter().enumerate() {
            nested_completeness(n, Some(s), s_path, &format!("{v_path}.{key}[{i}]"), errors);
        }
    }
}

fn nested_completeness(
    v: &Node,
    s: Option<&Node>,
    s_path: &str,
    v_path: &str,
    errors: &mut Vec<FieldError>,
) {
    let Some(s) = s else {
        errors.push(FieldError::required(
            s_path,
            &format!("because it is defined in {v_path}"),
        ));
        return;
    };
    completeness(&v.checks, s, s_path, v_path, errors);
    if let Some(items) = &v.items {
        nested_completeness(
            items,
            s.items.as_deref(),
            &format!("{s_path}.items"),
            &format!("{v_path}.items"),
            errors,
        );
    }
    for (name, p) in &v.properties {
        let v_field = format!("{v_path}.properties[{name}]");
        let s_field = format!("{s_path}.properties[{name}]");
        match s.property(name) {
            Some(sp) => nested_completeness(p, Some(sp), &s_field, &v_field, errors),
            None => errors.push(FieldError::required(
                &s_field,
                &format!("because it is defined in {v_field}"),
            )),
        }
    }
}
