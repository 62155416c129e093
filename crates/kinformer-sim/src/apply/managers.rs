//! `metadata.managedFields` as entries: who owns which fields, by which operation.

use serde_json::{Map, Value, json};

use super::fieldpath::FieldSet;

/// One `managedFields` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Manager {
    pub(crate) name: String,
    /// `Apply` or `Update`.
    pub(crate) operation: String,
    pub(crate) api_version: String,
    pub(crate) time: Option<String>,
    /// `""` for the main resource, `status` for the status subresource.
    pub(crate) subresource: String,
    pub(crate) fields: FieldSet,
}

impl Manager {
    pub(crate) fn is_apply(&self) -> bool {
        self.operation == "Apply"
    }

    /// Whether this entry is the one `name` writes with `operation` through `subresource`.
    pub(crate) fn is(&self, name: &str, operation: &str, subresource: &str) -> bool {
        self.name == name && self.operation == operation && self.subresource == subresource
    }

    /// How a conflict message names this manager: appliers by name, updaters with their version.
    pub(crate) fn printed(&self) -> String {
        if self.is_apply() {
            format!("{:?}", self.name)
        } else {
            format!("{:?} using {}", self.name, self.api_version)
        }
    }

    fn to_json(&self) -> Value {
        let mut entry = Map::new();
        // Go leaves an empty manager out (`omitempty`): a request with no User-Agent and no
        // fieldManager has one.
        if !self.name.is_empty() {
            entry.insert("manager".into(), json!(self.name));
        }
        entry.insert("operation".into(), json!(self.operation));
        entry.insert("apiVersion".into(), json!(self.api_version));
        if let Some(t) = &self.time {
            entry.insert("time".into(), json!(t));
        }
        entry.insert("fieldsType".into(), json!("FieldsV1"));
        entry.insert("fieldsV1".into(), self.fields.to_fields_v1());
        if !self.subresource.is_empty() {
            entry.insert("subresource".into(), json!(self.subresource));
        }
        Value::Object(entry)
    }
}

/// The entries of an object's `metadata.managedFields` (malformed ones are dropped, as the server
/// resets managedFields it cannot decode).
pub(crate) fn read(obj: &Value) -> Vec<Manager> {
    let Some(entries) = obj
        .pointer("/metadata/managedFields")
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    let s = |e: &Value, k: &str| e.get(k).and_then(Value::as_str).map(str::to_owned);
    entries
        .iter()
        .filter_map(|e| {
            Some(Manager {
                name: s(e, "manager").unwrap_or_default(),
                operation: s(e, "operation")?,
                api_version: s(e, "apiVersion").unwrap_or_default(),
                time: s(e, "time"),
                subresource: s(e, "subresource").unwrap_or_default(),
                fields: FieldSet::from_fields_v1(e.get("fieldsV1")?),
            })
        })
        .collect()
}

/// Writes `managers` into `obj`'s metadata in the server's order (operation, time, manager,
/// subresource), dropping entries that own nothing.
pub(crate) fn write(obj: &mut Value, mut managers: Vec<Manager>) {
    managers.retain(|m| !m.fields.0.is_empty());
    managers.sort_by(|a, b| {
        (&a.operation, &a.time, &a.name, &a.subresource).cmp(&(
            &b.operation,
            &b.time,
            &b.name,
            &b.subresource,
        ))
    });
    let Some(md) = obj.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    if managers.is_empty() {
        md.remove("managedFields");
    } else {
        md.insert(
            "managedFields".into(),
            Value::Array(managers.iter().map(Manager::to_json).collect()),
        );
    }
}

/// The manager a request names: its `fieldManager`, else its User-Agent up to the first `/`, as
/// the API server derives it.
pub(crate) fn manager_name(field_manager: Option<&str>, user_agent: Option<&str>) -> String {
    match field_manager {
        Some(m) => m.to_owned(),
        None => user_agent
            .unwrap_or_default()
            .split('/')
            .next()
            .unwrap_or_default()
            .chars()
            .take(128)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_in_server_order() {
        let obj = json!({"metadata": {"managedFields": [
            {"manager": "b", "operation": "Update", "apiVersion": "v1", "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:x": {}}}},
            {"manager": "a", "operation": "Apply", "apiVersion": "v1", "time": "2026-01-02T00:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:k": {}}}},
            {"manager": "gone", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {}},
            {"bad": true},
        ]}});
        let managers = read(&obj);
        assert_eq!(managers.len(), 3);
        assert_eq!(managers[1].printed(), "\"a\"");
        assert_eq!(managers[0].printed(), "\"b\" using v1");
        let mut out = json!({"metadata": {}});
        write(&mut out, managers);
        let names: Vec<&str> = out["metadata"]["managedFields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["manager"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(
            manager_name(None, Some("kubectl/v1.32.4 (linux/amd64)")),
            "kubectl"
        );
        assert_eq!(manager_name(Some("ctl"), Some("kubectl/v1")), "ctl");
    }
}
