//! The typed decoders against the serde path on the forms each treats specially, and on bad input.

use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kinformer_core::Fields;
use serde_json::json;

use crate::wire::{self, put_bytes, put_nested, put_tag, put_varint};
use crate::{Error, Schema, TypedDecoder, from_slice, to_vec};

fn pod_id() -> crate::MessageId {
    Schema::kubernetes().message_for("v1", "Pod").unwrap()
}

/// Both paths on the same bytes: they must agree.
fn both(bytes: &[u8]) -> Pod {
    let serde: Pod = from_slice(Schema::kubernetes(), pod_id(), bytes).unwrap();
    let typed = TypedDecoder::<Pod>::new(&Fields::All)
        .unwrap()
        .decode(bytes)
        .unwrap();
    assert_eq!(typed, serde);
    typed
}

#[test]
fn zero_values_go_writes_read_as_the_serde_path_reads_them() {
    let mut out = Vec::new();
    put_nested::<()>(&mut out, 1, |meta| {
        put_bytes(meta, 1, b""); // name "" (omitempty): absent
        put_tag(meta, 7, wire::VARINT); // generation 0 (omitempty): absent
        put_varint(meta, 0);
        put_tag(meta, 10, wire::VARINT); // deletionGracePeriodSeconds 0 (a pointer): 0
        put_varint(meta, 0);
        put_bytes(meta, 8, b""); // the zero creationTimestamp: null
        put_nested::<()>(meta, 11, |entry| {
            put_bytes(entry, 1, b"app"); // a label without its value: ""
            Ok(())
        })
    })
    .unwrap();
    let pod = both(&out);
    assert_eq!(pod.metadata.name, None);
    assert_eq!(pod.metadata.generation, None);
    assert_eq!(pod.metadata.deletion_grace_period_seconds, Some(0));
    assert_eq!(pod.metadata.creation_timestamp, None);
    assert_eq!(pod.metadata.labels.unwrap()["app"], "");
}

