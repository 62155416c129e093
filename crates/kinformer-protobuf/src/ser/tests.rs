//! The serde-driven encoder against the JSON one: what either writes decodes to the same
//! object, for the test schema's every form, for realistic Kubernetes objects, and for
//! generated ones.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Pod, Secret};
use kinformer_core::Fields;
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::test_schema::{THING, thing_schema};
use crate::{Error, Schema, TypedDecoder, from_slice, to_vec, to_vec_typed};

/// `value` through both encoders, decoded back as JSON: both must agree, and be returned.
fn both_ways(schema: &Schema, message: &str, value: &Value) -> Value {
    let (api_version, kind) = message.split_once(' ').unwrap();
    let id = schema.message_for(api_version, kind).unwrap();
    let by_json: Value = from_slice(schema, id, &to_vec(schema, id, value).unwrap()).unwrap();
    let typed = to_vec_typed(schema, id, value).unwrap();
    let by_serde: Value = from_slice(schema, id, &typed).unwrap();
    assert_eq!(by_serde, by_json);
    by_serde
}

/// A pod with the forms the encoders treat specially (also the typed encoder's fixture).
pub(crate) fn realistic_pod() -> Pod {
    serde_json::from_value(json!({
        "metadata": {"name": "web-0", "namespace": "prod", "uid": "u-1",
            "resourceVersion": "42", "generation": 3,
            "creationTimestamp": "2025-01-02T03:04:05Z",
            "labels": {"app": "web", "tier": ""}, "annotations": {"note": "x"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "name": "web-5d", "uid": "u-0", "controller": true}],
            "managedFields": [{"manager": "kubelet", "operation": "Update",
                "time": "2025-01-02T03:04:05Z", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:status": {"f:phase": {}}}}]},
        "spec": {"nodeName": "node-1", "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
            "containers": [{"name": "app", "image": "web:1",
                "args": ["--port", "8080"], "env": [{"name": "MODE", "value": "fast"},
                    {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                "resources": {"limits": {"cpu": "500m", "memory": "1Gi"},
                    "requests": {"cpu": "0"}},
                "ports": [{"containerPort": 8080, "protocol": "TCP", "name": "http"}],
                "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http"},
                    "periodSeconds": 10},
                "readinessProbe": {"tcpSocket": {"port": 8080}},
                "securityContext": {"readOnlyRootFilesystem": false, "runAsUser": 0}}],
            "volumes": [{"name": "config", "configMap": {"name": "cm", "defaultMode": 420}},
                {"name": "scratch", "emptyDir": {}}],
            "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule",
                "tolerationSeconds": 300}]},
        "status": {"phase": "Running", "podIP": "10.0.0.1",
            "startTime": "2025-01-02T03:04:06Z",
            "conditions": [{"type": "Ready", "status": "True",
                "lastTransitionTime": "2025-01-02T03:04:07Z"}],
            "containerStatuses": [{"name": "app", "ready": true, "restartCount": 0,
                "image": "web:1", "imageID": "sha256:abc",
                "state": {"running": {"startedAt": "2025-01-02T03:04:07Z"}}}]},
    }))
    .unwrap()
}

#[test]
fn a_realistic_pod_decodes_to_itself_through_the_typed_decoder() {
    let pod = realistic_pod();
    let schema = Schema::kubernetes();
    let id = schema.message_for("v1", "Pod").unwrap();
    let bytes = to_vec_typed(schema, id, &pod).unwrap();
    let decoded = TypedDecoder::<Pod>::new(&Fields::All)
        .unwrap()
        .decode(&bytes)
        .unwrap();
    assert_eq!(decoded, pod);
    // The empty emptyDir is present, not absent.
    let volumes = decoded.spec.unwrap().volumes.unwrap();
    assert!(volumes[1].empty_dir.is_some());
    // And the JSON encoder agrees on what the bytes say (apiVersion and kind are the
    // envelope's, not the message's).
    let mut json = serde_json::to_value(&pod).unwrap();
    let object = json.as_object_mut().unwrap();
    object.remove("apiVersion");
    object.remove("kind");
    assert_eq!(both_ways(schema, "v1 Pod", &json), json);
}

#[test]
fn bytes_times_and_int_or_strings_take_their_special_forms() {
    let schema = Schema::kubernetes();
    let mut secret = Secret::default();
    secret.metadata.name = Some("s".into());
    secret.data = Some([("key".to_owned(), k8s_openapi::ByteString(vec![0, 159, 255]))].into());
    let id = schema.message_for("v1", "Secret").unwrap();
    let bytes = to_vec_typed(schema, id, &secret).unwrap();
    assert_eq!(from_slice::<Secret>(schema, id, &bytes).unwrap(), secret);
    let deployment: Deployment = serde_json::from_value(json!({
        "metadata": {"name": "d"},
        "spec": {"selector": {"matchLabels": {"app": "d"}},
            "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}},
            "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": []}}},
    }))
    .unwrap();
    let id = schema.message_for("apps/v1", "Deployment").unwrap();
    let bytes = to_vec_typed(schema, id, &deployment).unwrap();
    assert_eq!(
        from_slice::<Deployment>(schema, id, &bytes).unwrap(),
        deployment
    );
}

