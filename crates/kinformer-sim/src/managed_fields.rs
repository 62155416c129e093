//! managedFields the way a real API server records them: one entry per manager, each with the
//! full `fieldsV1` set of the fields that manager wrote, derived from the object itself.
//!
//! Real pods carry 2–4 KB of these (20–50% of their bytes): kube-controller-manager owns the pod
//! template it sent (every field, defaulted ones included), the scheduler the `PodScheduled`
//! condition, the kubelet the rest of the status. Benchmarks on objects without them understate
//! what skipping them while parsing is worth.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The shape of generated objects' `metadata.managedFields`.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ManagedFieldsShape {
    /// As a real API server records them (the default): per manager, the full set of fields
    /// it wrote.
    #[default]
    Realistic,
    /// Two short entries (about 0.5 KB), as earlier versions of the sim generated: for
    /// comparing with measurements made on them.
    Small,
}

/// Keyed lists: the list's field name and the fields of an item's key (strategic merge keys).
pub(crate) const KEYED: &[(&str, &[&str])] = &[
    ("containers", &["name"]),
    ("initContainers", &["name"]),
    ("ports", &["containerPort", "protocol"]),
    ("env", &["name"]),
    ("volumeMounts", &["mountPath"]),
    ("volumes", &["name"]),
    ("conditions", &["type"]),
    ("ownerReferences", &["uid"]),
    ("hostIPs", &["ip"]),
    ("podIPs", &["ip"]),
    ("imagePullSecrets", &["name"]),
];

/// Fields whose values are maps (string keys chosen by users): their set carries `.`.
const MAPS: &[&str] = &[
    "labels",
    "annotations",
    "requests",
    "limits",
    "nodeSelector",
];

/// The `fieldsV1` set of `value` under field `name`: `{}` for a leaf or an atomic list,
/// `f:<field>` per struct field, `k:{...}` per keyed list item (with `.`).
pub(crate) fn field_set(name: &str, value: &Value) -> Value {
    match value {
        Value::Object(fields) => {
            let mut set = Map::new();
            if MAPS.contains(&name) {
                set.insert(".".into(), json!({}));
            }
            for (field, v) in fields {
                set.insert(format!("f:{field}"), field_set(field, v));
            }
            Value::Object(set)
        }
        Value::Array(items) => match KEYED.iter().find(|(list, _)| *list == name) {
            Some((_, key)) => {
                let mut set = Map::new();
                set.insert(".".into(), json!({}));
                for item in items {
                    let mut entry = match field_set("", item) {
                        Value::Object(m) => m,
                        _ => Map::new(),
                    };
                    entry.insert(".".into(), json!({}));
                    set.insert(item_key(item, key), Value::Object(entry));
                }
                Value::Object(set)
            }
            // Atomic: owned whole.
            None => json!({}),
        },
        _ => json!({}),
    }
}

/// `k:{"name":"app"}`: the item's key fields as compact JSON, in key order.
fn item_key(item: &Value, key: &[&str]) -> String {
    let mut fields = Map::new();
    for k in key {
        fields.insert(
            (*k).to_owned(),
            item.get(*k).cloned().unwrap_or(Value::Null),
        );
    }
    format!("k:{}", Value::Object(fields))
}

/// One managedFields entry.
pub(crate) fn entry(manager: &str, status: bool, time: &str, fields: Value) -> Value {
    let mut entry = json!({
        "manager": manager, "operation": "Update", "apiVersion": "v1", "time": time,
        "fieldsType": "FieldsV1", "fieldsV1": fields,
    });
    if status {
        entry["subresource"] = json!("status");
    }
    entry
}

/// The spec fields admission adds rather than the controller: a service account token volume
/// and its mounts, default tolerations, priority, the node binding.
const ADMITTED: &[&str] = &[
    "nodeName",
    "priority",
    "preemptionPolicy",
    "serviceAccount",
    "serviceAccountName",
    "tolerations",
    "volumes",
];