#[test]
fn special_forms_match_the_serde_path() {
    let json = json!({
        "metadata": {"name": "web", "creationTimestamp": "2025-01-02T03:04:05Z",
            "managedFields": [{"manager": "m", "time": "2025-01-02T03:04:05Z",
                "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}}]},
        "spec": {"containers": [{"name": "c", "image": "i",
            "resources": {"limits": {"cpu": "0", "memory": "1Gi"}},
            "ports": [{"containerPort": 80}, {"containerPort": 81, "name": "b"}],
            "livenessProbe": {"httpGet": {"path": "/", "port": "http"}},
            "readinessProbe": {"tcpSocket": {"port": 8080}}}],
            "volumes": [{"name": "v", "configMap": {"name": "cm", "defaultMode": 420}}]},
        "status": {"phase": "Running", "startTime": "2025-01-02T03:04:06Z"},
    });
    let bytes = to_vec(Schema::kubernetes(), pod_id(), &json).unwrap();
    let pod = both(&bytes);
    assert_eq!(pod, serde_json::from_value::<Pod>(json).unwrap());
    let skipping = TypedDecoder::<Pod>::new(&Fields::WithoutManagedFields)
        .unwrap()
        .decode(&bytes)
        .unwrap();
    assert_eq!(skipping.metadata.managed_fields, None);
    assert_eq!(skipping.spec, pod.spec);
}

#[test]
fn a_quantity_written_empty_is_zero() {
    let mut out = Vec::new();
    put_nested::<()>(&mut out, 2, |spec| {
        put_nested(spec, 2, |container| {
            put_bytes(container, 1, b"c");
            put_nested(container, 8, |resources| {
                put_nested(resources, 1, |entry| {
                    put_bytes(entry, 1, b"cpu");
                    put_bytes(entry, 2, b"");
                    Ok(())
                })
            })
        })
    })
    .unwrap();
    let pod = both(&out);
    let limits = pod.spec.unwrap().containers[0].resources.clone().unwrap();
    assert_eq!(limits.limits.unwrap()["cpu"].0, "0");
}

#[test]
fn bad_input_is_a_typed_error() {
    let decoder = TypedDecoder::<Pod>::new(&Fields::All).unwrap();
    let mut out = Vec::new();
    put_bytes(&mut out, 1, b"\x0a\x05ab"); // metadata whose name runs past its end
    assert!(matches!(decoder.decode(&out), Err(Error::Truncated(_))));
    let mut wrong = Vec::new();
    put_nested::<()>(&mut wrong, 1, |meta| {
        put_tag(meta, 1, wire::VARINT); // a name sent as a number
        put_varint(meta, 7);
        Ok(())
    })
    .unwrap();
    assert!(matches!(
        decoder.decode(&wrong),
        Err(Error::WrongWireType { .. })
    ));
    let mut text = Vec::new();
    put_nested::<()>(&mut text, 1, |meta| {
        put_bytes(meta, 1, b"\xff\xfe");
        Ok(())
    })
    .unwrap();
    assert!(matches!(decoder.decode(&text), Err(Error::NotUtf8(_))));
}

#[test]
fn nesting_past_the_limit_is_refused() {
    // A CRD schema nested deeper than the limit: spec.versions[0].schema.openAPIV3Schema, then
    // `not` within `not`.
    let mut props = Vec::new();
    for _ in 0..crate::MAX_DEPTH + 5 {
        let mut outer = Vec::new();
        put_bytes(&mut outer, 28, &props); // JSONSchemaProps.not
        props = outer;
    }
    let mut validation = Vec::new();
    put_bytes(&mut validation, 1, &props);
    let mut version = Vec::new();
    put_bytes(&mut version, 1, b"v1");
    put_bytes(&mut version, 4, &validation);
    let mut spec = Vec::new();
    put_bytes(&mut spec, 7, &version);
    let mut crd = Vec::new();
    put_bytes(&mut crd, 2, &spec);
    let decoder = TypedDecoder::<CustomResourceDefinition>::new(&Fields::All).unwrap();
    assert!(matches!(decoder.decode(&crd), Err(Error::TooDeep(_))));
}

#[test]
fn only_generated_types_have_a_decoder() {
    assert!(TypedDecoder::<ConfigMap>::new(&Fields::All).is_some());
    assert!(TypedDecoder::<serde_json::Value>::new(&Fields::All).is_none());
    let decoder = TypedDecoder::<ConfigMap>::new(&Fields::All).unwrap();
    let id = Schema::kubernetes().message_for("v1", "ConfigMap").unwrap();
    assert_eq!(decoder.message(), id);
}

#[test]
fn lists_are_allocated_at_their_length() {
    let containers: Vec<_> = (0..5)
        .map(|i| {
            json!({"name": format!("c{i}"), "args": ["a", "b", "c"],
            "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]})
        })
        .collect();
    let json = json!({"metadata": {"name": "p", "finalizers": ["x", "y", "z"]},
        "spec": {"containers": containers}});
    let bytes = to_vec(Schema::kubernetes(), pod_id(), &json).unwrap();
    let pod = both(&bytes);
    let spec = pod.spec.unwrap();
    assert_eq!(spec.containers.capacity(), 5);
    for container in &spec.containers {
        assert_eq!(container.args.as_ref().unwrap().capacity(), 3);
        assert_eq!(container.env.as_ref().unwrap().capacity(), 2);
    }
    assert_eq!(pod.metadata.finalizers.unwrap().capacity(), 3);
}

#[test]
fn split_runs_are_appended_to_on_both_paths() {
    let label = |key: &[u8], value: &[u8]| {
        let mut entry = Vec::new();
        put_bytes(&mut entry, 1, key);
        put_bytes(&mut entry, 2, value);
        entry
    };
    let mut meta = Vec::new();
    put_bytes(&mut meta, 14, b"a"); // finalizers
    put_bytes(&mut meta, 11, &label(b"k1", b"1")); // labels
    put_bytes(&mut meta, 1, b"p"); // name
    put_bytes(&mut meta, 14, b"b");
    put_bytes(&mut meta, 14, b"c");
    put_bytes(&mut meta, 3, b"ns"); // namespace
    put_bytes(&mut meta, 11, &label(b"k2", b"2"));
    let mut bytes = Vec::new();
    put_bytes(&mut bytes, 1, &meta);
    let pod = both(&bytes);
    assert_eq!(
        pod.metadata.finalizers,
        Some(vec!["a".into(), "b".into(), "c".into()])
    );
    let labels = pod.metadata.labels.unwrap();
    assert_eq!((labels["k1"].as_str(), labels["k2"].as_str()), ("1", "2"));
    assert_eq!(
        (
            pod.metadata.name.as_deref(),
            pod.metadata.namespace.as_deref()
        ),
        (Some("p"), Some("ns"))
    );
}
