//! HorizontalPodAutoscaler between `autoscaling/v1` and its storage version `autoscaling/v2`,
//! as Kubernetes converts it (`pkg/apis/autoscaling/v1/conversion.go`): v1 holds one cpu
//! utilization target and the cpu utilization it sees; the metrics, statuses, conditions and
//! behavior it has no field for travel in four annotations on the v1 object, in the exact JSON
//! Kubernetes writes, and are taken back out when the object is converted back.

mod behavior;
pub(crate) mod defaults;
mod metrics;
mod status;
#[cfg(test)]
mod tests;

use serde_json::{Map, Value, json};

use super::go_json::array;

/// The spec metrics v1 cannot express (all but the cpu utilization target).
pub(crate) const METRICS: &str = "autoscaling.alpha.kubernetes.io/metrics";
/// Every `status.currentMetrics` entry, the cpu one included (it keeps its raw value).
pub(crate) const CURRENT_METRICS: &str = "autoscaling.alpha.kubernetes.io/current-metrics";
/// `status.conditions`.
pub(crate) const CONDITIONS: &str = "autoscaling.alpha.kubernetes.io/conditions";
/// `spec.behavior`, in Kubernetes' internal form.
pub(crate) const BEHAVIOR: &str = "autoscaling.alpha.kubernetes.io/behavior";

const ROUND_TRIP: [&str; 4] = [METRICS, CURRENT_METRICS, CONDITIONS, BEHAVIOR];

/// The cpu utilization v1 stands for when it names no target (`DefaultCPUUtilization`).
const DEFAULT_CPU_UTILIZATION: i64 = 80;

/// Converts a stored `autoscaling/v2` object's body to `autoscaling/v1`.
pub(crate) fn from_storage(obj: &mut Map<String, Value>) {
    let spec = obj.remove("spec").unwrap_or_else(|| json!({}));
    let status = obj.remove("status");
    let mut annotations = drop_round_trip(obj);

    let metrics = list(spec.get("metrics"));
    let mut v1_spec = copy(&spec, &["scaleTargetRef", "minReplicas", "maxReplicas"]);
    if let Some(cpu) = metrics.iter().find(|m| metrics::is_cpu_utilization(m)) {
        v1_spec.insert(
            "targetCPUUtilizationPercentage".into(),
            cpu.pointer("/resource/target/averageUtilization")
                .cloned()
                .unwrap_or(Value::Null),
        );
    }
    let others: Vec<String> = metrics
        .iter()
        .filter(|m| !metrics::is_cpu_utilization(m))
        .map(metrics::to_v1)
        .collect();
    if !others.is_empty() {
        annotations.insert(METRICS.into(), json!(array(others)));
    }
    if let Some(behavior) = spec.get("behavior").filter(|b| b.is_object()) {
        annotations.insert(BEHAVIOR.into(), json!(behavior::to_annotation(behavior)));
    }
    obj.insert("spec".into(), Value::Object(v1_spec));

    if let Some(status) = status {
        let current = list(status.get("currentMetrics"));
        let conditions = list(status.get("conditions"));
        let mut v1_status = copy(
            &status,
            &[
                "observedGeneration",
                "lastScaleTime",
                "currentReplicas",
                "desiredReplicas",
            ],
        );
        if let Some(cpu) = status::cpu_utilization(&current) {
            v1_status.insert("currentCPUUtilizationPercentage".into(), cpu);
        }
        if !current.is_empty() {
            let text = array(current.iter().map(status::to_v1));
            annotations.insert(CURRENT_METRICS.into(), json!(text));
        }
        if !conditions.is_empty() {
            let text = array(conditions.iter().map(status::condition_to_v1));
            annotations.insert(CONDITIONS.into(), json!(text));
        }
        obj.insert("status".into(), Value::Object(v1_status));
    }
    set_annotations(obj, annotations);
}

