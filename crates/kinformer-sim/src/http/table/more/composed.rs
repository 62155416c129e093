//! The cells of the printers that compose several fields: selectors, references, access
//! modes, endpoints, quotas, targets and conditions, as kube-apiserver's printers write them.

use serde_json::{Value, json};

use super::pairs;
use crate::http::table::printers::{NONE, int_at, items, selector, str_at};

/// A ReplicaSet's selector is a label selector; a ReplicationController's a map.
pub(super) fn workload_selector(o: &Value) -> Value {
    match o.pointer("/spec/selector") {
        Some(s) if s.get("matchLabels").is_some() || s.get("matchExpressions").is_some() => {
            json!(selector(Some(s)))
        }
        other => json!(pairs(other)),
    }
}

pub(super) fn ready_of_replicas(o: &Value) -> Value {
    json!(format!(
        "{}/{}",
        int_at(o, "/status/readyReplicas"),
        o.pointer("/spec/replicas")
            .and_then(Value::as_i64)
            .unwrap_or(1)
    ))
}

pub(super) fn controller_of(o: &Value) -> Value {
    let owner = items(o, "/metadata/ownerReferences")
        .iter()
        .find(|r| r.get("controller") == Some(&json!(true)));
    json!(owner.map_or_else(
        || NONE.to_owned(),
        |r| {
            let group = str_at(r, "/apiVersion")
                .and_then(|v| v.rsplit_once('/'))
                .map_or("", |(g, _)| g);
            let kind = str_at(r, "/kind").unwrap_or_default().to_lowercase();
            let kind = if group.is_empty() {
                kind
            } else {
                format!("{kind}.{group}")
            };
            format!("{kind}/{}", str_at(r, "/name").unwrap_or_default())
        }
    ))
}

pub(super) fn endpoints(o: &Value) -> Value {
    let mut list = Vec::new();
    for subset in items(o, "/subsets") {
        let ports: Vec<i64> = items(subset, "/ports")
            .iter()
            .map(|p| int_at(p, "/port"))
            .collect();
        for address in items(subset, "/addresses") {
            let ip = str_at(address, "/ip").unwrap_or_default();
            if ports.is_empty() {
                list.push(ip.to_owned())
            } else {
                list.extend(ports.iter().map(|p| format!("{ip}:{p}")))
            }
        }
    }
    json!(match list.len() {
        0 => NONE.to_owned(),
        n if n > 3 => format!("{} + {} more...", list[..3].join(","), n - 3),
        _ => list.join(","),
    })
}

pub(super) fn access_modes(o: &Value, p: &str) -> Value {
    let modes: Vec<&str> = items(o, p)
        .iter()
        .filter_map(Value::as_str)
        .map(|m| match m {
            "ReadWriteOnce" => "RWO",
            "ReadOnlyMany" => "ROX",
            "ReadWriteMany" => "RWX",
            "ReadWriteOncePod" => "RWOP",
            other => other,
        })
        .collect();
    json!(modes.join(","))
}

pub(super) fn claim(o: &Value) -> Value {
    match o.pointer("/spec/claimRef") {
        Some(r) => json!(format!(
            "{}/{}",
            str_at(r, "/namespace").unwrap_or_default(),
            str_at(r, "/name").unwrap_or_default()
        )),
        None => json!(""),
    }
}

pub(super) fn quota(o: &Value, limits: bool) -> Value {
    let hard = o.pointer("/status/hard").and_then(Value::as_object);
    let used = o.pointer("/status/used");
    let cells: Vec<String> = hard
        .into_iter()
        .flatten()
        .filter(|(k, _)| k.starts_with("limits.") == limits)
        .map(|(k, v)| {
            let now = used
                .and_then(|u| u.get(k))
                .and_then(Value::as_str)
                .unwrap_or("0");
            format!("{k}: {now}/{}", v.as_str().unwrap_or_default())
        })
        .collect();
    json!(cells.join(", "))
}

pub(super) fn reference(o: &Value, p: &str) -> Value {
    match o.pointer(p) {
        Some(r) if r.get("name").is_some() => json!(format!(
            "{}/{}",
            str_at(r, "/kind").unwrap_or_default(),
            str_at(r, "/name").unwrap_or_default()
        )),
        _ => json!("<unset>"),
    }
}

pub(super) fn hpa_targets(o: &Value) -> Value {
    let targets: Vec<String> = items(o, "/spec/metrics")
        .iter()
        .filter_map(|m| {
            let name = str_at(m, "/resource/name")?;
            let target = m
                .pointer("/resource/target/averageUtilization")
                .and_then(Value::as_i64)?;
            let current = items(o, "/status/currentMetrics")
                .iter()
                .find(|c| str_at(c, "/resource/name") == Some(name))
                .and_then(|c| {
                    c.pointer("/resource/current/averageUtilization")
                        .and_then(Value::as_i64)
                })
                .map_or_else(|| "<unknown>".to_owned(), |c| format!("{c}%"));
            Some(format!("{name}: {current}/{target}%"))
        })
        .collect();
    json!(if targets.is_empty() {
        NONE.to_owned()
    } else {
        targets.join(", ")
    })
}

pub(super) fn ingress_hosts(o: &Value) -> Value {
    let hosts: Vec<&str> = items(o, "/spec/rules")
        .iter()
        .map(|r| str_at(r, "/host").unwrap_or("*"))
        .collect();
    json!(if hosts.is_empty() {
        "*".to_owned()
    } else {
        hosts.join(",")
    })
}

