//! Validation of a custom resource against its schema, as kube-openapi's `SchemaValidator`
//! does it for kube-apiserver: per node the type, `allOf`/`anyOf`/`oneOf`/`not`, string
//! limits, format, number limits, array limits, `enum`, then object limits and properties, with
//! kube-openapi's messages turned into field errors as apiextensions-apiserver turns them.

use serde_json::{Number, Value};

use super::field_error::FieldError;
use super::go_text;
use super::node::Node;
use super::{collections, format, junctors, number};

/// The errors of one validation, without repeats (kube-openapi drops an error whose message
/// it already holds).
#[derive(Debug, Default)]
pub(super) struct Errors(pub(super) Vec<FieldError>);

impl Errors {
    /// Adds `error` unless an error with its message is already there.
    pub(super) fn push(&mut self, error: FieldError) {
        if !self.0.iter().any(|e| e.message == error.message) {
            self.0.push(error);
        }
    }

    /// Adds every error of `other`, without repeats.
    pub(super) fn extend(&mut self, other: Self) {
        for error in other.0 {
            self.push(error);
        }
    }

    /// Whether nothing failed.
    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// An error kube-openapi reports without a field (anyOf and the like): apiextensions
    /// writes it on the field `<nil>` with an empty invalid value.
    pub(super) fn push_unplaced(&mut self, message: String) {
        self.push(FieldError::invalid("<nil>", "\"\"", &message));
    }
}

/// The field a kube-openapi path names: its leading dot dropped, `<nil>` for the root.
pub(super) fn field_of(path: &str) -> String {
    match path.strip_prefix('.').unwrap_or(path) {
        "" => "<nil>".to_owned(),
        field => field.to_owned(),
    }
}

/// A JSON number as kube-apiserver decodes it into Go: int64 when it fits, else float64.
#[derive(Debug, Clone, Copy)]
pub(super) enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    /// How kube's JSON decoder types the number.
    pub(super) fn of(n: &Number) -> Self {
        match n.as_i64() {
            Some(int) => Self::Int(int),
            None => Self::Float(n.as_f64().unwrap_or(f64::NAN)),
        }
    }

    /// The value as the float64 Go converts it to for float comparisons.
    pub(super) fn as_f64(self) -> f64 {
        match self {
            Self::Int(i) => i as f64,
            Self::Float(f) => f,
        }
    }

    /// `%v` of the Go value.
    pub(super) fn text(self) -> String {
        match self {
            Self::Int(i) => i.to_string(),
            Self::Float(f) => go_text::float(f),
        }
    }
}

/// The JSON type name kube-openapi reports for a value, and the format it infers.
fn type_info(value: &Value) -> (&'static str, &'static str) {
    match value {
        Value::Null => ("null", ""),
        Value::Bool(_) => ("boolean", ""),
        Value::String(_) => ("string", ""),
        Value::Number(n) => match Num::of(n) {
            Num::Int(_) => ("integer", "int64"),
            Num::Float(_) => ("number", "float64"),
        },
        Value::Array(_) => ("array", ""),
        Value::Object(_) => ("object", ""),
    }
}

/// `swag.IsFloat64AJSONInteger`: an integral float within the range JSON integers keep exact.
pub(super) fn is_json_integer(f: f64) -> bool {
    const MAX_JSON_FLOAT: f64 = 9_007_199_254_740_992.0; // 2^53
    if !f.is_finite() || f.abs() > MAX_JSON_FLOAT {
        return false;
    }
    let truncated = f.trunc();
    f == truncated || (f - truncated).abs() / (f.abs() + truncated.abs()) < 1e-9
}

/// `field.TypeInvalid` with kube-openapi's "must be of type" detail.
fn type_error(path: &str, expected: &str, got: &str) -> FieldError {
    let detail = format!(
        "{path} in body must be of type {expected}: {}",
        go_text::quote(got)
    );
    FieldError::type_invalid(&field_of(path), got, &detail)
}

/// Validates `value` against `node` at kube-openapi `path`. `old` is the value the stored
/// object held here, when the update correlates one: errors of a value unchanged since then are
/// dropped, as kube-apiserver ratchets validation on update. `root` marks the resource root,
/// whose metadata the API server validates itself.
pub(super) fn node(
    node: &Node,
    value: &Value,
    old: Option<&Value>,
    path: &str,
    root: bool,
    out: &mut Errors,
) {
    let mut found = Errors::default();
    checks(node, value, old, path, root, &mut found);
    if old != Some(value) {
        out.extend(found);
    }
}

fn checks(
    node: &Node,
    value: &Value,
    old: Option<&Value>,
    path: &str,
    root: bool,
    out: &mut Errors,
) {
    let types = node.types();
    if value.is_null() {
        if !types.is_empty() && !node.nullable {
            out.push(type_error(path, &types.join(","), "null"));
        }
        enumeration(node, value, path, out);
        return;
    }
    // kube-openapi goes on with the other validators after a type error.
    if !types.is_empty() || !node.format.is_empty() {
        check_type(node, &types, value, path, out);
    }
    junctors::check(node, value, old, path, out);
    match value {
        Value::String(text) => {
            collections::string(node, text, path, out);
            format::check(node, text, path, out);
        }
        Value::Number(n) => number::check(node, &types, Num::of(n), path, out),
        Value::Array(items) => collections::array(node, items, old, path, out),
        _ => {}
    }
    enumeration(node, value, path, out);
    if let Value::Object(map) = value {
        collections::object(node, map, old, path, root, out);
    }
}

/// kube-openapi's type validator, which also compares numbers against an integer or float
/// `format`.
fn check_type(node: &Node, types: &[&str], value: &Value, path: &str, out: &mut Errors) {
    let (sch_type, format) = type_info(value);
    let has = |t: &str| types.contains(&t);
    let float_int = matches!(value, Value::Number(n) if matches!(Num::of(n), Num::Float(f) if is_json_integer(f)))
        && has("integer");
    let int_float = sch_type == "integer" && has("number");
    let string_or_slice = matches!(value, Value::String(_) | Value::Array(_));
    let format_matches = has(sch_type) || format == node.format || float_int || int_float;
    if !string_or_slice && !node.format.is_empty() && !format_matches {
        out.push(type_error(path, &node.format, format));
        return;
    }
    // A format on a string or array of a non-numeric type settles the check.
    let numeric = has("number") || has("integer");
    let format_only = !(numeric || node.format.is_empty()) && string_or_slice;
    if !(format_only || has(sch_type) || float_int || int_float) {
        out.push(type_error(path, &types.join(","), sch_type));
    }
}

/// `enum`: the value must equal one of the listed values (numbers compared by value, as
/// Go compares an int64 against a float64 enum entry after converting it).
fn enumeration(node: &Node, value: &Value, path: &str, out: &mut Errors) {
    let Some(allowed) = &node.checks.enumeration else {
        return;
    };
    if allowed.is_empty() || allowed.iter().any(|a| json_equal(a, value)) {
        return;
    }
    let supported: Vec<String> = allowed
        .iter()
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => go_text::json(other),
        })
        .collect();
    out.push(FieldError::not_supported(
        &field_of(path),
        &go_text::bad_value(value),
        &supported,
    ));
}

/// Deep equality of JSON values with numbers compared by value. Recursion follows the
/// values' nesting, which JSON decoding bounds.
pub(super) fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (Num::of(x), Num::of(y)) {
            (Num::Int(i), Num::Int(j)) => i == j,
            (x, y) => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        (x, y) => x == y,
    }
}
