//! v2 -> v1 -> v2 is the identity on every HorizontalPodAutoscaler in the form Kubernetes'
//! conversion preserves: the cpu utilization target (if any) last, since v1 puts it after the
//! annotation's metrics; a quantity v1 holds in a non-pointer field set, since v1 gives back
//! Go's zero for an unset one; at least one metric, since v1 stands for cpu 80% without one.

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use serde_json::{Value, json};

use super::{to_v1, to_v2};

fn quantity() -> impl Strategy<Value = Value> {
    prop::sample::select(vec!["1", "250m", "500Mi", "2Gi", "1k", "30", "0"]).prop_map(|q| json!(q))
}

fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9-]{0,8}"
}

fn selector() -> impl Strategy<Value = Value> {
    prop_oneof![
        (name(), name()).prop_map(|(k, v)| json!({"matchLabels": {k: v}})),
        (name(), vec(name(), 1..3)).prop_map(|(key, values)| json!({"matchExpressions":
            [{"key": key, "operator": "In", "values": values}]})),
    ]
}

fn identifier() -> impl Strategy<Value = Value> {
    (name(), option::of(selector())).prop_map(|(name, selector)| match selector {
        Some(s) => json!({"name": name, "selector": s}),
        None => json!({"name": name}),
    })
}

fn reference() -> impl Strategy<Value = Value> {
    (name(), option::of(Just("apps/v1"))).prop_map(|(name, api)| match api {
        Some(api) => json!({"kind": "Deployment", "name": name, "apiVersion": api}),
        None => json!({"kind": "Deployment", "name": name}),
    })
}

fn resource_target(cpu_allowed: bool) -> impl Strategy<Value = (String, Value)> {
    let names = if cpu_allowed {
        vec!["memory", "ephemeral-storage", "cpu"]
    } else {
        vec!["memory", "ephemeral-storage"]
    };
    (
        prop::sample::select(names),
        prop_oneof![
            quantity().prop_map(|q| json!({"type": "AverageValue", "averageValue": q})),
            (1..200i64).prop_map(|u| json!({"type": "Utilization", "averageUtilization": u})),
        ],
    )
        .prop_filter("cpu utilization is v1's own field", |(n, t)| {
            !(*n == "cpu" && t.get("averageUtilization").is_some())
        })
        .prop_map(|(n, t)| (n.to_owned(), t))
}

/// A metric v1 keeps in the `metrics` annotation.
fn other_metric() -> impl Strategy<Value = Value> {
    prop_oneof![
        resource_target(true).prop_map(|(name, target)| json!({"type": "Resource",
            "resource": {"name": name, "target": target}})),
        (resource_target(false), name()).prop_map(|((name, target), container)| json!({
            "type": "ContainerResource",
            "containerResource": {"name": name, "container": container, "target": target}})),
        (identifier(), quantity()).prop_map(|(metric, q)| json!({"type": "Pods",
            "pods": {"metric": metric, "target": {"type": "AverageValue", "averageValue": q}}})),
        (
            reference(),
            identifier(),
            quantity(),
            option::of(quantity())
        )
            .prop_map(|(described, metric, value, average)| {
                let target = match average {
                    Some(a) => json!({"type": "AverageValue", "value": value, "averageValue": a}),
                    None => json!({"type": "Value", "value": value}),
                };
                json!({"type": "Object", "object": {"describedObject": described,
                    "metric": metric, "target": target}})
            }),
        (identifier(), quantity(), option::of(quantity())).prop_map(|(metric, v, average)| {
            let target = match average {
                Some(a) => json!({"type": "Value", "value": v, "averageValue": a}),
                None => json!({"type": "Value", "value": v}),
            };
            json!({"type": "External", "external": {"metric": metric, "target": target}})
        }),
    ]
}

fn metrics() -> impl Strategy<Value = Value> {
    (vec(other_metric(), 0..4), option::of(1..150i64))
        .prop_filter("v1 defaults an empty list", |(others, cpu)| {
            !others.is_empty() || cpu.is_some()
        })
        .prop_map(|(mut metrics, cpu)| {
            if let Some(u) = cpu {
                metrics.push(json!({"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": u}}}));
            }
            Value::Array(metrics)
        })
}