pub(super) fn load_balancer(o: &Value) -> Value {
    let all: Vec<&str> = items(o, "/status/loadBalancer/ingress")
        .iter()
        .filter_map(|i| str_at(i, "/ip").or_else(|| str_at(i, "/hostname")))
        .collect();
    json!(all.join(","))
}

pub(super) fn parent_ref(o: &Value) -> Value {
    match o.pointer("/spec/parentRef") {
        Some(r) => json!(format!(
            "{}/{}/{}",
            str_at(r, "/resource").unwrap_or_default(),
            str_at(r, "/namespace").unwrap_or_default(),
            str_at(r, "/name").unwrap_or_default()
        )),
        None => json!(""),
    }
}

pub(super) fn int_or_string(o: &Value, p: &str) -> Value {
    match o.pointer(p) {
        Some(Value::Number(n)) => json!(n.to_string()),
        Some(Value::String(s)) => json!(s),
        _ => json!("N/A"),
    }
}

pub(super) fn subjects(o: &Value, kind: &str) -> Value {
    let names: Vec<String> = items(o, "/subjects")
        .iter()
        .filter(|s| str_at(s, "/kind") == Some(kind))
        .map(|s| match (kind, str_at(s, "/namespace")) {
            ("ServiceAccount", Some(ns)) => {
                format!("{ns}/{}", str_at(s, "/name").unwrap_or_default())
            }
            _ => str_at(s, "/name").unwrap_or_default().to_owned(),
        })
        .collect();
    json!(names.join(", "))
}

pub(super) fn requested_duration(o: &Value) -> Value {
    match o.pointer("/spec/expirationSeconds").and_then(Value::as_i64) {
        Some(seconds) => json!(crate::http::table::age::human(seconds)),
        None => json!(NONE),
    }
}

pub(super) fn csr_condition(o: &Value) -> Value {
    let kinds: Vec<&str> = items(o, "/status/conditions")
        .iter()
        .filter_map(|c| str_at(c, "/type"))
        .collect();
    json!(if kinds.is_empty() {
        "Pending".to_owned()
    } else {
        kinds.join(",")
    })
}

pub(super) fn slice_ports(o: &Value) -> Value {
    let ports: Vec<String> = items(o, "/ports")
        .iter()
        .filter_map(|p| p.get("port").and_then(Value::as_i64))
        .map(|p| p.to_string())
        .collect();
    json!(if ports.is_empty() {
        "<unset>".to_owned()
    } else {
        ports.join(",")
    })
}

pub(super) fn slice_endpoints(o: &Value) -> Value {
    let all: Vec<&str> = items(o, "/endpoints")
        .iter()
        .flat_map(|e| items(e, "/addresses"))
        .filter_map(Value::as_str)
        .collect();
    json!(match all.len() {
        0 => "<unset>".to_owned(),
        n if n > 3 => format!("{} + {} more...", all[..3].join(","), n - 3),
        _ => all.join(","),
    })
}

pub(super) fn param_kind(o: &Value) -> Value {
    match o.pointer("/spec/paramKind") {
        Some(k) => json!(format!(
            "{}/{}",
            str_at(k, "/apiVersion").unwrap_or_default(),
            str_at(k, "/kind").unwrap_or_default()
        )),
        None => json!("<unset>"),
    }
}

pub(super) fn missing_priority_level(o: &Value) -> Value {
    let dangling = items(o, "/status/conditions")
        .iter()
        .find(|c| str_at(c, "/type") == Some("Dangling"));
    json!(match dangling.and_then(|c| str_at(c, "/status")) {
        Some("True") => "True",
        Some("False") => "False",
        _ => "?",
    })
}

pub(super) fn limited(o: &Value, field: &str) -> Value {
    match o
        .pointer(&format!("/spec/limited/{field}"))
        .and_then(Value::as_i64)
    {
        Some(n) => json!(n.to_string()),
        None => json!(NONE),
    }
}

pub(super) fn queuing(o: &Value, field: &str) -> Value {
    match o
        .pointer(&format!("/spec/limited/limitResponse/queuing/{field}"))
        .and_then(Value::as_i64)
    {
        Some(n) => json!(n.to_string()),
        None => json!(NONE),
    }
}

pub(super) fn api_service(o: &Value) -> Value {
    match o.pointer("/spec/service") {
        Some(s) => json!(format!(
            "{}/{}",
            str_at(s, "/namespace").unwrap_or_default(),
            str_at(s, "/name").unwrap_or_default()
        )),
        None => json!("Local"),
    }
}

pub(super) fn api_service_available(o: &Value) -> Value {
    let available = items(o, "/status/conditions")
        .iter()
        .find(|c| str_at(c, "/type") == Some("Available"));
    json!(match available {
        Some(c) if str_at(c, "/status") == Some("True") => "True".to_owned(),
        Some(c) => format!(
            "{} ({})",
            str_at(c, "/status").unwrap_or("Unknown"),
            str_at(c, "/reason").unwrap_or_default()
        ),
        None => "Unknown".to_owned(),
    })
}

pub(super) fn claim_state(o: &Value) -> Value {
    let allocated = o.pointer("/status/allocation").is_some();
    let reserved = !items(o, "/status/reservedFor").is_empty();
    json!(match (allocated, reserved) {
        (true, true) => "allocated,reserved",
        (true, false) => "allocated",
        _ => "pending",
    })
}
