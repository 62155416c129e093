//! The columns kube-apiserver prints for the built-in types kubectl shows most (its
//! `printers.go`), and the cells of one object; `more.rs` declares the rest of its printers, and
//! types without one get Name and Created At.

use serde_json::{Value, json};

use super::Column;
use super::age::since;
use super::rows;

pub(super) const NONE: &str = "<none>";

/// The columns of `group`/`plural`, when it has its own printer.
pub(super) fn columns(group: &str, plural: &str) -> Option<Vec<Column>> {
    let c = Column::new;
    let wide = Column::wide;
    let name = c("Name", "string", "name");
    let age = c("Age", "string", "");
    Some(match (group, plural) {
        ("", "pods") => vec![
            name,
            c("Ready", "string", ""),
            c("Status", "string", ""),
            c("Restarts", "string", ""),
            age,
            wide("IP", "string"),
            wide("Node", "string"),
            wide("Nominated Node", "string"),
            wide("Readiness Gates", "string"),
        ],
        ("apps", "deployments") => vec![
            name,
            c("Ready", "string", ""),
            c("Up-to-date", "integer", ""),
            c("Available", "integer", ""),
            age,
            wide("Containers", "string"),
            wide("Images", "string"),
            wide("Selector", "string"),
        ],
        ("", "services") => vec![
            name,
            c("Type", "string", ""),
            c("Cluster-IP", "string", ""),
            c("External-IP", "string", ""),
            c("Port(s)", "string", ""),
            age,
            wide("Selector", "string"),
        ],
        ("", "nodes") => vec![
            name,
            c("Status", "string", ""),
            c("Roles", "string", ""),
            age,
            c("Version", "string", ""),
            wide("Internal-IP", "string"),
            wide("External-IP", "string"),
            wide("OS-Image", "string"),
            wide("Kernel-Version", "string"),
            wide("Container-Runtime", "string"),
        ],
        ("", "namespaces") => vec![name, c("Status", "string", ""), age],
        ("", "configmaps") => vec![name, c("Data", "integer", ""), age],
        ("", "secrets") => vec![name, c("Type", "string", ""), c("Data", "integer", ""), age],
        ("batch", "jobs") => vec![
            name,
            c("Status", "string", ""),
            c("Completions", "string", ""),
            c("Duration", "string", ""),
            age,
            wide("Containers", "string"),
            wide("Images", "string"),
            wide("Selector", "string"),
        ],
        ("" | "events.k8s.io", "events") => vec![
            c("Last Seen", "string", ""),
            c("Type", "string", ""),
            c("Reason", "string", ""),
            c("Object", "string", ""),
            wide("Subobject", "string"),
            wide("Source", "string"),
            c("Message", "string", ""),
            wide("First Seen", "string"),
            wide("Count", "string"),
            wide("Name", "string"),
        ],
        ("coordination.k8s.io", "leases") => vec![name, c("Holder", "string", ""), age],
        ("", "componentstatuses") => vec![
            name,
            c("Status", "string", ""),
            c("Message", "string", ""),
            c("Error", "string", ""),
        ],
        _ => return None,
    })
}

pub(super) fn str_at<'a>(obj: &'a Value, pointer: &str) -> Option<&'a str> {
    obj.pointer(pointer)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

pub(super) fn int_at(obj: &Value, pointer: &str) -> i64 {
    obj.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

pub(super) fn items<'a>(obj: &'a Value, pointer: &str) -> &'a [Value] {
    obj.pointer(pointer)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

pub(super) fn or_none(value: Option<&str>) -> Value {
    Value::from(value.unwrap_or(NONE))
}

/// The cells of `obj` under `columns(group, plural)`.
pub(super) fn cells(group: &str, plural: &str, obj: &Value, now: i64) -> Vec<Value> {
    let name = json!(str_at(obj, "/metadata/name").unwrap_or_default());
    let age = json!(since(str_at(obj, "/metadata/creationTimestamp"), now));
    match (group, plural) {
        ("", "pods") => rows::pod(obj, name, age, now),
        ("apps", "deployments") => {
            let containers = items(obj, "/spec/template/spec/containers");
            vec![
                name,
                json!(format!(
                    "{}/{}",
                    int_at(obj, "/status/readyReplicas"),
                    obj.pointer("/spec/replicas")
                        .and_then(Value::as_i64)
                        .unwrap_or(1)
                )),
                json!(int_at(obj, "/status/updatedReplicas")),
                json!(int_at(obj, "/status/availableReplicas")),
                age,
                json!(joined(containers, "name")),
                json!(joined(containers, "image")),
                json!(selector(obj.pointer("/spec/selector"))),
            ]
        }
        ("", "services") => rows::service(obj, name, age),
        ("", "nodes") => rows::node(obj, name, age),
        ("", "namespaces") => vec![
            name,
            json!(str_at(obj, "/status/phase").unwrap_or_default()),
            age,
        ],
        ("", "configmaps") => {
            let count = |p: &str| {
                obj.pointer(p)
                    .and_then(Value::as_object)
                    .map_or(0, |m| m.len())
            };
            vec![name, json!(count("/data") + count("/binaryData")), age]
        }
        ("", "secrets") => {
            let data = obj
                .pointer("/data")
                .and_then(Value::as_object)
                .map_or(0, |m| m.len());
            vec![
                name,
                json!(str_at(obj, "/type").unwrap_or_default()),
                json!(data),
                age,
            ]
        }
        ("batch", "jobs") => rows::job(obj, name, age, now),
        ("", "events") => rows::event(obj, name, now),
        ("events.k8s.io", "events") => rows::event(&rows::as_core_event(obj), name, now),
        ("coordination.k8s.io", "leases") => {
            vec![
                name,
                json!(str_at(obj, "/spec/holderIdentity").unwrap_or_default()),
                age,
            ]
        }
        ("", "componentstatuses") => {
            let healthy = items(obj, "/conditions")
                .iter()
                .find(|c| c.get("type") == Some(&json!("Healthy")));
            let status = match healthy.and_then(|c| str_at(c, "/status")) {
                Some("True") => "Healthy",
                Some(_) => "Unhealthy",
                None => "Unknown",
            };
            let text =
                |field: &str| json!(healthy.and_then(|c| str_at(c, field)).unwrap_or_default());
            vec![name, json!(status), text("/message"), text("/error")]
        }
        _ => vec![name, age],
    }
}

pub(super) fn joined(list: &[Value], field: &str) -> String {
    list.iter()
        .filter_map(|c| c.get(field).and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join(",")
}

/// A label selector's text form (`app=web,tier in (a,b)`), or `<none>`.
pub(super) fn selector(selector: Option<&Value>) -> String {
    let Some(selector) = selector else {
        return NONE.to_owned();
    };
    let mut parts = Vec::new();
    if let Some(labels) = selector.get("matchLabels").and_then(Value::as_object) {
        for (k, v) in labels {
            parts.push(format!("{k}={}", v.as_str().unwrap_or_default()));
        }
    }
    for e in selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = e.get("key").and_then(Value::as_str).unwrap_or_default();
        let values: Vec<&str> = e
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        match e
            .get("operator")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "In" => parts.push(format!("{key} in ({})", values.join(","))),
            "NotIn" => parts.push(format!("{key} notin ({})", values.join(","))),
            "Exists" => parts.push(key.to_owned()),
            _ => parts.push(format!("!{key}")),
        }
    }
    if parts.is_empty() {
        NONE.to_owned()
    } else {
        parts.join(",")
    }
}
