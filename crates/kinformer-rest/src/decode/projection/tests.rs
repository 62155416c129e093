//! The filter: what the parser keeps of typed and dynamic objects through a projection.

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::DynamicObject;
use serde::de::DeserializeSeed;
use serde_json::json;

use super::*;

fn pod_json() -> Vec<u8> {
    serde_json::to_vec(&json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ns", "resourceVersion": "5",
                     "annotations": {"a": "b"}, "labels": {"app": "web"},
                     "managedFields": [{"manager": "kubelet", "operation": "Update"}]},
        "spec": {"nodeName": "n1", "restartPolicy": "Always", "containers": [
            {"name": "app", "image": "registry/app:1", "env": [{"name": "X", "value": "1"}],
             "ports": [{"containerPort": 80}]},
            {"name": "side", "image": "registry/side:2", "env": [{"name": "Y", "value": "2"}]}
        ]},
        "status": {"phase": "Running", "podIP": "10.0.0.1",
                   "containerStatuses": [{"name": "app", "image": "registry/app:1", "imageID": "x",
                                          "ready": true, "restartCount": 0}]}
    }))
    .unwrap()
}

fn decode<K: serde::de::DeserializeOwned>(projection: Projection, bytes: &[u8]) -> K {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let object = ProjectionSeed::new(&projection)
        .deserialize(&mut de)
        .unwrap();
    de.end().unwrap();
    object
}

#[test]
fn a_drop_projection_skips_the_named_fields_of_each_item() {
    let drop = Projection::drop([
        "spec.containers[].env",
        "status.containerStatuses",
        "metadata.annotations",
    ])
    .unwrap();
    let pod: Pod = decode(drop, &pod_json());
    let spec = pod.spec.unwrap();
    assert_eq!(spec.containers.len(), 2);
    assert!(spec.containers.iter().all(|c| c.env.is_none()));
    assert!(spec.containers[0].ports.is_some(), "siblings stay");
    assert_eq!(spec.node_name.as_deref(), Some("n1"));
    let status = pod.status.unwrap();
    assert!(status.container_statuses.is_none());
    assert_eq!(status.phase.as_deref(), Some("Running"));
    assert!(pod.metadata.annotations.is_none());
    assert!(pod.metadata.labels.is_some());
    assert!(pod.metadata.managed_fields.is_none(), "always skipped");
}

#[test]
fn a_keep_projection_keeps_only_the_named_fields_and_the_metadata() {
    let keep = Projection::keep([
        "spec.nodeName",
        "status.phase",
        "spec.containers[].name",
        "spec.containers[].image",
    ])
    .unwrap();
    let pod: Pod = decode(keep, &pod_json());
    assert_eq!(pod.metadata.name.as_deref(), Some("p"));
    assert!(pod.metadata.annotations.is_some(), "metadata is kept whole");
    assert!(pod.metadata.managed_fields.is_none());
    let spec = pod.spec.unwrap();
    assert_eq!(spec.node_name.as_deref(), Some("n1"));
    assert!(spec.restart_policy.is_none());
    assert_eq!(spec.containers[1].image.as_deref(), Some("registry/side:2"));
    assert!(
        spec.containers
            .iter()
            .all(|c| c.env.is_none() && c.ports.is_none())
    );
    let status = pod.status.unwrap();
    assert_eq!(status.phase.as_deref(), Some("Running"));
    assert!(status.pod_ip.is_none() && status.container_statuses.is_none());
}

#[test]
fn dynamic_objects_are_projected_too() {
    let drop = Projection::drop(["spec.containers[].env", "status"]).unwrap();
    let obj: DynamicObject = decode(drop, &pod_json());
    assert!(obj.data.get("status").is_none());
    assert!(obj.data["spec"]["containers"][0].get("env").is_none());
    assert_eq!(obj.data["spec"]["containers"][0]["image"], "registry/app:1");
    assert!(obj.metadata.managed_fields.is_none());

    let keep = Projection::keep(["spec.nodeName"]).unwrap();
    let obj: DynamicObject = decode(keep, &pod_json());
    assert_eq!(obj.data["spec"], json!({"nodeName": "n1"}));
    assert!(obj.data.get("status").is_none());
}

#[test]
fn the_managed_fields_projection_skips_only_managed_fields() {
    let skip = Projection::managed_fields();
    assert_eq!(*skip, Projection::drop(["metadata.managedFields"]).unwrap());
    assert_eq!(*skip, Projection::drop::<&str>([]).unwrap());
    let pod: Pod = decode((*skip).clone(), &pod_json());
    assert!(pod.metadata.managed_fields.is_none());
    let mut full: Pod = serde_json::from_slice(&pod_json()).unwrap();
    assert!(full.metadata.managed_fields.take().is_some());
    assert_eq!(pod, full);
}

