//! The protobuf decoders against the JSON ones: the same objects, encoded both ways by the
//! codec's encoder, must decode to the same values.

use kinformer_protobuf::{MessageId, Schema, envelope, to_vec};
use serde_json::{Value, json};

mod list;
mod watch;

/// A pod as an API server writes it: managedFields, times, quantities, an int-or-string port,
/// owner references, conditions, and zero values that JSON keeps (`restartCount: 0`).
pub(super) fn pod(i: usize) -> Value {
    json!({
        "metadata": {
            "name": format!("web-{i}"),
            "namespace": "shop",
            "uid": format!("0f8c2a51-7d0e-4b7e-9a55-{i:012}"),
            "resourceVersion": format!("{}", 100 + i),
            "generation": 1,
            "creationTimestamp": "2026-01-02T03:04:05Z",
            "labels": {"app": "web", "pod-template-hash": "7d9f8"},
            "annotations": {"kubernetes.io/psp": "restricted", "note": "ünïcode ✓"},
            "ownerReferences": [{
                "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d9f8",
                "uid": "2a1b", "controller": true, "blockOwnerDeletion": true
            }],
            "finalizers": ["example.com/keep"],
            "managedFields": [{
                "manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
                "time": "2026-01-02T03:04:05Z", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}}
            }, {
                "manager": "kubelet", "operation": "Update", "apiVersion": "v1",
                "time": "2026-01-02T03:04:09Z", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:status": {"f:phase": {}}}, "subresource": "status"
            }]
        },
        "spec": {
            "containers": [{
                "name": "app",
                "image": "registry.example.com/web:1.2.3",
                "args": ["--port=8080", "--verbose"],
                "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                "env": [{"name": "MODE", "value": "prod"}, {"name": "POD_IP", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}}],
                "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "250m", "memory": "128Mi"}},
                "readinessProbe": {"httpGet": {"path": "/ready", "port": "http", "scheme": "HTTP"}, "initialDelaySeconds": 3, "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
                "livenessProbe": {"tcpSocket": {"port": 8080}, "initialDelaySeconds": 15, "timeoutSeconds": 1, "periodSeconds": 20, "successThreshold": 1, "failureThreshold": 3},
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "imagePullPolicy": "IfNotPresent"
            }],
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst",
            "nodeName": format!("node-{}", i % 3),
            "serviceAccountName": "default",
            "securityContext": {},
            "schedulerName": "default-scheduler",
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
            "priority": 0,
            "enableServiceLinks": true,
            "preemptionPolicy": "PreemptLowerPriority"
        },
        "status": {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2026-01-02T03:04:09Z"}],
            "hostIP": "10.0.0.3",
            "podIP": format!("10.1.0.{}", i % 250),
            "podIPs": [{"ip": format!("10.1.0.{}", i % 250)}],
            "startTime": "2026-01-02T03:04:05Z",
            "containerStatuses": [{
                "name": "app", "ready": true, "restartCount": 0, "started": true,
                "state": {"running": {"startedAt": "2026-01-02T03:04:07Z"}},
                "lastState": {},
                "image": "registry.example.com/web:1.2.3",
                "imageID": "registry.example.com/web@sha256:abc",
                "containerID": "containerd://1234"
            }],
            "qosClass": "Burstable"
        }
    })
}

pub(super) fn schema() -> &'static Schema {
    Schema::kubernetes()
}

pub(super) fn message(api_version: &str, kind: &str) -> MessageId {
    schema().message_for(api_version, kind).unwrap()
}

/// `object` (the JSON form of `api_version`/`kind`) as an enveloped protobuf object.
pub(super) fn enveloped(api_version: &str, kind: &str, object: &Value) -> Vec<u8> {
    let id = schema()
        .message_for(api_version, kind)
        .or_else(|_| schema().message_for("meta.k8s.io/v1", kind))
        .unwrap();
    let raw = to_vec(schema(), id, object).unwrap();
    let mut out = Vec::new();
    envelope::encode(api_version, kind, &raw, &mut out);
    out
}

/// `object` with `apiVersion` and `kind`, as JSON has them on a watched or fetched object.
pub(super) fn typed(api_version: &str, kind: &str, object: &Value) -> Value {
    let mut object = object.clone();
    object["apiVersion"] = json!(api_version);
    object["kind"] = json!(kind);
    object
}

#[test]
fn a_fetched_object_decodes_as_its_json_does() {
    use k8s_openapi::api::core::v1::Pod;
    use kinformer_core::DynamicObject;

    let json = typed("v1", "Pod", &pod(7));
    let body = enveloped("v1", "Pod", &pod(7));
    let from_json: Pod = serde_json::from_value(json.clone()).unwrap();
    let from_pb: Pod = super::decode_body(schema(), &body).unwrap();
    assert_eq!(from_pb, from_json);
    assert!(from_pb.metadata.managed_fields.is_some());
    // A type that keeps apiVersion and kind gets them from the envelope. (A zero time JSON
    // writes as `null` is left out by the protobuf decoder: a JSON value differs there.)
    let dynamic: DynamicObject = super::decode_body(schema(), &body).unwrap();
    let mut json = json;
    json["status"]["conditions"][0]
        .as_object_mut()
        .unwrap()
        .remove("lastProbeTime");
    assert_eq!(
        dynamic,
        serde_json::from_value::<DynamicObject>(json).unwrap()
    );
    assert_eq!(dynamic.types.unwrap().kind, "Pod");
}

#[test]
fn a_body_that_is_not_a_known_object_is_a_decode_error() {
    use k8s_openapi::api::core::v1::Pod;

    let body = enveloped("v1", "Pod", &pod(1));
    let mut unknown_kind = Vec::new();
    envelope::encode("example.com/v1", "Widget", b"", &mut unknown_kind);
    let mut compressed = Vec::new();
    envelope::encode("v1", "Pod", b"", &mut compressed);
    // contentEncoding = "gzip" in place of the empty one the encoder writes last but one
    compressed.truncate(compressed.len() - 4);
    compressed.extend_from_slice(b"\x1a\x04gzip\x22\x00");
    let bad: [&[u8]; 6] = [
        b"",
        b"{\"kind\":\"Pod\"}",
        &body[..body.len() - 1],
        &body[..10],
        &unknown_kind,
        &compressed,
    ];
    for body in bad {
        let err = super::decode_body::<Pod>(schema(), body).unwrap_err();
        assert!(err.is_decode(), "{err}");
    }
}

#[test]
fn an_error_status_is_read_from_protobuf() {
    let status = json!({"status": "Failure", "message": "pods \"x\" not found", "reason": "NotFound",
        "details": {"name": "x", "kind": "pods"}, "code": 404});
    let body = enveloped("v1", "Status", &status);
    let decoded = super::status_from_body(schema(), &body).unwrap();
    assert_eq!(decoded.code, Some(404));
    assert_eq!(decoded.reason.as_deref(), Some("NotFound"));
    assert_eq!(decoded.details.unwrap().name.as_deref(), Some("x"));
    assert!(super::status_from_body(schema(), &enveloped("v1", "Pod", &pod(1))).is_none());
    assert!(super::status_from_body(schema(), b"garbage").is_none());
}
