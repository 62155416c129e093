//! `status.currentMetrics[]` and `status.conditions[]` between `autoscaling/v2` and the
//! `autoscaling/v1` shapes the `current-metrics` and `conditions` annotations hold.

use serde_json::{Map, Value, json};

use super::metrics::{SourceFromV1, ZERO, build, described, identifier, reference};
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

fn current<'v>(source: &'v Value, name: &str) -> Option<&'v Value> {
    source.get("current").and_then(|c| c.get(name))
}

fn metric_field<'v>(source: &'v Value, name: &str) -> Option<&'v Value> {
    source.get("metric").and_then(|m| m.get(name))
}

fn zero_or(value: Option<&Value>) -> Value {
    value.cloned().unwrap_or_else(|| json!(ZERO))
}

/// A v2 metric status as the v1 `MetricStatus` Go writes into the annotation.
pub(super) fn to_v1(metric: &Value) -> String {
    let source = |name: &str| metric.get(name).filter(|v| v.is_object());
    GoObject::new()
        .value("type", metric.get("type").unwrap_or(&json!("")))
        .object("object", source("object").map(object_to_v1))
        .object("pods", source("pods").map(pods_to_v1))
        .object(
            "resource",
            source("resource").map(|r| resource_to_v1(r, false)),
        )
        .object(
            "containerResource",
            source("containerResource").map(|r| resource_to_v1(r, true)),
        )
        .object("external", source("external").map(external_to_v1))
        .finish()
}

fn object_to_v1(source: &Value) -> String {
    GoObject::new()
        .raw("target", &reference(source.get("describedObject")))
        .value(
            "metricName",
            metric_field(source, "name").unwrap_or(&json!("")),
        )
        .value("currentValue", &zero_or(current(source, "value")))
        .selector("selector", metric_field(source, "selector"))
        .some("averageValue", current(source, "averageValue"))
        .finish()
}

fn pods_to_v1(source: &Value) -> String {
    GoObject::new()
        .value(
            "metricName",
            metric_field(source, "name").unwrap_or(&json!("")),
        )
        .value(
            "currentAverageValue",
            &zero_or(current(source, "averageValue")),
        )
        .selector("selector", metric_field(source, "selector"))
        .finish()
}

fn resource_to_v1(source: &Value, container: bool) -> String {
    let mut out = GoObject::new()
        .value("name", source.get("name").unwrap_or(&json!("")))
        .some(
            "currentAverageUtilization",
            current(source, "averageUtilization"),
        )
        .value(
            "currentAverageValue",
            &zero_or(current(source, "averageValue")),
        );
    if container {
        out = out.value("container", source.get("container").unwrap_or(&json!("")));
    }
    out.finish()
}

fn external_to_v1(source: &Value) -> String {
    GoObject::new()
        .value(
            "metricName",
            metric_field(source, "name").unwrap_or(&json!("")),
        )
        .selector("metricSelector", metric_field(source, "selector"))
        .value("currentValue", &zero_or(current(source, "value")))
        .some("currentAverageValue", current(source, "averageValue"))
        .finish()
}

/// A v1 `MetricStatus` from the annotation as the v2 metric status it converts to.
pub(super) fn from_v1(metric: &Value) -> Value {
    let mut out = Map::new();
    out.insert(
        "type".into(),
        field(metric, "type").cloned().unwrap_or_else(|| json!("")),
    );
    let sources: [SourceFromV1; 5] = [
        ("object", object_from_v1),
        ("pods", pods_from_v1),
        ("resource", |r| resource_from_v1(r, false)),
        ("containerResource", |r| resource_from_v1(r, true)),
        ("external", external_from_v1),
    ];
    for (name, convert) in sources {
        if let Some(source) = field(metric, name).filter(|v| v.is_object()) {
            out.insert(name.into(), convert(source));
        }
    }
    Value::Object(out)
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
