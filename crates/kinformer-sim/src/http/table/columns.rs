//! A custom resource's columns: its CRD version's `additionalPrinterColumns` (Age alone when it
//! declares none, as kube-apiserver defaults them), each read from the object by its simple
//! JSONPath (`.spec.replicas`, `.status.conditions[0].type`).

use serde_json::{Value, json};

use super::Column;
use super::age::since;
use crate::resource::ResourceDef;

/// One declared column.
#[derive(Debug, Clone)]
pub(super) struct CustomColumn {
    name: String,
    kind: String,
    format: String,
    description: String,
    priority: i64,
    path: Vec<Step>,
}

#[derive(Debug, Clone)]
enum Step {
    Field(String),
    Index(usize),
}

/// The columns of `def` after Name.
pub(super) fn of(def: &ResourceDef) -> Vec<CustomColumn> {
    let declared: Vec<CustomColumn> = def.printer_columns.iter().filter_map(parse).collect();
    if declared.is_empty() {
        vec![CustomColumn {
            name: "Age".to_owned(),
            kind: "date".to_owned(),
            format: String::new(),
            description: String::new(),
            priority: 0,
            path: steps(".metadata.creationTimestamp"),
        }]
    } else {
        declared
    }
}

fn parse(column: &Value) -> Option<CustomColumn> {
    let text = |k: &str| {
        column
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    Some(CustomColumn {
        name: column.get("name")?.as_str()?.to_owned(),
        kind: text("type"),
        format: text("format"),
        description: text("description"),
        priority: column.get("priority").and_then(Value::as_i64).unwrap_or(0),
        path: steps(column.get("jsonPath")?.as_str()?),
    })
}

/// `.a.b[0].c` as steps; braces (`{.a}`) are allowed as kubectl's JSONPath allows them.
fn steps(path: &str) -> Vec<Step> {
    let path = path.trim().trim_start_matches('{').trim_end_matches('}');
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let mut rest = part;
        if let Some(open) = rest.find('[') {
            out.push(Step::Field(rest[..open].to_owned()));
            rest = &rest[open..];
            while let Some(close) = rest.find(']') {
                if let Ok(i) = rest[1..close].parse() {
                    out.push(Step::Index(i));
                }
                rest = &rest[close + 1..];
                if !rest.starts_with('[') {
                    break;
                }
            }
        } else {
            out.push(Step::Field(rest.to_owned()));
        }
    }
    out
}

impl CustomColumn {
    pub(super) fn column(&self) -> Column {
        Column {
            name: self.name.clone(),
            kind: self.kind.clone(),
            format: self.format.clone(),
            description: self.description.clone(),
            priority: self.priority,
        }
    }

    /// The cell of `obj`: null when the path finds nothing; a date as its age, as
    /// kube-apiserver's custom resource printer writes it.
    pub(super) fn cell(&self, obj: &Value, now: i64) -> Value {
        let mut at = obj;
        for step in &self.path {
            let next = match step {
                Step::Field(f) => at.get(f),
                Step::Index(i) => at.get(*i),
            };
            match next {
                Some(v) => at = v,
                None => return Value::Null,
            }
        }
        match (self.kind.as_str(), at) {
            ("date", Value::String(t)) => json!(since(Some(t), now)),
            ("integer", Value::Number(n)) => n.as_i64().map_or(Value::Null, Value::from),
            ("number", Value::Number(_)) | ("boolean", Value::Bool(_)) => at.clone(),
            ("string", Value::String(_)) => at.clone(),
            ("string", other) if !other.is_null() => json!(other.to_string()),
            _ => Value::Null,
        }
    }
}
