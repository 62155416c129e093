//! kube-openapi's number validator: the value and each bound are first checked against the
//! type's format range, then `multipleOf`, `minimum` and `maximum` compare in the value's Go
//! type (int64 or float64), which decides how the bound is written in the message.

use super::field_error::FieldError;
use super::go_text;
use super::node::Node;
use super::validate::{Errors, Num, field_of, is_json_integer};

/// The type and format kube-openapi checks ranges for: set only for a single declared type.
fn type_and_format<'a>(node: &'a Node, types: &[&str]) -> (&'a str, &'a str) {
    if types.len() != 1 {
        return ("", "");
    }
    match (node.ty.as_str(), node.format.as_str()) {
        ("integer", f @ ("int32" | "int64")) => ("integer", f),
        ("integer", _) => ("integer", ""),
        ("number", f @ ("float" | "double")) => ("number", f),
        ("number", _) => ("number", ""),
        _ => ("", ""),
    }
}

/// Whether `n`, written as Go's `FormatFloat(f, 'f', -1, 64)` writes it, parses back as the
/// type and format say.
fn in_range(n: Num, type_name: &str, format: &str) -> bool {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    match (type_name, n) {
        ("integer", Num::Int(i)) => format != "int32" || i32::try_from(i).is_ok(),
        ("integer", Num::Float(f)) => {
            let limit = if format == "int32" {
                2_147_483_648.0
            } else {
                TWO_63
            };
            f.is_finite() && f.fract() == 0.0 && f >= -limit && f < limit
        }
        (_, n) if format == "float" => n.as_f64().abs() <= f64::from(f32::MAX),
        _ => true,
    }
}

fn range_error(prefix: &str, type_name: &str, format: &str, path: &str) -> String {
    if format.is_empty() {
        format!("{prefix} value must be of type {type_name} (default format) in {path}")
    } else {
        format!("{prefix} value must be of type {type_name} with format {format} in {path}")
    }
}

/// Checks a number against the node's numeric limits, adding kube's errors to `out`.
pub(super) fn check(node: &Node, types: &[&str], value: Num, path: &str, out: &mut Errors) {
    let (type_name, format) = type_and_format(node, types);
    let field = field_of(path);
    let bad = value.text();
    if !in_range(value, type_name, format) {
        out.push_unplaced(range_error("Checked", type_name, format, path));
    }
    let checks = &node.checks;
    if let Some(factor) = checks.multiple_of {
        let native = in_range(Num::Float(factor), type_name, format);
        if !native {
            out.push_unplaced(range_error("MultipleOf", type_name, format, path));
        }
        let detail = match (native, value) {
            (true, Num::Int(i)) => multiple_of_int(i, factor as i64, path),
            (_, value) => multiple_of_float(value.as_f64(), factor, path),
        };
        if let Some(detail) = detail {
            out.push(FieldError::invalid(&field, &bad, &detail));
        }
    }
    let bounds = [
        (
            "Minimum boundary",
            checks.minimum,
            checks.exclusive_minimum,
            true,
        ),
        (
            "Maximum boundary",
            checks.maximum,
            checks.exclusive_maximum,
            false,
        ),
    ];
    for (prefix, bound, exclusive, is_min) in bounds {
        let Some(bound) = bound else { continue };
        let native = in_range(Num::Float(bound), type_name, format);
        if !native {
            out.push_unplaced(range_error(prefix, type_name, format, path));
        }
        let (beyond, bound_text) = match (native, value) {
            (true, Num::Int(i)) => {
                // Go's int64(float64) conversion; Rust's `as` saturates where Go's is undefined.
                let b = bound as i64;
                (exceeds(i.cmp(&b), exclusive, is_min), b.to_string())
            }
            (_, v) => {
                let ordering = v
                    .as_f64()
                    .partial_cmp(&bound)
                    .unwrap_or(std::cmp::Ordering::Equal);
                (exceeds(ordering, exclusive, is_min), go_text::float(bound))
            }
        };
        if beyond {
            let relation = match (is_min, exclusive) {
                (true, false) => "greater than or equal to",
                (true, true) => "greater than",
                (false, false) => "less than or equal to",
                (false, true) => "less than",
            };
            let detail = format!("{path} in body should be {relation} {bound_text}");
            out.push(FieldError::invalid(&field, &bad, &detail));
        }
    }
}

/// Whether a value ordered `ordering` against a bound violates it.
fn exceeds(ordering: std::cmp::Ordering, exclusive: bool, is_min: bool) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    match (is_min, ordering) {
        (_, Equal) => exclusive,
        (true, Less) | (false, Greater) => true,
        _ => false,
    }
}

fn multiple_of_int(value: i64, factor: i64, path: &str) -> Option<String> {
    if factor <= 0 {
        return Some(format!(
            "factor MultipleOf declared for {path} must be positive: {factor}"
        ));
    }
    (value.checked_rem(factor) != Some(0))
        .then(|| format!("{path} in body should be a multiple of {factor}"))
}

fn multiple_of_float(value: f64, factor: f64, path: &str) -> Option<String> {
    if factor <= 0.0 || factor.is_nan() {
        return Some(format!(
            "factor MultipleOf declared for {path} must be positive: {}",
            go_text::float(factor)
        ));
    }
    let quotient = if factor < 1.0 {
        1.0 / factor * value
    } else {
        value / factor
    };
    (!is_json_integer(quotient)).then(|| {
        format!(
            "{path} in body should be a multiple of {}",
            go_text::float(factor)
        )
    })
}
