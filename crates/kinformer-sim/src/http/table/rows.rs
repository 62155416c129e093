//! The cells of the built-in types whose printers compute more than a field: pods (readiness,
//! status, restarts), services (addresses and ports), nodes (conditions and roles), jobs and
//! events, as kube-apiserver's printers compute them.

use serde_json::{Value, json};

use super::age::since;
use super::printers::{NONE, int_at, items, joined, or_none, selector, str_at};

pub(super) fn pod(obj: &Value, name: Value, age: Value, now: i64) -> Vec<Value> {
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

pub(super) fn service(obj: &Value, name: Value, age: Value) -> Vec<Value> {
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

pub(super) fn node(obj: &Value, name: Value, age: Value) -> Vec<Value> {
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

pub(super) fn job(obj: &Value, name: Value, age: Value, now: i64) -> Vec<Value> {
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

pub(super) fn event(obj: &Value, name: Value, now: i64) -> Vec<Value> {
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
    let count = int_at(obj, "/count");
    // A repeated event says how often and since when, as kube-apiserver's printer writes it.
    let last_seen = if count > 1 {
        format!("{} (x{count} over {})", since(last, now), since(first, now))
    } else {
        since(last, now)
    };
    vec![
        json!(last_seen),
        json!(str_at(obj, "/type").unwrap_or_default()),
        json!(str_at(obj, "/reason").unwrap_or_default()),
        json!(object),
        json!(str_at(obj, "/involvedObject/fieldPath").unwrap_or_default()),
        json!(source),
        json!(str_at(obj, "/message").unwrap_or_default().trim()),
        json!(since(first, now)),
        json!(count.to_string()),
        name,
    ]
}

/// An `events.k8s.io/v1` Event in the core Event's fields, as kube-apiserver converts it before
/// it prints one.
pub(super) fn as_core_event(obj: &Value) -> Value {
    let field = |p: &str| obj.pointer(p).cloned().unwrap_or(Value::Null);
    let last = str_at(obj, "/deprecatedLastTimestamp")
        .or_else(|| str_at(obj, "/series/lastObservedTime"))
        .or_else(|| str_at(obj, "/eventTime"));
    let count = obj
        .pointer("/series/count")
        .or_else(|| obj.pointer("/deprecatedCount"))
        .and_then(Value::as_i64)
        .unwrap_or(1);
    json!({
        "metadata": field("/metadata"),
        "involvedObject": field("/regarding"),
        "reason": field("/reason"),
        "message": field("/note"),
        "type": field("/type"),
        "source": {"component": str_at(obj, "/reportingController").unwrap_or_default()},
        "firstTimestamp": field("/deprecatedFirstTimestamp"),
        "lastTimestamp": last,
        "eventTime": field("/eventTime"),
        "count": count,
    })
}
