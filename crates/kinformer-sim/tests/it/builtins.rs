//! Every built-in resource of kube-apiserver 1.36 as the sim serves it: discovery lists the 67
//! (HorizontalPodAutoscaler in two versions, so 68 entries),
//! each one that stores objects creates and reads back the same object in JSON and protobuf,
//! the create-only reviews answer without storing (and refuse a GET with 405), a Binding
//! assigns its pod once, and componentstatuses are read-only.

use http::Method;
use serde_json::{Value, json};

use crate::common::{Client, in_process};
use crate::protobuf::decode;
use kinformer_sim::Sim;

/// Every resource discovery lists, with its group version path and its document entry.
async fn served(c: &Client<'_>) -> Vec<(String, Value)> {
    let mut paths = vec!["/api/v1".to_owned()];
    let groups = c.get("/apis").await.json();
    for group in groups["groups"].as_array().unwrap() {
        for version in group["versions"].as_array().unwrap() {
            paths.push(format!(
                "/apis/{}",
                version["groupVersion"].as_str().unwrap()
            ));
        }
    }
    let mut out = Vec::new();
    for path in paths {
        let doc = c.get(&path).await.json();
        for resource in doc["resources"].as_array().unwrap() {
            if !resource["name"].as_str().unwrap().contains('/') {
                out.push((path.clone(), resource.clone()));
            }
        }
    }
    out
}

#[tokio::test]
async fn each_stored_built_in_resource_reads_back_the_same_in_json_and_protobuf() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let resources = served(&c).await;
    // kube-apiserver 1.36 lists HorizontalPodAutoscaler under autoscaling/v2 and autoscaling/v1.
    assert_eq!(resources.len(), 68);
    let mut checked = 0;
    for (base, resource) in &resources {
        let verbs = resource["verbs"].as_array().unwrap();
        if !verbs.contains(&json!("create")) || !verbs.contains(&json!("get")) {
            continue;
        }
        let plural = resource["name"].as_str().unwrap();
        if plural == "customresourcedefinitions" {
            // Validated as kube-apiserver validates them: the CRD tests write real ones.
            continue;
        }
        let collection = if resource["namespaced"] == true {
            format!("{base}/namespaces/default/{plural}")
        } else {
            format!("{base}/{plural}")
        };
        // One object per version: the versions of a resource share their objects.
        let name = format!("sample-{}", base.rsplit('/').next().unwrap_or_default());
        let mut object = json!({"metadata": {"name": name, "labels": {"made": "by-test"}}});
        if base.ends_with("events.k8s.io/v1") {
            // The one built-in type the sim validates beyond its metadata.
            object["eventTime"] = json!("2026-01-01T00:00:00.000000Z");
            for field in [
                "reportingController",
                "reportingInstance",
                "action",
                "reason",
            ] {
                object[field] = json!("test");
            }
            object["type"] = json!("Normal");
        }
        let created = c.send(Method::POST, &collection, Some(object)).await;
        assert_eq!(created.status, 201, "{collection}: {}", created.json());
        let path = format!("{collection}/{name}");
        let as_json = c.get(&path).await.json();
        assert_eq!(as_json["kind"], resource["kind"], "{path}");
        let as_protobuf = c
            .get_accepting(&path, "application/vnd.kubernetes.protobuf")
            .await;
        assert_eq!(as_protobuf.status, 200, "{path}");
        let (api_version, kind, mut decoded): (String, String, Value) = decode(&as_protobuf.body);
        assert_eq!(
            (api_version.as_str(), kind.as_str()),
            (
                as_json["apiVersion"].as_str().unwrap(),
                as_json["kind"].as_str().unwrap()
            )
        );
        decoded["apiVersion"] = as_json["apiVersion"].clone();
        decoded["kind"] = as_json["kind"].clone();
        assert_eq!(decoded["metadata"], as_json["metadata"], "{path}");
        checked += 1;
    }
    // All but the six reviews, bindings, componentstatuses and CRDs.
    assert_eq!(checked, 59);
}

#[tokio::test]
async fn reviews_are_answered_and_not_stored() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
    let review = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {"verb": "create", "resource": "pods", "namespace": "default"}}});
    let answered = c.send(Method::POST, path, Some(review)).await;
    assert_eq!(answered.status, 201);
    let answered = answered.json();
    assert_eq!(answered["status"]["allowed"], true);
    assert_eq!(answered["spec"]["resourceAttributes"]["verb"], "create");
    let get = c.get(path).await;
    assert_eq!(get.status, 405);
    assert_eq!(get.json()["reason"], "MethodNotAllowed");

    let who = c
        .send(
            Method::POST,
            "/apis/authentication.k8s.io/v1/selfsubjectreviews",
            Some(json!({})),
        )
        .await
        .json();
    assert_eq!(who["status"]["userInfo"]["username"], "system:admin");
}

#[tokio::test]
async fn a_binding_assigns_its_pod_once() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let pods = "/api/v1/namespaces/default/pods";
    c.send(Method::POST, pods, Some(json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}})))
        .await;
    let binding = json!({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"}, "target": {"kind": "Node", "name": "node-1"}});
    let bound = c
        .send(
            Method::POST,
            "/api/v1/namespaces/default/bindings",
            Some(binding.clone()),
        )
        .await;
    assert_eq!(bound.status, 201);
    assert_eq!(bound.json()["status"], "Success");
    assert_eq!(
        c.get(&format!("{pods}/p")).await.json()["spec"]["nodeName"],
        "node-1"
    );
    let again = c
        .send(
            Method::POST,
            "/api/v1/namespaces/default/bindings",
            Some(binding),
        )
        .await;
    assert_eq!(again.status, 409);
}

#[tokio::test]
async fn componentstatuses_are_read_only() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let list = c.get("/api/v1/componentstatuses").await.json();
    let names: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["controller-manager", "etcd-0", "scheduler"]);
    assert_eq!(list["items"][0]["conditions"][0]["type"], "Healthy");
    let create = c
        .send(
            Method::POST,
            "/api/v1/componentstatuses",
            Some(json!({"metadata": {"name": "x"}})),
        )
        .await;
    assert_eq!(create.status, 405);
}