#[test]
fn every_form_of_the_test_schema_agrees_with_the_json_encoder() {
    let schema = thing_schema();
    let thing = json!({
        "name": "a", "count": 0, "size": -5, "ready": false,
        "tags": ["x", "y"], "ports": [80, -1], "labels": {"k": "v", "e": ""},
        "parts": [{"name": "p1"}, {"ready": true}],
        "when": "2024-05-06T07:08:09Z", "port": "http", "cpu": "250m",
        "raw": {"any": ["json", 1]}, "verbs": ["get", "list"], "data": "aGk=",
        "timeout": "1m30s", "ratio": 0.5, "unknown": {"left": "out"},
    });
    let mut expected = thing.clone();
    expected.as_object_mut().unwrap().remove("unknown");
    assert_eq!(both_ways(&schema, THING, &thing), expected);
    // Nulls are absent, as in the JSON encoder.
    assert_eq!(
        both_ways(&schema, THING, &json!({"name": null, "parts": [{}]})),
        json!({"parts": [{}]})
    );
}

#[test]
fn a_wrong_type_names_its_path_as_the_json_encoder_does() {
    let schema = thing_schema();
    let id = schema.message_for("example.com/v1", "Thing").unwrap();
    let value = json!({"parts": [{"count": "three"}]});
    match to_vec_typed(&schema, id, &value) {
        Err(Error::Encode { path, expected }) => {
            assert_eq!((path.as_str(), expected), ("parts.count", "an integer"))
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        to_vec_typed(&schema, id, &json!({"tags": "not a list"})),
        Err(Error::Encode {
            expected: "an array",
            ..
        })
    ));
}

#[test]
fn nesting_past_the_limit_is_an_error() {
    let schema = thing_schema();
    let id = schema.message_for("example.com/v1", "Thing").unwrap();
    let mut value = json!({"name": "leaf"});
    for _ in 0..=crate::MAX_DEPTH + 1 {
        value = json!({"parts": [value]});
    }
    assert!(matches!(
        to_vec_typed(&schema, id, &value),
        Err(Error::TooDeep(_))
    ));
}

#[test]
fn an_inlined_struct_s_fields_are_gathered_into_it() {
    let text = "package t.v1 example.com/v1\n\
        message Probe\n\
        1 handler t.v1.Handler inline\n\
        2 period int32 omitempty\n\
        message Handler\n\
        1 exec string omitempty\n\
        2 tags string repeated\n";
    let schema = Schema::parse(text).unwrap();
    let value = json!({"exec": "true", "period": 10, "tags": ["a", "b"]});
    assert_eq!(both_ways(&schema, "example.com/v1 Probe", &value), value);
}

fn scalar() -> impl Strategy<Value = (&'static str, Value)> {
    prop_oneof![
        "[a-z]{0,6}".prop_map(|s| ("name", json!(s))),
        any::<i32>().prop_map(|n| ("count", json!(n))),
        any::<i64>().prop_map(|n| ("size", json!(n))),
        any::<bool>().prop_map(|b| ("ready", json!(b))),
        prop::collection::vec("[a-z]{1,3}", 0..3).prop_map(|v| ("tags", json!(v))),
        prop::collection::btree_map("[a-z]{1,3}", "[a-z]{0,3}", 0..3)
            .prop_map(|m| ("labels", json!(m))),
        (0i64..4_000_000_000).prop_map(|s| {
            let when = crate::time::format_rfc3339(s, None).unwrap();
            ("when", json!(when))
        }),
        prop_oneof![
            any::<i32>().prop_map(|n| json!(n)),
            "[a-z]{1,5}".prop_map(|s| json!(s))
        ]
        .prop_map(|v| ("port", v)),
        "[1-9][0-9]{0,2}(m|Mi|Gi)?".prop_map(|s| ("cpu", json!(s))),
    ]
}

fn thing(depth: u32) -> BoxedStrategy<Value> {
    let fields = prop::collection::vec(scalar(), 0..6);
    if depth == 0 {
        return fields
            .prop_map(|f| Value::Object(f.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
            .boxed();
    }
    (fields, prop::collection::vec(thing(depth - 1), 0..3))
        .prop_map(|(f, parts)| {
            let mut object: serde_json::Map<String, Value> =
                f.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            if !parts.is_empty() {
                object.insert("parts".into(), Value::Array(parts));
            }
            Value::Object(object)
        })
        .boxed()
}

proptest! {
    #[test]
    fn generated_things_encode_alike(value in thing(2)) {
        let schema = thing_schema();
        both_ways(&schema, THING, &value);
    }
}
