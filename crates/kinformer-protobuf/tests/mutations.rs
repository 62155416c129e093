//! Bytes near a real message (a pod with the forms the decoder treats specially, its bytes
//! flipped, cut, or spliced) decode to a value or a typed error, by the serde path and the typed
//! decoder: never a panic, and a decoded
//! tree always encodes and decodes back to itself.

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::Fields;
use kinformer_protobuf::{Schema, TypedDecoder, from_slice, to_vec};
use proptest::prelude::*;
use serde_json::{Value, json};

fn pod() -> Value {
    json!({
        "metadata": {
            "name": "web-0", "namespace": "default", "uid": "u-1", "resourceVersion": "42",
            "creationTimestamp": "2025-01-02T03:04:05Z", "labels": {"app": "web"},
            "managedFields": [{"manager": "kubectl", "operation": "Apply", "apiVersion": "v1",
                "time": "2025-01-02T03:04:05Z", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {"f:containers": {}}}}],
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "u-0", "controller": true}],
        },
        "spec": {
            "containers": [{
                "name": "web", "image": "nginx",
                "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}},
                "livenessProbe": {"httpGet": {"path": "/", "port": "http"}, "periodSeconds": 10},
                "env": [{"name": "A", "value": "b"}],
            }],
            "terminationGracePeriodSeconds": 30, "automountServiceAccountToken": false,
            "volumes": [{"name": "data", "emptyDir": {}}],
        },
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True",
            "lastTransitionTime": "2025-01-02T03:04:05Z"}], "podIP": "10.0.0.1"},
    })
}

fn without_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_nulls).collect()),
        other => other,
    }
}

#[test]
fn the_pod_round_trips_typed() {
    let schema = Schema::kubernetes();
    let id = schema.message_for("v1", "Pod").unwrap();
    let bytes = to_vec(schema, id, &pod()).unwrap();
    let typed: Pod = from_slice(schema, id, &bytes).unwrap();
    assert_eq!(typed, serde_json::from_value::<Pod>(pod()).unwrap());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn mutated_bytes_decode_or_fail_typed(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        cut in any::<prop::sample::Index>(),
        splice in any::<prop::sample::Index>(),
        noise in proptest::collection::vec(any::<u8>(), 0..24),
    ) {
        let schema = Schema::kubernetes();
        let id = schema.message_for("v1", "Pod").unwrap();
        let mut bytes = to_vec(schema, id, &pod()).unwrap();
        for (at, byte) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= byte;
        }
        let at = splice.index(bytes.len());
        bytes.splice(at..at, noise);
        bytes.truncate(cut.index(bytes.len() + 1).max(bytes.len() / 2));
        let _ = from_slice::<Pod>(schema, id, &bytes);
        for fields in [Fields::All, Fields::WithoutManagedFields] {
            let typed = TypedDecoder::<Pod>::new(&fields).expect("Pod has a typed decoder");
            let _ = typed.decode(&bytes);
        }
        if let Ok(tree) = from_slice::<Value>(schema, id, &bytes) {
            let again = to_vec(schema, id, &tree).expect("a decoded tree encodes");
            let back: Value = from_slice(schema, id, &again).expect("and decodes");
            prop_assert_eq!(without_nulls(back), without_nulls(tree));
        }
    }
}
