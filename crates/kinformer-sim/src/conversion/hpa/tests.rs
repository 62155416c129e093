//! Round trips of realistic HorizontalPodAutoscalers, the annotations checked byte for byte
//! against what Kubernetes' conversion writes.

use serde_json::{Value, json};

use super::*;

mod property;

pub(super) fn map(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(m) => m,
        _ => unreachable!("an object"),
    }
}

pub(super) fn to_v1(v2: &Value) -> Value {
    let mut m = map(v2.clone());
    from_storage(&mut m);
    Value::Object(m)
}

pub(super) fn to_v2(v1: &Value) -> Value {
    let mut m = map(v1.clone());
    to_storage(&mut m);
    Value::Object(m)
}

fn annotation<'v>(obj: &'v Value, name: &str) -> &'v str {
    obj["metadata"]["annotations"][name]
        .as_str()
        .unwrap_or_else(|| panic!("{name} in {obj}"))
}

const REF: &str = r#"{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}"#;

fn scale_target() -> Value {
    serde_json::from_str(REF).unwrap()
}

#[test]
fn a_cpu_only_v1_object_round_trips_and_keeps_its_current_metric_raw() {
    let v1 = json!({
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {"scaleTargetRef": scale_target(), "minReplicas": 2, "maxReplicas": 10,
            "targetCPUUtilizationPercentage": 70},
        "status": {"observedGeneration": 1, "lastScaleTime": "2026-01-01T00:00:00Z",
            "currentReplicas": 3, "desiredReplicas": 3, "currentCPUUtilizationPercentage": 55}
    });
    let v2 = to_v2(&v1);
    assert_eq!(
        v2,
        json!({
            "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
            "spec": {"scaleTargetRef": scale_target(), "minReplicas": 2, "maxReplicas": 10,
                "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 70}}}]},
            "status": {"observedGeneration": 1, "lastScaleTime": "2026-01-01T00:00:00Z",
                "currentReplicas": 3, "desiredReplicas": 3,
                "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu",
                    "current": {"averageUtilization": 55}}}]}
        })
    );
    // Back in v1 the cpu status is also kept raw: Kubernetes writes every current metric into
    // the annotation, the unset average value as Go's zero quantity.
    let back = to_v1(&v2);
    let mut expected = v1;
    expected["metadata"]["annotations"] = json!({CURRENT_METRICS:
        r#"[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":55,"currentAverageValue":"0"}}]"#});
    assert_eq!(back, expected);
    // From there on v1 -> v2 -> v1 is stable.
    assert_eq!(to_v1(&to_v2(&back)), back);
}

#[test]
fn v1_without_a_target_gets_the_default_cpu_target_and_one_replica() {
    let v1 = json!({"metadata": {"name": "web"},
        "spec": {"scaleTargetRef": scale_target(), "maxReplicas": 4}});
    let v2 = to_v2(&v1);
    assert_eq!(v2["spec"]["minReplicas"], 1);
    assert_eq!(
        v2["spec"]["metrics"],
        json!([{"type": "Resource", "resource": {"name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": 80}}}])
    );
    assert!(v2.get("status").is_none());
    assert_eq!(to_v1(&v2)["spec"]["targetCPUUtilizationPercentage"], 80);
}

