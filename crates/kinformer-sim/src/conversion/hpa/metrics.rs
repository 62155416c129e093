//! A `spec.metrics[]` entry between `autoscaling/v2` (`metric` + `target`) and the
//! `autoscaling/v1` `MetricSpec` (the v2beta1 shape) that the `metrics` annotation holds.

use serde_json::{Map, Value, json};

use crate::conversion::go_json::{GoObject, field};

/// A metric source's field name and how its v1 form converts to v2's.
pub(super) type SourceFromV1 = (&'static str, fn(&Value) -> Value);

/// Go's zero `resource.Quantity`, which v1 writes for a non-pointer quantity left unset.
pub(super) const ZERO: &str = "0";

/// Whether `metric` is the cpu utilization target v1 holds in `targetCPUUtilizationPercentage`.
pub(super) fn is_cpu_utilization(metric: &Value) -> bool {
    metric.get("type").and_then(Value::as_str) == Some("Resource")
        && metric.pointer("/resource/name").and_then(Value::as_str) == Some("cpu")
        && metric
            .pointer("/resource/target/averageUtilization")
            .is_some_and(|v| !v.is_null())
}

/// A v2 metric as the v1 `MetricSpec` Go writes into the annotation.
pub(super) fn to_v1(metric: &Value) -> String {
    let source = |name: &str| metric.get(name).filter(|v| v.is_object());
    let mut out = GoObject::new().value("type", metric.get("type").unwrap_or(&json!("")));
    out = out.object("object", source("object").map(object_to_v1));
    out = out.object("pods", source("pods").map(pods_to_v1));
    out = out.object(
        "resource",
        source("resource").map(|r| resource_to_v1(r, false)),
    );
    out = out.object(
        "containerResource",
        source("containerResource").map(|r| resource_to_v1(r, true)),
    );
    out = out.object("external", source("external").map(external_to_v1));
    out.finish()
}

fn target<'v>(source: &'v Value, name: &str) -> Option<&'v Value> {
    source.get("target").and_then(|t| t.get(name))
}

fn metric_field<'v>(source: &'v Value, name: &str) -> Option<&'v Value> {
    source.get("metric").and_then(|m| m.get(name))
}

fn zero_or(value: Option<&Value>) -> Value {
    value.cloned().unwrap_or_else(|| json!(ZERO))
}

/// A v2 `CrossVersionObjectReference` in its Go field order.
pub(super) fn reference(value: Option<&Value>) -> String {
    let part = |name: &str| value.and_then(|v| v.get(name));
    GoObject::new()
        .value("kind", part("kind").unwrap_or(&json!("")))
        .value("name", part("name").unwrap_or(&json!("")))
        .some(
            "apiVersion",
            part("apiVersion").filter(|v| v != &&json!("")),
        )
        .finish()
}

fn object_to_v1(source: &Value) -> String {
    GoObject::new()
        .raw("target", &reference(source.get("describedObject")))
        .value(
            "metricName",
            metric_field(source, "name").unwrap_or(&json!("")),
        )
        .value("targetValue", &zero_or(target(source, "value")))
        .selector("selector", metric_field(source, "selector"))
        .some("averageValue", target(source, "averageValue"))
        .finish()
}

fn pods_to_v1(source: &Value) -> String {
    GoObject::new()
        .value(
            "metricName",
            metric_field(source, "name").unwrap_or(&json!("")),
        )
        .value(
            "targetAverageValue",
            &zero_or(target(source, "averageValue")),
        )
        .selector("selector", metric_field(source, "selector"))
        .finish()
}

fn resource_to_v1(source: &Value, container: bool) -> String {
    let mut out = GoObject::new()
        .value("name", source.get("name").unwrap_or(&json!("")))
        .some(
            "targetAverageUtilization",
            target(source, "averageUtilization"),
        )
        .some("targetAverageValue", target(source, "averageValue"));
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
        .some("targetValue", target(source, "value"))
        .some("targetAverageValue", target(source, "averageValue"))
        .finish()
}

/// A v1 `MetricSpec` from the annotation as the v2 metric it converts to.
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

/// Builds an object of the fields that are set.
pub(super) fn build<const N: usize>(fields: [(&str, Option<Value>); N]) -> Value {
    Value::Object(
        fields
            .into_iter()
            .filter_map(|(name, value)| value.map(|v| (name.to_owned(), v)))
            .collect(),
    )
}

/// A v1 source's `metricName` and selector as a v2 `MetricIdentifier`.
pub(super) fn identifier(source: &Value, selector: &str) -> Value {
    build([
        (
            "name",
            Some(field(source, "metricName").cloned().unwrap_or(json!(""))),
        ),
        ("selector", field(source, selector).cloned()),
    ])
}

/// A v1 reference (`target`) as the v2 `describedObject`.
pub(super) fn described(source: &Value) -> Value {
    let reference = field(source, "target");
    let part = |name: &str| reference.and_then(|r| field(r, name)).cloned();
    build([
        ("kind", Some(part("kind").unwrap_or(json!("")))),
        ("name", Some(part("name").unwrap_or(json!("")))),
        ("apiVersion", part("apiVersion").filter(|v| v != &json!(""))),
    ])
}

fn object_from_v1(source: &Value) -> Value {
    let average = field(source, "averageValue").cloned();
    let kind = if average.is_some() {
        "AverageValue"
    } else {
        "Value"
    };
    // v1's targetValue is not a pointer: v2 always gets a value, zero when v1 had none.
    let value = field(source, "targetValue").cloned().unwrap_or(json!(ZERO));
    build([
        ("describedObject", Some(described(source))),
        (
            "target",
            Some(build([
                ("type", Some(json!(kind))),
                ("value", Some(value)),
                ("averageValue", average),
            ])),
        ),
        ("metric", Some(identifier(source, "selector"))),
    ])
}

fn pods_from_v1(source: &Value) -> Value {
    let average = field(source, "targetAverageValue")
        .cloned()
        .unwrap_or(json!(ZERO));
    build([
        ("metric", Some(identifier(source, "selector"))),
        (
            "target",
            Some(build([
                ("type", Some(json!("AverageValue"))),
                ("averageValue", Some(average)),
            ])),
        ),
    ])
}

fn resource_from_v1(source: &Value, container: bool) -> Value {
    let utilization = field(source, "targetAverageUtilization").cloned();
    let kind = if utilization.is_some() {
        "Utilization"
    } else {
        "AverageValue"
    };
    build([
        (
            "name",
            Some(field(source, "name").cloned().unwrap_or(json!(""))),
        ),
        (
            "target",
            Some(build([
                ("type", Some(json!(kind))),
                ("averageValue", field(source, "targetAverageValue").cloned()),
                ("averageUtilization", utilization),
            ])),
        ),
        (
            "container",
            container.then(|| field(source, "container").cloned().unwrap_or(json!(""))),
        ),
    ])
}

fn external_from_v1(source: &Value) -> Value {
    let value = field(source, "targetValue").cloned();
    let kind = if value.is_some() {
        "Value"
    } else {
        "AverageValue"
    };
    build([
        ("metric", Some(identifier(source, "metricSelector"))),
        (
            "target",
            Some(build([
                ("type", Some(json!(kind))),
                ("value", value),
                ("averageValue", field(source, "targetAverageValue").cloned()),
            ])),
        ),
    ])
}
