//! Server-side printing: a list or a get asked `as=Table` (`kubectl get`) answers a
//! `meta.k8s.io/v1` `Table`: the resource's columns (its printer's for the built-in types
//! kubectl shows most, a CRD's `additionalPrinterColumns` for a custom resource, Name and
//! Created At for the rest), a row of cells per object, and each row's object as
//! `includeObject` asks (its metadata by default).

mod age;
mod columns;
mod more;
mod printers;
mod rows;

use bytes::Bytes;
use http::Response;
use serde_json::{Map, Value, json};

use super::media::META_API_VERSION;
use crate::body::SimBody;
use crate::resource::ResourceDef;
use crate::status::{ApiError, json_response};
use crate::store::Record;

const NAME_DESCRIPTION: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const CREATED_DESCRIPTION: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/// One column of a Table.
#[derive(Debug, Clone)]
pub(super) struct Column {
    name: String,
    kind: String,
    format: String,
    description: String,
    priority: i64,
}

impl Column {
    fn new(name: &str, kind: &str, format: &str) -> Self {
        let description = match name {
            "Name" => NAME_DESCRIPTION,
            "Created At" | "Age" => CREATED_DESCRIPTION,
            _ => "",
        };
        Self {
            name: name.to_owned(),
            kind: kind.to_owned(),
            format: format.to_owned(),
            description: description.to_owned(),
            priority: 0,
        }
    }

    /// A column `kubectl get -o wide` adds.
    fn wide(name: &str, kind: &str) -> Self {
        Self {
            priority: 1,
            ..Self::new(name, kind, "")
        }
    }

    fn to_json(&self) -> Value {
        json!({"name": self.name, "type": self.kind, "format": self.format,
               "description": self.description, "priority": self.priority})
    }
}

/// What each row carries of its object (`includeObject`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Include {
    /// No object.
    None,
    /// Its `PartialObjectMetadata` (the default).
    Metadata,
    /// The object whole.
    Object,
}

impl Include {
    /// The query value; `Metadata` when absent, 400 for anything else, as kube-apiserver
    /// validates `TableOptions`.
    pub(crate) fn parse(value: Option<&str>) -> Result<Self, ApiError> {
        match value {
            None | Some("" | "Metadata") => Ok(Self::Metadata),
            Some("None") => Ok(Self::None),
            Some("Object") => Ok(Self::Object),
            Some(other) => Err(ApiError::bad_request(format!(
                "includeObject: Unsupported value: {other:?}: supported values: \"Metadata\", \"None\", \"Object\""
            ))),
        }
    }
}