fn rules() -> impl Strategy<Value = Value> {
    (
        option::of(0..3600i64),
        option::of(prop::sample::select(vec!["Max", "Min", "Disabled"])),
        option::of(vec(
            (
                prop::sample::select(vec!["Pods", "Percent"]),
                1..100i64,
                1..1800i64,
            ),
            1..3,
        )),
        option::of(quantity()),
    )
        .prop_map(|(window, select, policies, tolerance)| {
            let mut rules = serde_json::Map::new();
            if let Some(w) = window {
                rules.insert("stabilizationWindowSeconds".into(), json!(w));
            }
            if let Some(s) = select {
                rules.insert("selectPolicy".into(), json!(s));
            }
            if let Some(p) = policies {
                let list: Vec<Value> = p
                    .into_iter()
                    .map(|(t, v, s)| json!({"type": t, "value": v, "periodSeconds": s}))
                    .collect();
                rules.insert("policies".into(), Value::Array(list));
            }
            if let Some(t) = tolerance {
                rules.insert("tolerance".into(), t);
            }
            Value::Object(rules)
        })
}

fn behavior() -> impl Strategy<Value = Value> {
    (option::of(rules()), option::of(rules()))
        .prop_filter("a behavior sets a direction", |(up, down)| {
            up.is_some() || down.is_some()
        })
        .prop_map(|(up, down)| {
            let mut b = serde_json::Map::new();
            if let Some(up) = up {
                b.insert("scaleUp".into(), up);
            }
            if let Some(down) = down {
                b.insert("scaleDown".into(), down);
            }
            Value::Object(b)
        })
}

fn metric_status() -> impl Strategy<Value = Value> {
    prop_oneof![
        (resource_target(true), quantity(), option::of(0..200i64)).prop_map(|((n, _), q, u)| {
            let current = match u {
                Some(u) => json!({"averageValue": q, "averageUtilization": u}),
                None => json!({"averageValue": q}),
            };
            json!({"type": "Resource", "resource": {"name": n, "current": current}})
        }),
        (identifier(), quantity()).prop_map(|(metric, q)| json!({"type": "Pods",
            "pods": {"metric": metric, "current": {"averageValue": q}}})),
        (reference(), identifier(), quantity()).prop_map(|(described, metric, q)| json!({
            "type": "Object", "object": {"describedObject": described, "metric": metric,
            "current": {"value": q}}})),
        (identifier(), quantity()).prop_map(|(metric, q)| json!({"type": "External",
            "external": {"metric": metric, "current": {"value": q}}})),
    ]
}

fn condition() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec!["AbleToScale", "ScalingActive", "ScalingLimited"]),
        prop::sample::select(vec!["True", "False", "Unknown"]),
        option::of(Just("2026-03-01T12:00:00Z")),
        option::of(name()),
        option::of(1..9i64),
    )
        .prop_map(|(kind, status, time, reason, generation)| {
            let mut c = serde_json::Map::new();
            c.insert("type".into(), json!(kind));
            c.insert("status".into(), json!(status));
            if let Some(t) = time {
                c.insert("lastTransitionTime".into(), json!(t));
            }
            if let Some(r) = reason {
                c.insert("reason".into(), json!(r));
            }
            if let Some(g) = generation {
                c.insert("observedGeneration".into(), json!(g));
            }
            Value::Object(c)
        })
}

fn status() -> impl Strategy<Value = Value> {
    (
        option::of(0..50i64),
        option::of(0..50i64),
        option::of(vec(metric_status(), 1..4)),
        option::of(vec(condition(), 1..3)),
    )
        .prop_map(|(current, desired, metrics, conditions)| {
            let mut s = serde_json::Map::new();
            for (key, value) in [
                ("currentReplicas", current.map(Value::from)),
                ("desiredReplicas", desired.map(Value::from)),
                ("currentMetrics", metrics.map(Value::Array)),
                ("conditions", conditions.map(Value::Array)),
            ] {
                if let Some(v) = value {
                    s.insert(key.into(), v);
                }
            }
            Value::Object(s)
        })
}

fn hpa() -> impl Strategy<Value = Value> {
    (
        reference(),
        1..5i64,
        5..50i64,
        metrics(),
        option::of(behavior()),
        option::of(status()),
        option::of((name(), name())),
    )
        .prop_map(|(target, min, max, metrics, behavior, status, note)| {
            let mut spec = json!({"scaleTargetRef": target, "minReplicas": min,
                "maxReplicas": max, "metrics": metrics});
            if let Some(b) = behavior {
                spec["behavior"] = b;
            }
            let mut obj =
                json!({"metadata": {"name": "hpa", "namespace": "default"}, "spec": spec});
            if let Some((k, v)) = note {
                obj["metadata"]["annotations"] = json!({ k: v });
            }
            if let Some(s) = status {
                obj["status"] = s;
            }
            obj
        })
}

proptest! {
    #[test]
    fn v2_to_v1_and_back_is_the_identity(v2 in hpa()) {
        let v1 = to_v1(&v2);
        prop_assert_eq!(&to_v2(&v1), &v2, "through {}", v1);
        prop_assert_eq!(to_v1(&to_v2(&v1)), v1);
    }
}