/// A v2 object with what v1 has no field for.
pub(super) fn full_v2() -> Value {
    json!({
        "metadata": {"name": "worker", "namespace": "jobs", "annotations": {"team": "infra"}},
        "spec": {
            "scaleTargetRef": scale_target(), "minReplicas": 1, "maxReplicas": 20,
            "metrics": [
                {"type": "Resource", "resource": {"name": "memory",
                    "target": {"type": "AverageValue", "averageValue": "500Mi"}}},
                {"type": "Pods", "pods": {"metric": {"name": "packets-per-second"},
                    "target": {"type": "AverageValue", "averageValue": "1k"}}},
                {"type": "External", "external": {
                    "metric": {"name": "queue_messages_ready",
                        "selector": {"matchLabels": {"queue": "worker_tasks"}}},
                    "target": {"type": "Value", "value": "30"}}},
                {"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 60}}}
            ],
            "behavior": {"scaleDown": {"stabilizationWindowSeconds": 300, "selectPolicy": "Max",
                "policies": [{"type": "Percent", "value": 10, "periodSeconds": 60}]}}
        },
        "status": {
            "currentReplicas": 4, "desiredReplicas": 5,
            "currentMetrics": [
                {"type": "Resource", "resource": {"name": "cpu",
                    "current": {"averageUtilization": 75, "averageValue": "150m"}}},
                {"type": "External", "external": {"metric": {"name": "queue_messages_ready"},
                    "current": {"value": "42"}}}
            ],
            "conditions": [
                {"type": "AbleToScale", "status": "True",
                    "lastTransitionTime": "2026-01-01T00:00:00Z", "reason": "ReadyForNewScale",
                    "message": "recommended size matches current size"},
                {"type": "ScalingLimited", "status": "False", "reason": "DesiredWithinRange"}
            ]
        }
    })
}

#[test]
fn what_v1_cannot_hold_travels_in_the_annotations_kubernetes_writes() {
    let v1 = to_v1(&full_v2());
    assert_eq!(
        v1["spec"],
        json!({"scaleTargetRef": scale_target(), "minReplicas": 1, "maxReplicas": 20,
            "targetCPUUtilizationPercentage": 60})
    );
    assert_eq!(
        v1["status"],
        json!({"currentReplicas": 4, "desiredReplicas": 5, "currentCPUUtilizationPercentage": 75})
    );
    assert_eq!(v1["metadata"]["annotations"]["team"], "infra");
    assert_eq!(
        annotation(&v1, METRICS),
        concat!(
            r#"[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"500Mi"}},"#,
            r#"{"type":"Pods","pods":{"metricName":"packets-per-second","targetAverageValue":"1k"}},"#,
            r#"{"type":"External","external":{"metricName":"queue_messages_ready","#,
            r#""metricSelector":{"matchLabels":{"queue":"worker_tasks"}},"targetValue":"30"}}]"#
        )
    );
    assert_eq!(
        annotation(&v1, CURRENT_METRICS),
        concat!(
            r#"[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":75,"currentAverageValue":"150m"}},"#,
            r#"{"type":"External","external":{"metricName":"queue_messages_ready","currentValue":"42"}}]"#
        )
    );
    assert_eq!(
        annotation(&v1, CONDITIONS),
        concat!(
            r#"[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z","#,
            r#""reason":"ReadyForNewScale","message":"recommended size matches current size"},"#,
            r#"{"type":"ScalingLimited","status":"False","lastTransitionTime":null,"reason":"DesiredWithinRange"}]"#
        )
    );
    // The internal type has no JSON tags: Go field names, unset pointers as null.
    assert_eq!(
        annotation(&v1, BEHAVIOR),
        concat!(
            r#"{"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":300,"SelectPolicy":"Max","#,
            r#""Policies":[{"Type":"Percent","Value":10,"PeriodSeconds":60}],"Tolerance":null}}"#
        )
    );
    // Back to v2: identical, the cpu target last as Kubernetes orders it, the annotations gone.
    assert_eq!(to_v2(&v1), full_v2());
    // And v1 -> v2 -> v1 gives the same v1 object.
    assert_eq!(to_v1(&to_v2(&v1)), v1);
}

#[test]
fn object_and_container_metrics_write_go_zero_values() {
    let v2 = json!({"metadata": {"name": "o"}, "spec": {"scaleTargetRef": scale_target(),
        "maxReplicas": 3, "metrics": [
            {"type": "Object", "object": {
                "describedObject": {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "name": "main"},
                "metric": {"name": "requests-per-second"},
                "target": {"type": "AverageValue", "averageValue": "2k"}}},
            {"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "app",
                "target": {"type": "Utilization", "averageUtilization": 50}}}]}});
    let v1 = to_v1(&v2);
    assert_eq!(
        annotation(&v1, METRICS),
        concat!(
            r#"[{"type":"Object","object":{"target":{"kind":"Ingress","name":"main","apiVersion":"networking.k8s.io/v1"},"#,
            r#""metricName":"requests-per-second","targetValue":"0","averageValue":"2k"}},"#,
            r#"{"type":"ContainerResource","containerResource":{"name":"cpu","targetAverageUtilization":50,"container":"app"}}]"#
        )
    );
    assert!(v1["spec"].get("targetCPUUtilizationPercentage").is_none());
    // v1's object target value is not a pointer: v2 gets the zero value back.
    let back = to_v2(&v1);
    assert_eq!(
        back["spec"]["metrics"][0]["object"]["target"],
        json!({"type": "AverageValue", "value": "0", "averageValue": "2k"})
    );
    assert_eq!(back["spec"]["metrics"][1], v2["spec"]["metrics"][1]);
}

#[test]
fn annotations_a_client_sets_are_replaced_or_ignored_when_they_do_not_parse() {
    let v1 = json!({"metadata": {"name": "web", "annotations": {
            METRICS: "not json", CONDITIONS: "[1]", BEHAVIOR: r#"{"ScaleUp":null,"ScaleDown":null}"#}},
        "spec": {"scaleTargetRef": scale_target(), "maxReplicas": 3,
            "targetCPUUtilizationPercentage": 50}});
    let v2 = to_v2(&v1);
    assert!(v2["metadata"].get("annotations").is_none());
    assert_eq!(v2["spec"]["metrics"].as_array().unwrap().len(), 1);
    assert!(v2["spec"].get("behavior").is_none());
    assert!(v2["status"].get("conditions").is_none());
    // A stored object's stale round-trip annotation is not shown: conversion writes its own.
    let mut stored = full_v2();
    stored["metadata"]["annotations"][METRICS] = json!("[]");
    stored["spec"]["metrics"] = json!([]);
    let shown = to_v1(&stored);
    assert!(shown["metadata"]["annotations"].get(METRICS).is_none());
}
