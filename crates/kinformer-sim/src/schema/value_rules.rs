//! Value validations (`allOf`, `anyOf`, `oneOf`, `not`) in a structural schema: they may
//! restrict values but declare no structure of their own, and name only declared fields.

use super::field_error::FieldError;
use super::go_text;
use super::node::{Checks, Node};

/// `anyOf: [{type: integer}, {type: string}]`, the one place value validations may name types.
pub(super) fn is_int_or_string_pair(any_of: &[Node]) -> bool {
    matches!(any_of, [a, b] if a.ty == "integer" && b.ty == "string" && bare_type(a) && bare_type(b))
}

fn bare_type(n: &Node) -> bool {
    n.properties.is_empty()
        && n.items.is_none()
        && n.additional.is_none()
        && n.checks.is_empty()
        && !n.nullable
}

/// Checks value validations at `path`; `skip_*` exempt the int-or-string `anyOf` patterns.
pub(super) fn value_validation(
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
pub(super) fn completeness(
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