/// A pod's three managers, derived from `pod` (its metadata, spec and status as generated).
pub(crate) fn pod_entries(pod: &Value, time: &str) -> Vec<Value> {
    let meta = &pod["metadata"];
    let mut metadata = Map::new();
    for field in ["generateName", "labels", "annotations", "ownerReferences"] {
        if let Some(v) = meta.get(field) {
            metadata.insert(format!("f:{field}"), field_set(field, v));
        }
    }
    let mut spec = pod["spec"].clone();
    if let Some(fields) = spec.as_object_mut() {
        fields.retain(|k, _| !ADMITTED.contains(&k.as_str()));
        for container in fields
            .get_mut("containers")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            // The token mount comes with the admitted volume.
            if let Some(c) = container.as_object_mut() {
                c.remove("volumeMounts");
            }
        }
    }
    let controller = json!({"f:metadata": metadata, "f:spec": field_set("spec", &spec)});

    let status = &pod["status"];
    let conditions = status["conditions"].as_array().cloned().unwrap_or_default();
    let (scheduled, kubelet_conditions): (Vec<Value>, Vec<Value>) = conditions
        .into_iter()
        .partition(|c| c["type"] == "PodScheduled");
    let scheduler =
        json!({"f:status": {"f:conditions": field_set("conditions", &Value::Array(scheduled))}});
    let mut kubelet = Map::new();
    kubelet.insert(
        "f:conditions".into(),
        field_set("conditions", &Value::Array(kubelet_conditions)),
    );
    for field in [
        "containerStatuses",
        "hostIP",
        "hostIPs",
        "phase",
        "podIP",
        "podIPs",
        "startTime",
    ] {
        if let Some(v) = status.get(field) {
            kubelet.insert(format!("f:{field}"), field_set(field, v));
        }
    }
    let kubelet = json!({"f:status": kubelet});
    vec![
        entry("kube-controller-manager", false, time, controller),
        entry("kube-scheduler", true, time, scheduler),
        entry("kubelet", true, time, kubelet),
    ]
}

/// The small shape: two short entries.
pub(crate) fn small_pod_entries(time: &str) -> Vec<Value> {
    vec![
        entry(
            "kube-controller-manager",
            false,
            time,
            json!({"f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}},
                                  "f:ownerReferences": {".": {}}}, "f:spec": {"f:containers": {}, "f:restartPolicy": {}}}),
        ),
        entry(
            "kubelet",
            true,
            time,
            json!({"f:status": {"f:conditions": {}, "f:containerStatuses": {}, "f:phase": {}}}),
        ),
    ]
}

/// Records an `Update` by `manager` of the metadata fields `paths` (`["labels", "tier"]`) at
/// `time`: the manager's entry gains them and its time moves, and every other manager loses
/// them, as the API server moves ownership on an update.
pub(crate) fn record_update(
    metadata: &mut Map<String, Value>,
    manager: &str,
    time: &str,
    paths: &[&[&str]],
) {
    let Some(entries) = metadata
        .get_mut("managedFields")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for entry in entries.iter_mut() {
        if entry["manager"] == manager {
            continue;
        }
        for path in paths {
            remove_path(&mut entry["fieldsV1"]["f:metadata"], path);
        }
    }
    let position = entries
        .iter()
        .position(|e| e["manager"] == manager && e.get("subresource").is_none());
    let index = position.unwrap_or_else(|| {
        entries.push(entry(manager, false, time, json!({"f:metadata": {}})));
        entries.len() - 1
    });
    let own = &mut entries[index];
    own["time"] = json!(time);
    for path in paths {
        insert_path(&mut own["fieldsV1"]["f:metadata"], path);
    }
}

fn insert_path(set: &mut Value, path: &[&str]) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    if !set.is_object() {
        *set = json!({});
    }
    let child = &mut set[format!("f:{first}")];
    if rest.is_empty() {
        if child.is_null() {
            *child = json!({});
        }
    } else {
        if child.is_null() || child.as_object().is_some_and(Map::is_empty) {
            *child = json!({".": {}});
        }
        insert_path(child, rest);
    }
}

fn remove_path(set: &mut Value, path: &[&str]) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    let key = format!("f:{first}");
    let Some(fields) = set.as_object_mut() else {
        return;
    };
    if rest.is_empty() {
        fields.remove(&key);
    } else if let Some(child) = fields.get_mut(&key) {
        remove_path(child, rest);
    }
}

#[cfg(test)]
mod tests;