/// Converts an `autoscaling/v1` object's body to the stored `autoscaling/v2`, after v1's
/// defaulting (`minReplicas` 1), as the API server decodes a v1 object.
pub(crate) fn to_storage(obj: &mut Map<String, Value>) {
    let spec = obj.remove("spec").unwrap_or_else(|| json!({}));
    let status = obj.remove("status");
    let had_status = status.is_some();
    let annotations = annotations(obj);
    let annotation = |name: &str| annotations.get(name).and_then(Value::as_str);

    let mut v2_spec = copy(&spec, &["scaleTargetRef", "minReplicas", "maxReplicas"]);
    v2_spec
        .entry("minReplicas")
        .or_insert_with(|| Value::from(1));
    // The annotation's metrics first, the cpu target after them, as Kubernetes orders them.
    let mut metrics: Vec<Value> = annotation(METRICS)
        .and_then(parse_list)
        .map(|list| list.iter().map(metrics::from_v1).collect())
        .unwrap_or_default();
    if let Some(cpu) = spec
        .get("targetCPUUtilizationPercentage")
        .filter(|v| !v.is_null())
    {
        metrics.push(cpu_metric(cpu.clone()));
    }
    if metrics.is_empty() {
        metrics.push(cpu_metric(Value::from(DEFAULT_CPU_UTILIZATION)));
    }
    v2_spec.insert("metrics".into(), Value::Array(metrics));
    if let Some(behavior) = annotation(BEHAVIOR).and_then(behavior::from_annotation) {
        v2_spec.insert("behavior".into(), behavior);
    }
    obj.insert("spec".into(), Value::Object(v2_spec));

    let status = status.unwrap_or_else(|| json!({}));
    let mut v2_status = copy(
        &status,
        &[
            "observedGeneration",
            "lastScaleTime",
            "currentReplicas",
            "desiredReplicas",
        ],
    );
    // The annotation has more than currentCPUUtilizationPercentage: it wins.
    let current = match annotation(CURRENT_METRICS).and_then(parse_list) {
        Some(list) => Some(list.iter().map(status::from_v1).collect()),
        None => status
            .get("currentCPUUtilizationPercentage")
            .filter(|v| !v.is_null())
            .map(|cpu| {
                vec![json!({"type": "Resource",
                    "resource": {"name": "cpu", "current": {"averageUtilization": cpu}}})]
            }),
    };
    if let Some(current) = current.filter(|c: &Vec<Value>| !c.is_empty()) {
        v2_status.insert("currentMetrics".into(), Value::Array(current));
    }
    if let Some(conditions) = annotation(CONDITIONS).and_then(parse_list) {
        let conditions: Vec<Value> = conditions.iter().map(status::condition_from_v1).collect();
        if !conditions.is_empty() {
            v2_status.insert("conditions".into(), Value::Array(conditions));
        }
    }
    if !v2_status.is_empty() || had_status {
        obj.insert("status".into(), Value::Object(v2_status));
    }
    let kept = drop_round_trip(obj);
    set_annotations(obj, kept);
}

/// The v2 metric of a cpu utilization target.
fn cpu_metric(utilization: Value) -> Value {
    json!({"type": "Resource", "resource": {"name": "cpu",
        "target": {"type": "Utilization", "averageUtilization": utilization}}})
}

fn list(value: Option<&Value>) -> Vec<Value> {
    value.and_then(Value::as_array).cloned().unwrap_or_default()
}

/// An annotation's list; Kubernetes ignores one that does not parse.
fn parse_list(text: &str) -> Option<Vec<Value>> {
    match serde_json::from_str::<Value>(text).ok()? {
        Value::Array(list) if list.iter().all(Value::is_object) => Some(list),
        _ => None,
    }
}

fn copy(from: &Value, fields: &[&str]) -> Map<String, Value> {
    fields
        .iter()
        .filter_map(|f| from.get(*f).map(|v| ((*f).to_owned(), v.clone())))
        .collect()
}

fn annotations(obj: &Map<String, Value>) -> Map<String, Value> {
    obj.get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// The object's annotations without the round-trip ones, which only conversion writes.
fn drop_round_trip(obj: &Map<String, Value>) -> Map<String, Value> {
    let mut kept = annotations(obj);
    kept.retain(|k, _| !ROUND_TRIP.contains(&k.as_str()));
    kept
}

/// Sets the object's annotations; an empty map is left out, as Go's `omitempty` leaves it.
fn set_annotations(obj: &mut Map<String, Value>, annotations: Map<String, Value>) {
    let Some(Value::Object(md)) = obj.get_mut("metadata") else {
        if !annotations.is_empty() {
            obj.insert(
                "metadata".into(),
                json!({ "annotations": Value::Object(annotations) }),
            );
        }
        return;
    };
    if annotations.is_empty() {
        md.remove("annotations");
    } else {
        md.insert("annotations".into(), Value::Object(annotations));
    }
}
