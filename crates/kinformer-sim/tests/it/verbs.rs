//! The write verbs as kube-apiserver answers them: optimistic concurrency, generation, the status
//! subresource, every patch type, server-side apply with field ownership, dryRun, Leases and Events.

use http::Method;
use kinformer_sim::{CustomResource, Sim};
use serde_json::{Value, json};

use crate::common::{Client, Resp, WIDGETS, in_process};

pub(crate) const CMS: &str = "/api/v1/namespaces/default/configmaps";
const DEPLOYS: &str = "/apis/apps/v1/namespaces/default/deployments";

pub(crate) async fn patch(c: &Client<'_>, path: &str, content_type: &str, body: Value) -> Resp {
    let resp = c.raw(Method::PATCH, path, Some(body), content_type).await;
    let (parts, body) = resp.into_parts();
    let body = http_body_util::BodyExt::collect(body)
        .await
        .unwrap()
        .to_bytes();
    Resp {
        status: parts.status,
        headers: parts.headers,
        body,
    }
}

fn deployment(name: &str, image: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
           "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}},
                    "template": {"metadata": {"labels": {"app": name}},
                                 "spec": {"containers": [{"name": "app", "image": image}, {"name": "side", "image": "s:1"}]}}}})
}

#[tokio::test]
async fn stale_resource_versions_conflict_and_missing_ones_are_unconditional() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let created = c
        .send(
            Method::POST,
            CMS,
            Some(json!({"metadata": {"name": "a"}, "data": {"x": "1"}})),
        )
        .await
        .json();
    let mut next = created.clone();
    next["data"]["x"] = json!("2");
    assert_eq!(
        c.send(Method::PUT, &format!("{CMS}/a"), Some(next.clone()))
            .await
            .status,
        200
    );
    let stale = c
        .send(Method::PUT, &format!("{CMS}/a"), Some(next.clone()))
        .await;
    assert_eq!(stale.status, 409);
    let s = stale.json();
    assert_eq!(s["reason"], "Conflict");
    assert_eq!(
        s["message"],
        "Operation cannot be fulfilled on configmaps \"a\": the object has been modified; please apply your changes to the latest version and try again"
    );
    assert_eq!(
        (s["details"]["name"].as_str(), s["details"]["kind"].as_str()),
        (Some("a"), Some("configmaps"))
    );
    let stale_patch = c.send(Method::PATCH, &format!("{CMS}/a"), Some(json!({"metadata": {"resourceVersion": created["metadata"]["resourceVersion"]}, "data": {"x": "3"}}))).await;
    assert_eq!(stale_patch.status, 409);
    next["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("resourceVersion");
    next["data"]["x"] = json!("4");
    let unconditional = c.send(Method::PUT, &format!("{CMS}/a"), Some(next)).await;
    assert_eq!(
        (
            unconditional.status.as_u16(),
            unconditional.json()["data"]["x"].as_str()
        ),
        (200, Some("4"))
    );
    // Custom resources require a resourceVersion on update.
    sim.register(CustomResource::example_widgets())
        .await
        .unwrap();
    c.send(Method::POST, WIDGETS, Some(json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"n": 1}}))).await;
    let no_rv = c
        .send(
            Method::PUT,
            &format!("{WIDGETS}/w"),
            Some(json!({"metadata": {"name": "w"}, "spec": {"n": 2}})),
        )
        .await;
    assert_eq!(
        (no_rv.status.as_u16(), no_rv.json()["reason"].as_str()),
        (422, Some("Invalid"))
    );
}

#[tokio::test]
async fn generation_counts_spec_changes_and_status_is_a_subresource() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let d = c
        .send(Method::POST, DEPLOYS, Some(deployment("d", "a:1")))
        .await
        .json();
    assert_eq!(d["metadata"]["generation"], 1);
    let path = format!("{DEPLOYS}/d");
    let labelled = c
        .send(
            Method::PATCH,
            &path,
            Some(json!({"metadata": {"labels": {"l": "1"}}})),
        )
        .await
        .json();
    assert_eq!(labelled["metadata"]["generation"], 1);
    // A main-resource write changes the spec but not the status.
    let mut put = labelled.clone();
    put["spec"]["replicas"] = json!(3);
    put["status"] = json!({"replicas": 7});
    let put = c.send(Method::PUT, &path, Some(put)).await.json();
    assert_eq!(
        (
            put["metadata"]["generation"].as_i64(),
            put["spec"]["replicas"].as_i64()
        ),
        (Some(2), Some(3))
    );
    assert!(
        put.get("status")
            .is_none_or(|s| s.get("replicas").is_none()),
        "{put}"
    );
    // A status write changes the status but not the spec, and leaves the generation.
    let mut status = put.clone();
    status["spec"]["replicas"] = json!(9);
    status["status"] = json!({"observedGeneration": 2, "replicas": 3});
    let s = c
        .send(Method::PUT, &format!("{path}/status"), Some(status))
        .await
        .json();
    assert_eq!(
        (
            s["spec"]["replicas"].as_i64(),
            s["status"]["replicas"].as_i64()
        ),
        (Some(3), Some(3))
    );
    assert_eq!(s["metadata"]["generation"], 2);
    let entry = s["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["subresource"] == "status")
        .cloned();
    assert!(
        entry.is_some(),
        "a status write is recorded against the subresource: {s}"
    );
    let merged = c
        .send(
            Method::PATCH,
            &format!("{path}/status"),
            Some(json!({"status": {"readyReplicas": 1}, "spec": {"replicas": 5}})),
        )
        .await
        .json();
    assert_eq!(
        (
            merged["status"]["readyReplicas"].as_i64(),
            merged["spec"]["replicas"].as_i64()
        ),
        (Some(1), Some(3))
    );
    assert_eq!(
        c.get(&format!("{path}/status")).await.json()["status"]["readyReplicas"],
        1
    );
    c.send(Method::POST, CMS, Some(json!({"metadata": {"name": "c"}})))
        .await;
    assert_eq!(c.get(&format!("{CMS}/c/status")).await.status, 404);
    assert_eq!(c.get(&format!("{CMS}/c/scale")).await.status, 404);
    assert_eq!(c.get(&format!("{path}/log")).await.status, 404);
}

