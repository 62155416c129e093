//! The columns kube-apiserver prints for the built-in types kubectl shows most (its
//! `printers.go`), and the cells of one object; other built-in types get Name and Created At.

use serde_json::{Value, json};

use super::Column;
use super::age::since;

const NONE: &str = "<none>";

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
        ("", "events") => vec![
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

fn str_at<'a>(obj: &'a Value, pointer: &str) -> Option<&'a str> {
    obj.pointer(pointer)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

fn int_at(obj: &Value, pointer: &str) -> i64 {
    obj.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

fn items<'a>(obj: &'a Value, pointer: &str) -> &'a [Value] {
    obj.pointer(pointer)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn or_none(value: Option<&str>) -> Value {
    Value::from(value.unwrap_or(NONE))
}

/// The cells of `obj` under `columns(group, plural)`.
pub(super) fn cells(group: &str, plural: &str, obj: &Value, now: i64) -> Vec<Value> {
    let name = json!(str_at(obj, "/metadata/name").unwrap_or_default());
    let age = json!(since(str_at(obj, "/metadata/creationTimestamp"), now));
    match (group, plural) {
        ("", "pods") => pod(obj, name, age, now),
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
        ("", "services") => service(obj, name, age),
        ("", "nodes") => node(obj, name, age),
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
        ("batch", "jobs") => job(obj, name, age, now),
        ("", "events") => event(obj, name, now),
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

fn joined(list: &[Value], field: &str) -> String {
    list.iter()
        .filter_map(|c| c.get(field).and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join(",")
}

/// A label selector's text form (`app=web,tier in (a,b)`), or `<none>`.
fn selector(selector: Option<&Value>) -> String {
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

fn pod(obj: &Value, name: Value, age: Value, now: i64) -> Vec<Value> {
    let statuses = items(obj, "/status/containerStatuses");
    let ready = statuses
        .iter()
        .filter(|s| s.get("ready") == Some(&json!(true)))
        .count();
    let total = items(obj, "/spec/containers").len();
    let mut reason = str_at(obj, "/status/reason")
        .or_else(|| str_at(obj, "/status/phase"))
        .unwrap_or_default()
        .to_owned();
    for status in statuses.iter().rev() {
        if let Some(waiting) = str_at(status, "/state/waiting/reason") {
            reason = waiting.to_owned();
        } else if let Some(terminated) = str_at(status, "/state/terminated/reason") {
            reason = terminated.to_owned();
        }
    }
    if obj
        .pointer("/metadata/deletionTimestamp")
        .is_some_and(|t| !t.is_null())
    {
        reason = "Terminating".to_owned();
    }
    let restarts: i64 = statuses.iter().map(|s| int_at(s, "/restartCount")).sum();
    let last = statuses
        .iter()
        .filter_map(|s| str_at(s, "/lastState/terminated/finishedAt"))
        .max();
    let restarts = match last {
        Some(at) => json!(format!("{restarts} ({} ago)", since(Some(at), now))),
        None => json!(restarts),
    };
    let gates = items(obj, "/spec/readinessGates");
    let gates = if gates.is_empty() {
        json!(NONE)
    } else {
        let conditions = items(obj, "/status/conditions");
        let met = gates
            .iter()
            .filter(|g| {
                let kind = g.get("conditionType");
                conditions
                    .iter()
                    .any(|c| c.get("type") == kind && c.get("status") == Some(&json!("True")))
            })
            .count();
        json!(format!("{met}/{}", gates.len()))
    };
    vec![
        name,
        json!(format!("{ready}/{total}")),
        json!(reason),
        restarts,
        age,
        or_none(str_at(obj, "/status/podIP")),
        or_none(str_at(obj, "/spec/nodeName")),
        or_none(str_at(obj, "/status/nominatedNodeName")),
        gates,
    ]
}

fn service(obj: &Value, name: Value, age: Value) -> Vec<Value> {
    let kind = str_at(obj, "/spec/type").unwrap_or("ClusterIP");
    let mut external: Vec<String> = items(obj, "/spec/externalIPs")
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    match kind {
        "LoadBalancer" => {
            let ingress: Vec<String> = items(obj, "/status/loadBalancer/ingress")
                .iter()
                .filter_map(|i| str_at(i, "/ip").or_else(|| str_at(i, "/hostname")))
                .map(str::to_owned)
                .collect();
            external.extend(ingress);
            if external.is_empty() {
                external.push("<pending>".to_owned());
            }
        }
        "ExternalName" => {
            external = vec![
                str_at(obj, "/spec/externalName")
                    .unwrap_or_default()
                    .to_owned(),
            ]
        }
        _ => {}
    }
    let ports: Vec<String> = items(obj, "/spec/ports")
        .iter()
        .map(|p| {
            let protocol = str_at(p, "/protocol").unwrap_or("TCP");
            match p.get("nodePort").and_then(Value::as_i64) {
                Some(node) if node > 0 => format!("{}:{node}/{protocol}", int_at(p, "/port")),
                _ => format!("{}/{protocol}", int_at(p, "/port")),
            }
        })
        .collect();
    let selector = obj
        .pointer("/spec/selector")
        .and_then(Value::as_object)
        .filter(|m| !m.is_empty())
        .map_or_else(
            || NONE.to_owned(),
            |m| {
                m.iter()
                    .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
                    .collect::<Vec<_>>()
                    .join(",")
            },
        );
    vec![
        name,
        json!(kind),
        or_none(str_at(obj, "/spec/clusterIP")),
        json!(if external.is_empty() {
            NONE.to_owned()
        } else {
            external.join(",")
        }),
        json!(if ports.is_empty() {
            NONE.to_owned()
        } else {
            ports.join(",")
        }),
        age,
        json!(selector),
    ]
}

fn node(obj: &Value, name: Value, age: Value) -> Vec<Value> {
    let ready = items(obj, "/status/conditions")
        .iter()
        .find(|c| c.get("type") == Some(&json!("Ready")));
    let mut status = match ready.and_then(|c| str_at(c, "/status")) {
        Some("True") => "Ready".to_owned(),
        Some("False") => "NotReady".to_owned(),
        _ => "Unknown".to_owned(),
    };
    if obj.pointer("/spec/unschedulable") == Some(&json!(true)) {
        status.push_str(",SchedulingDisabled");
    }
    let mut roles: Vec<&str> = obj
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, _)| k.strip_prefix("node-role.kubernetes.io/"))
        .filter(|r| !r.is_empty())
        .collect();
    roles.sort_unstable();
    let address = |kind: &str| {
        items(obj, "/status/addresses")
            .iter()
            .find(|a| a.get("type") == Some(&json!(kind)))
            .and_then(|a| str_at(a, "/address"))
    };
    vec![
        name,
        json!(status),
        json!(if roles.is_empty() {
            NONE.to_owned()
        } else {
            roles.join(",")
        }),
        age,
        json!(str_at(obj, "/status/nodeInfo/kubeletVersion").unwrap_or_default()),
        or_none(address("InternalIP")),
        or_none(address("ExternalIP")),
        json!(str_at(obj, "/status/nodeInfo/osImage").unwrap_or("<unknown>")),
        json!(str_at(obj, "/status/nodeInfo/kernelVersion").unwrap_or("<unknown>")),
        json!(str_at(obj, "/status/nodeInfo/containerRuntimeVersion").unwrap_or("<unknown>")),
    ]
}

fn job(obj: &Value, name: Value, age: Value, now: i64) -> Vec<Value> {
    let condition = |kind: &str| {
        items(obj, "/status/conditions")
            .iter()
            .any(|c| c.get("type") == Some(&json!(kind)) && c.get("status") == Some(&json!("True")))
    };
    let status = if condition("Complete") {
        "Complete"
    } else if condition("Failed") {
        "Failed"
    } else if condition("Suspended") {
        "Suspended"
    } else {
        "Running"
    };
    let succeeded = int_at(obj, "/status/succeeded");
    let completions = match obj.pointer("/spec/completions").and_then(Value::as_i64) {
        Some(n) => format!("{succeeded}/{n}"),
        None => {
            let parallelism = obj
                .pointer("/spec/parallelism")
                .and_then(Value::as_i64)
                .unwrap_or(1);
            format!("{succeeded}/1 of {parallelism}")
        }
    };
    let start = str_at(obj, "/status/startTime").and_then(crate::clock::parse_rfc3339);
    let end = str_at(obj, "/status/completionTime")
        .and_then(crate::clock::parse_rfc3339)
        .unwrap_or(now);
    let duration = start.map_or_else(String::new, |s| super::age::human(end - s));
    let containers = items(obj, "/spec/template/spec/containers");
    vec![
        name,
        json!(status),
        json!(completions),
        json!(duration),
        age,
        json!(joined(containers, "name")),
        json!(joined(containers, "image")),
        json!(selector(obj.pointer("/spec/selector"))),
    ]
}

fn event(obj: &Value, name: Value, now: i64) -> Vec<Value> {
    let last = str_at(obj, "/lastTimestamp")
        .or_else(|| str_at(obj, "/eventTime"))
        .or_else(|| str_at(obj, "/metadata/creationTimestamp"));
    let first = str_at(obj, "/firstTimestamp")
        .or_else(|| str_at(obj, "/eventTime"))
        .or(last);
    let object = format!(
        "{}/{}",
        str_at(obj, "/involvedObject/kind")
            .unwrap_or_default()
            .to_lowercase(),
        str_at(obj, "/involvedObject/name").unwrap_or_default()
    );
    let source = str_at(obj, "/source/component")
        .or_else(|| str_at(obj, "/reportingComponent"))
        .unwrap_or_default();
    vec![
        json!(since(last, now)),
        json!(str_at(obj, "/type").unwrap_or_default()),
        json!(str_at(obj, "/reason").unwrap_or_default()),
        json!(object),
        json!(str_at(obj, "/involvedObject/fieldPath").unwrap_or_default()),
        json!(source),
        json!(str_at(obj, "/message").unwrap_or_default().trim()),
        json!(since(first, now)),
        json!(int_at(obj, "/count").to_string()),
        name,
    ]
}
