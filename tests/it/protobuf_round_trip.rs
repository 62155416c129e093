//! JSON -> typed -> protobuf -> typed gives the same object, for every built-in kind the sim
//! serves: the generator's realistic objects (pods with managedFields, probes, resources and
//! statuses; workloads; nodes; secrets), and leases and events drawn here (micro-times, series).
//! The generated typed decoder gives exactly what the serde path gives, managedFields skipped too.

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Event as CoreEvent, Namespace, Node, Pod, Secret};
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::{Metadata, Resource, serde::Serialize, serde::de::DeserializeOwned};
use kinformer_core::Fields;
use kinformer_protobuf::{Schema, TypedDecoder, envelope, from_slice, to_vec};
use kinformer_sim::{Generate, Sim};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Encodes `typed` as the API server would (enveloped protobuf) and decodes it back, through the
/// serde path and the typed decoder, which must agree (with and without managedFields).
fn through_protobuf<K>(typed: &K) -> K
where
    K: Resource + Metadata<Ty = ObjectMeta> + Serialize + DeserializeOwned,
    K: PartialEq + std::fmt::Debug + 'static,
{
    let schema = Schema::kubernetes();
    let message = schema.message_for(K::API_VERSION, K::KIND).unwrap();
    let raw = to_vec(schema, message, &serde_json::to_value(typed).unwrap()).unwrap();
    let mut body = Vec::new();
    envelope::encode(K::API_VERSION, K::KIND, &raw, &mut body);
    let unknown = envelope::decode(&body).unwrap();
    let message = schema
        .message_for(unknown.api_version, unknown.kind)
        .unwrap();
    let back: K = from_slice(schema, message, unknown.raw).unwrap();
    let decoder =
        TypedDecoder::<K>::new(&Fields::All).expect("a built-in type has a typed decoder");
    assert_eq!(decoder.decode(unknown.raw).unwrap(), back, "{}", K::KIND);
    let mut without: K = from_slice(schema, message, unknown.raw).unwrap();
    without.metadata_mut().managed_fields = None;
    let skipping = TypedDecoder::<K>::new(&Fields::WithoutManagedFields)
        .expect("a built-in type has a typed decoder")
        .decode(unknown.raw)
        .unwrap();
    assert_eq!(skipping, without, "{} without managedFields", K::KIND);
    back
}

/// The property for one JSON object: decoded from JSON, then through protobuf, it is unchanged.
fn round_trips<K>(json: &Value)
where
    K: Resource + Metadata<Ty = ObjectMeta> + Serialize + DeserializeOwned,
    K: PartialEq + std::fmt::Debug + 'static,
{
    let typed: K = serde_json::from_value(json.clone()).unwrap();
    let back = through_protobuf(&typed);
    if back != typed {
        let mut paths = Vec::new();
        differences(
            &serde_json::to_value(&typed).unwrap(),
            &serde_json::to_value(&back).unwrap(),
            String::new(),
            &mut paths,
        );
        panic!(
            "{} {} changed through protobuf at {paths:?}",
            K::KIND,
            json["metadata"]["name"]
        );
    }
}

/// The JSON paths where `a` and `b` differ, with both values: a failure names what changed.
fn differences(a: &Value, b: &Value, path: String, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for key in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                let (va, vb) = (
                    x.get(key).unwrap_or(&Value::Null),
                    y.get(key).unwrap_or(&Value::Null),
                );
                differences(va, vb, format!("{path}.{key}"), out);
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                differences(va, vb, format!("{path}[{i}]"), out);
            }
        }
        _ if a != b => out.push(format!("{path}: {a} -> {b}")),
        _ => {}
    }
}

fn check_resource(items: &[Value], resource: &str) {
    for item in items {
        match resource {
            "pods" => round_trips::<Pod>(item),
            "configmaps" => round_trips::<ConfigMap>(item),
            "secrets" => round_trips::<Secret>(item),
            "nodes" => round_trips::<Node>(item),
            "namespaces" => round_trips::<Namespace>(item),
            "deployments" => round_trips::<Deployment>(item),
            "replicasets" => round_trips::<ReplicaSet>(item),
            "statefulsets" => round_trips::<StatefulSet>(item),
            other => panic!("no type for {other}"),
        }
    }
}

const GENERATED: [&str; 8] = [
    "pods",
    "configmaps",
    "secrets",
    "nodes",
    "namespaces",
    "deployments",
    "replicasets",
    "statefulsets",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    #[test]
    fn generated_objects_of_every_kind_round_trip(seed in any::<u64>()) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let sim = Sim::builder().start().await.unwrap();
            for resource in GENERATED {
                sim.generate(Generate::new(resource, 12).namespaces(3).seed(seed)).await.unwrap();
                let state = sim.state(resource, false).await.unwrap();
                assert!(!state.items.is_empty(), "{resource}");
                check_resource(&state.items, resource);
            }
        });
    }

    #[test]
    fn leases_round_trip(
        holder in "[a-z0-9-]{1,40}",
        seconds in 1_600_000_000i64..1_900_000_000,
        micros in 0u32..1_000_000,
        duration in proptest::option::of(1i32..600),
        transitions in proptest::option::of(0i32..1000),
    ) {
        let time = micro_time(seconds, micros);
        round_trips::<Lease>(&json!({
            "metadata": {"name": "leader", "namespace": "kube-system", "resourceVersion": "12"},
            "spec": {
                "holderIdentity": holder, "leaseDurationSeconds": duration,
                "acquireTime": time, "renewTime": time, "leaseTransitions": transitions,
            },
        }));
    }

    // A core Event's `count` is a plain `omitempty` field: the API server never sends a 0 (JSON leaves
    // it out, protobuf's 0 reads as absent), so the drawn counts start at 1; notes, also
    // `omitempty`, are never empty.
    #[test]
    fn events_round_trip(
        reason in "[A-Za-z]{1,20}",
        note in ".{1,200}",
        seconds in 1_600_000_000i64..1_900_000_000,
        micros in 0u32..1_000_000,
        count in 1i32..10_000,
        warning in any::<bool>(),
    ) {
        let when = micro_time(seconds, micros);
        let kind = if warning { "Warning" } else { "Normal" };
        let regarding = json!({"kind": "Pod", "namespace": "default", "name": "web-0", "uid": "u-1", "apiVersion": "v1"});
        round_trips::<Event>(&json!({
            "metadata": {"name": "web-0.17f", "namespace": "default", "creationTimestamp": "2025-01-02T03:04:05Z"},
            "eventTime": when, "reason": reason, "note": note, "type": kind, "action": "Scheduling",
            "reportingController": "kinformer.io/sample", "reportingInstance": "sample-1",
            "regarding": regarding,
            "series": {"count": count, "lastObservedTime": when},
        }));
        round_trips::<CoreEvent>(&json!({
            "metadata": {"name": "web-0.17f", "namespace": "default"},
            "involvedObject": regarding, "reason": reason, "message": note, "type": kind, "count": count,
            "firstTimestamp": "2025-01-02T03:04:05Z", "lastTimestamp": "2025-01-02T03:04:06Z",
            "eventTime": when, "source": {"component": "sample"},
        }));
    }
}

fn micro_time(seconds: i64, micros: u32) -> String {
    let whole = k8s_openapi::jiff::Timestamp::from_second(seconds).unwrap();
    format!("{}.{micros:06}Z", whole.strftime("%Y-%m-%dT%H:%M:%S"))
}
