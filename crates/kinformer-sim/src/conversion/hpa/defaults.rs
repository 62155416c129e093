//! `autoscaling/v2`'s defaults (`pkg/apis/autoscaling/v2/defaults.go`), which kube-apiserver
//! applies to every HorizontalPodAutoscaler it decodes in the storage version, whichever
//! version it was written through: `minReplicas` 1, a cpu utilization target of 80% when no
//! metric is named, and a `behavior` that is set filled in with the controller's rules.

use serde_json::{Map, Value, json};

use super::{DEFAULT_CPU_UTILIZATION, cpu_metric};

/// Applies v2's defaults to a stored HorizontalPodAutoscaler's body.
pub(crate) fn v2(obj: &mut Map<String, Value>) {
    let Some(Value::Object(spec)) = obj.get_mut("spec") else {
        return;
    };
    if spec.get("minReplicas").is_none_or(Value::is_null) {
        spec.insert("minReplicas".into(), json!(1));
    }
    if spec
        .get("metrics")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        let cpu = cpu_metric(Value::from(DEFAULT_CPU_UTILIZATION));
        spec.insert("metrics".into(), json!([cpu]));
    }
    if let Some(Value::Object(behavior)) = spec.get_mut("behavior") {
        fill(behavior, "scaleUp", &scale_up());
        fill(behavior, "scaleDown", &scale_down());
    }
}

/// Scale up: no stabilization, the larger of 4 pods or 100% every 15 seconds.
fn scale_up() -> Value {
    json!({"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15}]})
}

/// Scale down: 100% every 15 seconds; the stabilization window is left to the controller's
/// flag, so it stays unset.
fn scale_down() -> Value {
    json!({"selectPolicy": "Max", "policies": [
        {"type": "Percent", "value": 100, "periodSeconds": 15}]})
}

/// Sets every field of `direction`'s rules the object leaves unset from `defaults`.
fn fill(behavior: &mut Map<String, Value>, direction: &str, defaults: &Value) {
    let mut rules = match behavior.remove(direction) {
        Some(Value::Object(rules)) => rules,
        _ => Map::new(),
    };
    rules.retain(|_, v| !v.is_null());
    if let Some(defaults) = defaults.as_object() {
        for (name, value) in defaults {
            rules.entry(name.clone()).or_insert_with(|| value.clone());
        }
    }
    behavior.insert(direction.to_owned(), Value::Object(rules));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaulted(obj: Value) -> Value {
        let Value::Object(mut map) = obj else {
            unreachable!()
        };
        v2(&mut map);
        Value::Object(map)
    }

    #[test]
    fn an_empty_spec_gets_one_replica_and_the_cpu_target() {
        let got = defaulted(json!({"spec": {"maxReplicas": 5}}));
        assert_eq!(
            got["spec"],
            json!({"maxReplicas": 5, "minReplicas": 1, "metrics": [{"type": "Resource",
                "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]})
        );
    }

    #[test]
    fn a_behavior_is_filled_in_and_keeps_what_it_sets() {
        let got = defaulted(
            json!({"spec": {"minReplicas": 2, "metrics": [{"type": "Pods"}],
            "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}}}),
        );
        assert_eq!(got["spec"]["minReplicas"], 2);
        assert_eq!(got["spec"]["metrics"], json!([{"type": "Pods"}]));
        assert_eq!(got["spec"]["behavior"]["scaleUp"], scale_up());
        assert_eq!(
            got["spec"]["behavior"]["scaleDown"],
            json!({"stabilizationWindowSeconds": 60, "selectPolicy": "Max",
                "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]})
        );
        let untouched = defaulted(json!({"spec": {"metrics": [{"type": "Pods"}]}}));
        assert!(untouched["spec"].get("behavior").is_none());
    }
}
