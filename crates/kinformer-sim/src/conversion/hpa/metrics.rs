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
    Side::SPEC.to_v1(metric)
}

/// Which half of a v2 metric converts to v1: a spec's `target` or a status's `current`. Their
/// v1 forms name the same fields with their own prefix, and differ in which quantities Go holds
/// as pointers (left out when unset) rather than values (written as zero when unset).
pub(super) struct Side {
    /// The v2 block holding the values, and the prefix of their v1 names.
    block: &'static str,
    /// Whether v1's resource `<prefix>AverageValue` is a pointer.
    resource_average_is_pointer: bool,
    /// Whether v1's external `<prefix>Value` is a pointer.
    external_value_is_pointer: bool,
}

impl Side {
    /// `MetricSpec`: `target...` fields.
    pub(super) const SPEC: Self = Self {
        block: "target",
        resource_average_is_pointer: true,
        external_value_is_pointer: true,
    };
    /// `MetricStatus`: `current...` fields.
    pub(super) const STATUS: Self = Self {
        block: "current",
        resource_average_is_pointer: false,
        external_value_is_pointer: false,
    };

    /// A v2 metric (spec or status) as the v1 form Go writes into the annotation.
    pub(super) fn to_v1(&self, metric: &Value) -> String {
        let source = |name: &str| metric.get(name).filter(|v| v.is_object());
        GoObject::new()
            .value("type", metric.get("type").unwrap_or(&json!("")))
            .object("object", source("object").map(|s| self.object(s)))
            .object("pods", source("pods").map(|s| self.pods(s)))
            .object(
                "resource",
                source("resource").map(|s| self.resource(s, false)),
            )
            .object(
                "containerResource",
                source("containerResource").map(|s| self.resource(s, true)),
            )
            .object("external", source("external").map(|s| self.external(s)))
            .finish()
    }

    fn get<'v>(&self, source: &'v Value, name: &str) -> Option<&'v Value> {
        source.get(self.block).and_then(|values| values.get(name))
    }

    /// The v1 name of `suffix` on this side (`targetValue`, `currentAverageValue`).
    fn name(&self, suffix: &str) -> String {
        format!("{}{suffix}", self.block)
    }

    /// A quantity: left out when unset if Go holds it as a pointer, else zero.
    fn quantity(
        &self,
        out: GoObject,
        suffix: &str,
        value: Option<&Value>,
        pointer: bool,
    ) -> GoObject {
        if pointer {
            out.some(&self.name(suffix), value)
        } else {
            out.value(&self.name(suffix), &zero_or(value))
        }
    }

    fn object(&self, source: &Value) -> String {
        let out = GoObject::new()
            .raw("target", &reference(source.get("describedObject")))
            .value("metricName", metric_name(source));
        self.quantity(out, "Value", self.get(source, "value"), false)
            .selector("selector", metric_field(source, "selector"))
            .some("averageValue", self.get(source, "averageValue"))
            .finish()
    }

    fn pods(&self, source: &Value) -> String {
        let out = GoObject::new().value("metricName", metric_name(source));
        self.quantity(out, "AverageValue", self.get(source, "averageValue"), false)
            .selector("selector", metric_field(source, "selector"))
            .finish()
    }

    fn resource(&self, source: &Value, container: bool) -> String {
        let out = GoObject::new()
            .value("name", source.get("name").unwrap_or(&json!("")))
            .some(
                &self.name("AverageUtilization"),
                self.get(source, "averageUtilization"),
            );
        let average = self.get(source, "averageValue");
        let mut out = self.quantity(
            out,
            "AverageValue",
            average,
            self.resource_average_is_pointer,
        );
        if container {
            out = out.value("container", source.get("container").unwrap_or(&json!("")));
        }
        out.finish()
    }

    fn external(&self, source: &Value) -> String {
        let out = GoObject::new()
            .value("metricName", metric_name(source))
            .selector("metricSelector", metric_field(source, "selector"));
        let value = self.get(source, "value");
        self.quantity(out, "Value", value, self.external_value_is_pointer)
            .some(&self.name("AverageValue"), self.get(source, "averageValue"))
            .finish()
    }
}

fn metric_field<'v>(source: &'v Value, name: &str) -> Option<&'v Value> {
    source.get("metric").and_then(|m| m.get(name))
}

fn metric_name(source: &Value) -> &Value {
    static EMPTY: Value = Value::String(String::new());
    metric_field(source, "name").unwrap_or(&EMPTY)
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

/// A v1 `MetricSpec` from the annotation as the v2 metric it converts to.
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

/// A v1 metric (spec or status): its type, and each source set converted by its function.
pub(super) fn sources_from_v1(metric: &Value, sources: [SourceFromV1; 5]) -> Value {
    let mut out = Map::new();
    out.insert(
        "type".into(),
        field(metric, "type").cloned().unwrap_or_else(|| json!("")),
    );
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
