//! `status.currentMetrics[]` and `status.conditions[]` between `autoscaling/v2` and the
//! `autoscaling/v1` shapes the `current-metrics` and `conditions` annotations hold.

use serde_json::{Value, json};

use super::metrics::{Side, ZERO, build, described, identifier, sources_from_v1};
use crate::conversion::go_json::{GoObject, field};

/// The cpu utilization v1 shows as `currentCPUUtilizationPercentage`: Go's loop keeps the
/// last cpu entry that has one.
pub(super) fn cpu_utilization(current: &[Value]) -> Option<Value> {
    current
        .iter()
        .filter(|m| {
            m.get("type").and_then(Value::as_str) == Some("Resource")
                && m.pointer("/resource/name").and_then(Value::as_str) == Some("cpu")
        })
        .filter_map(|m| m.pointer("/resource/current/averageUtilization"))
        .rfind(|v| !v.is_null())
        .cloned()
}

/// A v2 metric status as the v1 `MetricStatus` Go writes into the annotation.
pub(super) fn to_v1(metric: &Value) -> String {
    Side::STATUS.to_v1(metric)
}

/// A v1 `MetricStatus` from the annotation as the v2 metric status it converts to.
pub(super) fn from_v1(metric: &Value) -> Value {
    sources_from_v1(
        metric,
        [
            ("object", object_from_v1),
            ("pods", pods_from_v1),
            ("resource", |r| resource_from_v1(r, false)),
            ("containerResource", |r| resource_from_v1(r, true)),
            ("external", external_from_v1),
        ],
    )
}

/// A v1 quantity that is not a pointer: v2 always gets one, zero when v1 had none.
fn quantity(source: &Value, name: &str) -> Option<Value> {
    Some(field(source, name).cloned().unwrap_or(json!(ZERO)))
}

fn object_from_v1(source: &Value) -> Value {
    build([
        ("metric", Some(identifier(source, "selector"))),
        (
            "current",
            Some(build([
                ("value", quantity(source, "currentValue")),
                ("averageValue", field(source, "averageValue").cloned()),
            ])),
        ),
        ("describedObject", Some(described(source))),
    ])
}

fn pods_from_v1(source: &Value) -> Value {
    build([
        ("metric", Some(identifier(source, "selector"))),
        (
            "current",
            Some(build([(
                "averageValue",
                quantity(source, "currentAverageValue"),
            )])),
        ),
    ])
}

fn resource_from_v1(source: &Value, container: bool) -> Value {
    build([
        (
            "name",
            Some(field(source, "name").cloned().unwrap_or(json!(""))),
        ),
        (
            "current",
            Some(build([
                ("averageValue", quantity(source, "currentAverageValue")),
                (
                    "averageUtilization",
                    field(source, "currentAverageUtilization").cloned(),
                ),
            ])),
        ),
        (
            "container",
            container.then(|| field(source, "container").cloned().unwrap_or(json!(""))),
        ),
    ])
}

fn external_from_v1(source: &Value) -> Value {
    build([
        ("metric", Some(identifier(source, "metricSelector"))),
        (
            "current",
            Some(build([
                ("value", quantity(source, "currentValue")),
                (
                    "averageValue",
                    field(source, "currentAverageValue").cloned(),
                ),
            ])),
        ),
    ])
}

/// A v2 condition as the v1 `HorizontalPodAutoscalerCondition` Go writes into the annotation
/// (`lastTransitionTime` is a struct, so Go writes it even when zero, as `null`).
pub(super) fn condition_to_v1(condition: &Value) -> String {
    let text = |name: &str| condition.get(name).filter(|v| v != &&json!(""));
    GoObject::new()
        .value("type", condition.get("type").unwrap_or(&json!("")))
        .value("status", condition.get("status").unwrap_or(&json!("")))
        .or_null("lastTransitionTime", condition.get("lastTransitionTime"))
        .some("reason", text("reason"))
        .some("message", text("message"))
        .some("observedGeneration", condition.get("observedGeneration"))
        .finish()
}

/// A v1 condition from the annotation as the v2 condition.
pub(super) fn condition_from_v1(condition: &Value) -> Value {
    let text = |name: &str| field(condition, name).filter(|v| v != &&json!("")).cloned();
    build([
        (
            "type",
            Some(field(condition, "type").cloned().unwrap_or(json!(""))),
        ),
        (
            "status",
            Some(field(condition, "status").cloned().unwrap_or(json!(""))),
        ),
        ("lastTransitionTime", text("lastTransitionTime")),
        ("reason", text("reason")),
        ("message", text("message")),
        (
            "observedGeneration",
            field(condition, "observedGeneration").cloned(),
        ),
    ])
}