#[test]
fn a_keep_projection_naming_nothing_keeps_the_type_and_metadata() {
    let pod: DynamicObject = decode(Projection::keep::<&str>([]).unwrap(), &pod_json());
    assert_eq!(pod.types.unwrap().kind, "Pod");
    assert_eq!(pod.metadata.name.as_deref(), Some("p"));
    assert!(pod.metadata.managed_fields.is_none());
    assert!(pod.data.get("spec").is_none() && pod.data.get("status").is_none());
}

#[test]
fn many_named_fields_are_looked_up_as_few_are() {
    // Over the linear-scan threshold: the keys are found by binary search.
    let many = [
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.priority",
        "spec.hostname",
        "spec.subdomain",
        "spec.hostNetwork",
        "spec.dnsPolicy",
        "spec.tolerations",
        "spec.volumes",
    ];
    let pod: Pod = decode(Projection::keep(many).unwrap(), &pod_json());
    let spec = pod.spec.unwrap();
    assert_eq!(spec.node_name.as_deref(), Some("n1"));
    assert_eq!(spec.restart_policy.as_deref(), Some("Always"));
    assert!(spec.containers.is_empty());
    let pod: Pod = decode(Projection::drop(many).unwrap(), &pod_json());
    let spec = pod.spec.unwrap();
    assert!(spec.node_name.is_none() && spec.restart_policy.is_none());
    assert_eq!(spec.containers.len(), 2);
}

/// Decodes `json` skipping managedFields only, the plain decode's error as text on failure.
fn without_managed_fields<K: serde::de::DeserializeOwned>(json: &str) -> Result<K, String> {
    let skip = Projection::managed_fields();
    let mut de = serde_json::Deserializer::from_str(json);
    ProjectionSeed::new(&skip)
        .deserialize(&mut de)
        .and_then(|k| de.end().map(|()| k))
        .map_err(|e| e.to_string())
}

const POD: &str = r#"{"kind":"Pod","metadata":{"name":"p","namespace":"ns","labels":{"a":"b"},
    "managedFields":[{"manager":"kubelet","operation":"Update","fieldsV1":{"f:status":{}}}],
    "resourceVersion":"7"},
    "spec":{"containers":[{"name":"c","image":"i","env":[{"name":"managedFields","value":"x"}]}]},
    "status":{"phase":"Running"}}"#;

#[test]
fn skipping_managed_fields_equals_decoding_then_stripping() {
    let mut full: Pod = serde_json::from_str(POD).unwrap();
    assert!(full.metadata.managed_fields.is_some());
    full.metadata.managed_fields = None;
    let skipped: Pod = without_managed_fields(POD).unwrap();
    assert_eq!(skipped, full);
}

#[test]
fn skipping_managed_fields_keeps_nested_fields_of_the_same_name() {
    let json = r#"{"apiVersion":"x/v1","kind":"W","metadata":{"name":"w","managedFields":[]},
        "spec":{"managedFields":[1,2]}}"#;
    let obj: DynamicObject = without_managed_fields(json).unwrap();
    assert!(obj.metadata.managed_fields.is_none());
    assert_eq!(obj.data["spec"]["managedFields"], json!([1, 2]));
    assert_eq!(obj.metadata.name.as_deref(), Some("w"));
}

#[test]
fn escaped_keys_and_null_metadata_decode_as_the_plain_decode_does() {
    let json = r#"{"metadata":{"na\u006de":"e","managedFields":null}}"#;
    let pod: Pod = without_managed_fields(json).unwrap();
    assert_eq!(pod.metadata.name.as_deref(), Some("e"));
    for json in [r#"{"metadata":null}"#, r#"{"metadata":{}}"#, "{}"] {
        let plain = serde_json::from_str::<Pod>(json).map_err(|e| e.to_string());
        assert_eq!(without_managed_fields::<Pod>(json), plain, "{json}");
    }
}

#[test]
fn malformed_input_is_an_error_not_a_panic() {
    for bad in [
        r#"{"metadata":{"managedFields":[}"#,
        r#"{"metadata":7}"#,
        "[",
        "",
    ] {
        assert!(without_managed_fields::<Pod>(bad).is_err(), "{bad}");
    }
}