#[tokio::test]
async fn json_merge_and_strategic_patches() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    c.send(Method::POST, DEPLOYS, Some(deployment("d", "a:1")))
        .await;
    let path = format!("{DEPLOYS}/d");
    let jp = "application/json-patch+json";
    let ok = patch(
        &c,
        &path,
        jp,
        json!([
            {"op": "test", "path": "/spec/replicas", "value": 1},
            {"op": "replace", "path": "/spec/replicas", "value": 2},
            {"op": "add", "path": "/metadata/labels", "value": {"x": "y"}},
        ]),
    )
    .await;
    assert_eq!(ok.status, 200);
    assert_eq!(
        (
            ok.json()["spec"]["replicas"].as_i64(),
            ok.json()["metadata"]["labels"]["x"].as_str()
        ),
        (Some(2), Some("y"))
    );
    let failed = patch(
        &c,
        &path,
        jp,
        json!([{"op": "test", "path": "/spec/replicas", "value": 1}]),
    )
    .await;
    assert_eq!(
        (failed.status.as_u16(), failed.json()["reason"].as_str()),
        (422, Some("Invalid"))
    );
    assert_eq!(
        failed.json()["details"]["causes"][0]["message"],
        "testing value /spec/replicas failed: test failed"
    );
    assert_eq!(patch(&c, &path, jp, json!({"op": "add"})).await.status, 400);
    assert_eq!(
        patch(&c, &path, jp, json!([{"op": "remove", "path": "/nope"}]))
            .await
            .status,
        422
    );
    // Strategic merge: containers merge by name.
    let smp = patch(
        &c,
        &path,
        "application/strategic-merge-patch+json",
        json!({"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "a:2"}]}}}}),
    )
    .await
    .json();
    assert_eq!(
        smp["spec"]["template"]["spec"]["containers"],
        json!([{"name": "app", "image": "a:2"}, {"name": "side", "image": "s:1"}])
    );
    let deleted = patch(&c, &path, "application/strategic-merge-patch+json",
        json!({"spec": {"template": {"spec": {"containers": [{"name": "side", "$patch": "delete"}]}}}})).await.json();
    assert_eq!(
        deleted["spec"]["template"]["spec"]["containers"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // A merge patch replaces lists whole.
    let merge = patch(
        &c,
        &path,
        "application/merge-patch+json",
        json!({"spec": {"template": {"spec": {"containers": [{"name": "only", "image": "o:1"}]}}}}),
    )
    .await
    .json();
    assert_eq!(
        merge["spec"]["template"]["spec"]["containers"],
        json!([{"name": "only", "image": "o:1"}])
    );
    assert_eq!(
        patch(
            &c,
            &path,
            "application/strategic-merge-patch+json",
            json!({"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}})
        )
        .await
        .status,
        400
    );
    assert_eq!(patch(&c, &path, "text/plain", json!({})).await.status, 415);
    sim.register(CustomResource::example_widgets())
        .await
        .unwrap();
    c.send(
        Method::POST,
        WIDGETS,
        Some(json!({"metadata": {"name": "w"}, "spec": {"n": 1}})),
    )
    .await;
    let smp_cr = patch(
        &c,
        &format!("{WIDGETS}/w"),
        "application/strategic-merge-patch+json",
        json!({"spec": {"n": 2}}),
    )
    .await;
    assert_eq!(
        (smp_cr.status.as_u16(), smp_cr.json()["reason"].as_str()),
        (415, Some("UnsupportedMediaType"))
    );
    let w = patch(
        &c,
        &format!("{WIDGETS}/w"),
        "application/merge-patch+json",
        json!({"spec": {"n": 2}}),
    )
    .await
    .json();
    assert_eq!(w["metadata"]["generation"], 2);
}
