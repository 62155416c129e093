//! The printers of the other built-in types kube-apiserver prints (its `printers.go`), each a
//! list of columns read from the object: a field, a count, a join, an age, or a small function
//! for the cells it composes.

use serde_json::{Value, json};

mod composed;
mod others;
mod workloads;

use super::Column;
use super::age::since;
use super::printers::{NONE, items, joined, selector, str_at};

/// How one cell is read.
pub(super) enum Cell {
    /// A string field; empty when absent.
    Str(&'static str),
    /// A string field, or this when absent.
    Or(&'static str, &'static str),
    /// An integer field; this when absent.
    Int(&'static str, i64),
    /// A boolean field, as `true`/`false`; this when absent.
    Bool(&'static str, bool),
    /// How many items (or entries) a field holds.
    Count(&'static str),
    /// The items' field (or the strings themselves), comma-joined; `<none>` when there are none.
    Join(&'static str, &'static str),
    /// A label selector's text form.
    Selector(&'static str),
    /// A map's `k=v` pairs; `<none>` when empty.
    Pairs(&'static str),
    /// The object's age.
    Age,
    /// The age of a timestamp field; `<none>` when absent.
    Since(&'static str),
    /// The creation time as RFC 3339 (the `Created At` column).
    Created,
    /// Computed.
    Fn(fn(&Value) -> Value),
}

pub(super) type Spec = &'static [(&'static str, &'static str, bool, Cell)];

pub(super) const CONTAINERS: &str = "/spec/template/spec/containers";

/// The columns of `group`/`plural` with how each cell is read, when one of these printers
/// prints it.
pub(super) fn printer(group: &str, plural: &str) -> Option<Spec> {
    workloads::printer(group, plural).or_else(|| others::printer(group, plural))
}

/// Name first, then `spec`'s columns.
pub(super) fn columns(spec: Spec) -> Vec<Column> {
    std::iter::once(Column::new("Name", "string", "name"))
        .chain(spec.iter().map(|(name, kind, wide, _)| {
            if *wide {
                Column::wide(name, kind)
            } else {
                Column::new(name, kind, "")
            }
        }))
        .collect()
}

/// The object's name, then its cells under `spec`.
pub(super) fn cells(spec: Spec, obj: &Value, now: i64) -> Vec<Value> {
    let name = json!(str_at(obj, "/metadata/name").unwrap_or_default());
    std::iter::once(name)
        .chain(spec.iter().map(|(_, _, _, cell)| read(cell, obj, now)))
        .collect()
}

fn read(cell: &Cell, obj: &Value, now: i64) -> Value {
    match cell {
        Cell::Str(p) => json!(str_at(obj, p).unwrap_or_default()),
        Cell::Or(p, default) => json!(str_at(obj, p).unwrap_or(default)),
        Cell::Int(p, default) => json!(obj.pointer(p).and_then(Value::as_i64).unwrap_or(*default)),
        Cell::Bool(p, default) => {
            json!(obj.pointer(p).and_then(Value::as_bool).unwrap_or(*default))
        }
        Cell::Count(p) => json!(obj.pointer(p).map_or(0, |v| {
            v.as_array()
                .map_or_else(|| v.as_object().map_or(0, |m| m.len()), Vec::len)
        })),
        Cell::Join(p, "") => {
            let all: Vec<&str> = items(obj, p).iter().filter_map(Value::as_str).collect();
            json!(if all.is_empty() {
                NONE.to_owned()
            } else {
                all.join(",")
            })
        }
        Cell::Join(p, field) => {
            let all = joined(items(obj, p), field);
            json!(if all.is_empty() { NONE.to_owned() } else { all })
        }
        Cell::Selector(p) => json!(selector(obj.pointer(p))),
        Cell::Pairs(p) => json!(pairs(obj.pointer(p))),
        Cell::Age => json!(since(str_at(obj, "/metadata/creationTimestamp"), now)),
        Cell::Since(p) => match str_at(obj, p) {
            Some(t) => json!(since(Some(t), now)),
            None => json!(NONE),
        },
        Cell::Created => obj
            .pointer("/metadata/creationTimestamp")
            .cloned()
            .unwrap_or(Value::Null),
        Cell::Fn(f) => f(obj),
    }
}

pub(super) fn pairs(map: Option<&Value>) -> String {
    match map.and_then(Value::as_object).filter(|m| !m.is_empty()) {
        Some(m) => m
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
            .collect::<Vec<_>>()
            .join(","),
        None => NONE.to_owned(),
    }
}
