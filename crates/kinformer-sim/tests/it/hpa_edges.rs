//! HorizontalPodAutoscaler through `autoscaling/v1` at the edges of the read and write paths:
//! a protobuf body (as kubectl sends a built-in type), and a selector watch seeing an object
//! leave, whose DELETED event kube-apiserver sends in the watch's version.

use http::Method;
use kinformer_sim::Sim;
use serde_json::json;

use crate::common::client;
use crate::hpa_versions::{V1, V2};
use crate::protobuf::enveloped;

#[tokio::test]
async fn a_protobuf_v1_body_is_converted_and_stored_as_v2() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let hpa = json!({"metadata": {"name": "web", "namespace": "default"},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 3,
            "targetCPUUtilizationPercentage": 35}});
    let body = enveloped("autoscaling/v1", "HorizontalPodAutoscaler", &hpa);
    let resp = c
        .send_bytes(
            Method::POST,
            V1,
            body,
            &[
                ("content-type", kinformer_protobuf::MEDIA_TYPE),
                ("accept", "application/json"),
            ],
        )
        .await;
    assert_eq!(resp.status, 201, "{:?}", resp.body);
    assert_eq!(resp.json()["spec"]["targetCPUUtilizationPercentage"], 35);
    let v2 = c.get(&format!("{V2}/web")).await.json();
    assert_eq!(
        v2["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
        35
    );
}

#[tokio::test]
async fn an_object_leaving_a_v1_selector_watch_is_deleted_in_v1() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let hpa = json!({"metadata": {"name": "web", "labels": {"tier": "front"}},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 3,
            "targetCPUUtilizationPercentage": 35}});
    let created = c.send(Method::POST, V1, Some(hpa)).await;
    assert_eq!(created.status, 201);
    let rv = created.json()["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut lines = c
        .watch(&format!(
            "{V1}?watch=true&labelSelector=tier%3Dfront&resourceVersion={rv}"
        ))
        .await;
    let relabel = json!({"metadata": {"labels": {"tier": "back"}}});
    let patched = c
        .send(Method::PATCH, &format!("{V2}/web"), Some(relabel))
        .await;
    assert_eq!(patched.status, 200);
    let left = lines.event().await;
    assert_eq!(left["type"], "DELETED");
    assert_eq!(left["object"]["apiVersion"], "autoscaling/v1");
    assert_eq!(left["object"]["spec"]["targetCPUUtilizationPercentage"], 35);
    assert_eq!(left["object"]["metadata"]["labels"]["tier"], "front");
}