/// How `def` prints: its columns and the cells of one object at `now`.
enum Printer<'a> {
    BuiltIn(&'a ResourceDef),
    Declared(&'static [(&'static str, &'static str, bool, more::Cell)]),
    Default,
    Custom(Vec<columns::CustomColumn>),
}

impl<'a> Printer<'a> {
    fn of(def: &'a ResourceDef) -> Self {
        if !def.builtin {
            return Self::Custom(columns::of(def));
        }
        if printers::columns(&def.group, &def.plural).is_some() {
            return Self::BuiltIn(def);
        }
        match more::printer(&def.group, &def.plural) {
            Some(spec) => Self::Declared(spec),
            None => Self::Default,
        }
    }

    fn columns(&self) -> Vec<Column> {
        match self {
            Self::BuiltIn(def) => printers::columns(&def.group, &def.plural).unwrap_or_default(),
            Self::Declared(spec) => more::columns(spec),
            Self::Default => vec![
                Column::new("Name", "string", "name"),
                Column::new("Created At", "date", ""),
            ],
            Self::Custom(custom) => std::iter::once(Column::new("Name", "string", "name"))
                .chain(custom.iter().map(columns::CustomColumn::column))
                .collect(),
        }
    }

    fn cells(&self, obj: &Value, now: i64) -> Vec<Value> {
        let name = obj
            .pointer("/metadata/name")
            .cloned()
            .unwrap_or_else(|| json!(""));
        match self {
            Self::BuiltIn(def) => printers::cells(&def.group, &def.plural, obj, now),
            Self::Declared(spec) => more::cells(spec, obj, now),
            Self::Default => vec![
                name,
                obj.pointer("/metadata/creationTimestamp")
                    .cloned()
                    .unwrap_or(Value::Null),
            ],
            Self::Custom(custom) => std::iter::once(name)
                .chain(custom.iter().map(|c| c.cell(obj, now)))
                .collect(),
        }
    }
}

fn row(
    def: &ResourceDef,
    printer: &Printer<'_>,
    record: &Record,
    include: Include,
    now: i64,
) -> Value {
    let obj = Value::Object(record.to_map());
    let mut row = Map::new();
    // kube-apiserver prints the internal object: every version of a resource prints alike.
    let cells = match crate::conversion::as_stored(def, &obj) {
        Some(stored) => printer.cells(&stored, now),
        None => printer.cells(&obj, now),
    };
    row.insert("cells".into(), Value::Array(cells));
    match include {
        Include::None => {}
        Include::Metadata => {
            row.insert(
                "object".into(),
                json!({"kind": "PartialObjectMetadata", "apiVersion": META_API_VERSION,
                       "metadata": obj.get("metadata").cloned().unwrap_or_else(|| json!({}))}),
            );
        }
        Include::Object => {
            row.insert("object".into(), obj);
        }
    }
    Value::Object(row)
}

/// A `Table` of `records` with the list metadata `meta`.
pub(super) fn table(
    def: &ResourceDef,
    records: &[&Record],
    meta: Value,
    include: Include,
) -> Result<Response<SimBody>, ApiError> {
    let printer = Printer::of(def);
    let now = crate::clock::now_secs();
    let rows: Vec<Value> = records
        .iter()
        .map(|r| row(def, &printer, r, include, now))
        .collect();
    let body = json!({
        "kind": "Table", "apiVersion": META_API_VERSION, "metadata": meta,
        "columnDefinitions": printer.columns().iter().map(Column::to_json).collect::<Vec<_>>(),
        "rows": rows,
    });
    Ok(json_response(200, Bytes::from(body.to_string())))
}

/// A get asked `as=Table`: one row.
pub(super) fn get(
    shared: &crate::shared::Shared,
    target: &super::Target,
    media: super::Media,
) -> Result<Response<SimBody>, ApiError> {
    let include = media.table().unwrap_or(Include::Metadata);
    let def = &target.def;
    let name = target.name.as_deref().unwrap_or_default();
    let key = crate::store::key_of(def, target.namespace.as_deref().unwrap_or_default(), name);
    let record = shared
        .store
        .get(def, &key)
        .ok_or_else(|| ApiError::not_found(def, name))?;
    let converted = crate::conversion::served(def, &record);
    let record = converted.as_ref().unwrap_or(&record);
    let rv = record
        .to_map()
        .get("metadata")
        .and_then(|m| m.get("resourceVersion"))
        .cloned()
        .unwrap_or(Value::Null);
    table(def, &[record], json!({"resourceVersion": rv}), include)
}

/// A watch event's object asked `as=Table`: a Table of `record` alone, with the column
/// definitions only when `headers` (the stream's first event), as kube-apiserver sends them.
pub(crate) fn event_table(
    def: &ResourceDef,
    record: &Record,
    include: Include,
    headers: bool,
) -> Value {
    let printer = Printer::of(def);
    let row = row(def, &printer, record, include, crate::clock::now_secs());
    let columns = if headers {
        Value::Array(printer.columns().iter().map(Column::to_json).collect())
    } else {
        Value::Null
    };
    json!({
        "kind": "Table", "apiVersion": META_API_VERSION,
        "metadata": {"resourceVersion": record.rev.to_string()},
        "columnDefinitions": columns,
        "rows": [row],
    })
}

/// A bookmark asked `as=Table`: a Table of no rows at the bookmark's resourceVersion.
pub(crate) fn bookmark_table(rev: u64) -> Value {
    json!({
        "kind": "Table", "apiVersion": META_API_VERSION,
        "metadata": {"resourceVersion": rev.to_string()},
        "columnDefinitions": null, "rows": [],
    })
}
