//! The `scale` subresource as kube-apiserver serves it: an `autoscaling/v1` `Scale` read from
//! deployments, replica sets, stateful sets and custom resources that declare one; PUT and every
//! PATCH type changing only the desired replicas, under the `Scale`'s resourceVersion and uid;
//! 404 for kinds without one.

use http::Method;
use kinformer_core::Scope;
use kinformer_sim::{CustomResource, ScaleSubresource, Sim};
use serde_json::{Value, json};

use crate::common::{Client, WIDGETS, in_process, rv_of};
use crate::verbs::{CMS, patch};

const APPS: &str = "/apis/apps/v1/namespaces/default";

fn workload(kind: &str, name: &str, replicas: i64, selector: Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name},
           "spec": {"replicas": replicas, "selector": selector,
                    "template": {"metadata": {"labels": {"app": name}},
                                 "spec": {"containers": [{"name": "app", "image": "app:1"}]}}}})
}

async fn created(c: &Client<'_>, path: &str, body: Value) -> Value {
    let resp = c.send(Method::POST, path, Some(body)).await;
    assert_eq!(resp.status, 201, "{:?}", resp.body);
    resp.json()
}

#[tokio::test]
async fn a_deployment_is_read_and_scaled_through_its_scale() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let selector = json!({"matchLabels": {"app": "web"}});
    let d = created(
        &c,
        &format!("{APPS}/deployments"),
        workload("Deployment", "web", 2, selector),
    )
    .await;
    let path = format!("{APPS}/deployments/web/scale");
    let scale = c.get(&path).await.json();
    assert_eq!(
        scale,
        json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
               "metadata": {"name": "web", "namespace": "default", "uid": d["metadata"]["uid"],
                            "resourceVersion": d["metadata"]["resourceVersion"],
                            "creationTimestamp": d["metadata"]["creationTimestamp"]},
               "spec": {"replicas": 2}, "status": {"replicas": 0, "selector": "app=web"}})
    );

    let mut watch = c
        .watch(&format!(
            "{APPS}/deployments?watch=1&resourceVersion={}",
            rv_of(&d)
        ))
        .await;
    let mut put = scale.clone();
    put["spec"]["replicas"] = json!(4);
    let replaced = c.send(Method::PUT, &path, Some(put.clone())).await;
    assert_eq!(replaced.status, 200);
    let replaced = replaced.json();
    assert_eq!(replaced["spec"]["replicas"], 4);
    assert!(rv_of(&replaced) > rv_of(&scale));
    let event = watch.event().await;
    assert_eq!(event["type"], "MODIFIED");
    let stored = &event["object"];
    assert_eq!(
        (
            stored["spec"]["replicas"].as_i64(),
            stored["metadata"]["generation"].as_i64(),
            rv_of(stored)
        ),
        (Some(4), Some(2), rv_of(&replaced))
    );
    assert_eq!(stored["spec"]["template"], d["spec"]["template"]);
    let entry = stored["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["subresource"] == "scale")
        .cloned()
        .unwrap_or_else(|| panic!("no scale entry in {stored}"));
    assert_eq!(
        (
            &entry["operation"],
            &entry["apiVersion"],
            &entry["fieldsV1"]
        ),
        (
            &json!("Update"),
            &json!("apps/v1"),
            &json!({"f:spec": {"f:replicas": {}}})
        )
    );

    // The Scale's resourceVersion is a precondition; without one the write is unconditional.
    let stale = c.send(Method::PUT, &path, Some(put.clone())).await;
    assert_eq!(stale.status, 409);
    assert_eq!(
        stale.json()["message"],
        "Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply your changes to the latest version and try again"
    );
    put["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("resourceVersion");
    put["spec"]["replicas"] = json!(5);
    let unconditional = c.send(Method::PUT, &path, Some(put.clone())).await;
    assert_eq!(unconditional.json()["spec"]["replicas"], 5);
    let same = c.send(Method::PUT, &path, Some(put.clone())).await.json();
    assert_eq!(
        rv_of(&same),
        rv_of(&unconditional.json()),
        "no change, no write"
    );
    put["metadata"]["uid"] = json!("another");
    assert_eq!(c.send(Method::PUT, &path, Some(put)).await.status, 409);

    // A dry run answers the Scale it would make and stores nothing.
    let dry = c
        .send(
            Method::PUT,
            &format!("{path}?dryRun=All"),
            Some(json!({"spec": {"replicas": 9}})),
        )
        .await
        .json();
    assert_eq!(dry["spec"]["replicas"], 9);
    let deployment = c.get(&format!("{APPS}/deployments/web")).await.json();
    assert_eq!(deployment["spec"]["replicas"], 5);

    // Bad Scales.
    let negative = c
        .send(Method::PUT, &path, Some(json!({"spec": {"replicas": -1}})))
        .await;
    assert_eq!(
        (negative.status.as_u16(), negative.json()["reason"].as_str()),
        (422, Some("Invalid"))
    );
    let other_name = json!({"metadata": {"name": "db"}, "spec": {"replicas": 1}});
    assert_eq!(
        c.send(Method::PUT, &path, Some(other_name)).await.status,
        400
    );
    let wrong_type =
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": 1}});
    assert_eq!(
        c.send(Method::PUT, &path, Some(wrong_type)).await.status,
        400
    );
    // Replicas to zero: the Scale's spec is empty, as the API omits a zero count.
    let zero = c
        .send(Method::PUT, &path, Some(json!({"spec": {}})))
        .await
        .json();
    assert_eq!(zero["spec"], json!({}));
}

#[tokio::test]
async fn every_patch_type_changes_only_the_replicas() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let selector = json!({"matchLabels": {"app": "web"}});
    created(
        &c,
        &format!("{APPS}/deployments"),
        workload("Deployment", "web", 1, selector),
    )
    .await;
    let path = format!("{APPS}/deployments/web/scale");
    let replicas = |v: &Value| v["spec"]["replicas"].as_i64();

    let merge = patch(
        &c,
        &path,
        "application/merge-patch+json",
        json!({"spec": {"replicas": 2}, "status": {"replicas": 7}}),
    )
    .await;
    assert_eq!(
        (merge.status.as_u16(), replicas(&merge.json())),
        (200, Some(2))
    );
    assert_eq!(
        merge.json()["status"]["replicas"],
        0,
        "status is not written"
    );
    let json_patch = patch(
        &c,
        &path,
        "application/json-patch+json",
        json!([{"op": "test", "path": "/spec/replicas", "value": 2},
               {"op": "replace", "path": "/spec/replicas", "value": 3}]),
    )
    .await;
    assert_eq!(replicas(&json_patch.json()), Some(3));
    let strategic = patch(
        &c,
        &path,
        "application/strategic-merge-patch+json",
        json!({"spec": {"replicas": 4}}),
    )
    .await;
    assert_eq!(replicas(&strategic.json()), Some(4));
    let stale = patch(
        &c,
        &path,
        "application/merge-patch+json",
        json!({"metadata": {"resourceVersion": "1"}, "spec": {"replicas": 5}}),
    )
    .await;
    assert_eq!(stale.status, 409);

    // Server-side apply of a Scale: field ownership of .spec.replicas as for any apply.
    let applied = json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "web"}, "spec": {"replicas": 6}});
    let ct = "application/apply-patch+yaml";
    assert_eq!(patch(&c, &path, ct, applied.clone()).await.status, 422);
    let conflict = patch(&c, &format!("{path}?fieldManager=hpa"), ct, applied.clone()).await;
    assert_eq!(conflict.status, 409);
    assert_eq!(
        conflict.json()["details"]["causes"][0]["field"],
        ".spec.replicas"
    );
    let forced = patch(
        &c,
        &format!("{path}?fieldManager=hpa&force=true"),
        ct,
        applied,
    )
    .await;
    assert_eq!(
        (forced.status.as_u16(), replicas(&forced.json())),
        (200, Some(6))
    );
    let d = c.get(&format!("{APPS}/deployments/web")).await.json();
    let hpa = d["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["manager"] == "hpa")
        .cloned()
        .unwrap();
    assert_eq!(
        (&hpa["operation"], &hpa["subresource"], &hpa["fieldsV1"]),
        (
            &json!("Apply"),
            &json!("scale"),
            &json!({"f:spec": {"f:replicas": {}}})
        )
    );
    assert_eq!(
        d["spec"]["selector"],
        json!({"matchLabels": {"app": "web"}})
    );
    assert_eq!(d["metadata"]["generation"], 5);
    let bad = patch(
        &c,
        &path,
        "application/merge-patch+json",
        json!({"spec": {"replicas": "x"}}),
    )
    .await;
    assert_eq!(bad.status, 400);
}

#[tokio::test]
async fn replica_sets_stateful_sets_and_kinds_without_a_scale() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let selector = json!({"matchLabels": {"app": "db"},
        "matchExpressions": [{"key": "tier", "operator": "In", "values": ["b", "a"]}]});
    for (kind, plural) in [
        ("ReplicaSet", "replicasets"),
        ("StatefulSet", "statefulsets"),
    ] {
        created(
            &c,
            &format!("{APPS}/{plural}"),
            workload(kind, "db", 3, selector.clone()),
        )
        .await;
        let path = format!("{APPS}/{plural}/db/scale");
        let scale = c.get(&path).await.json();
        assert_eq!(
            (&scale["spec"], &scale["status"]["selector"]),
            (&json!({"replicas": 3}), &json!("app=db,tier in (a,b)")),
            "{plural}"
        );
        let scaled = c
            .send(Method::PUT, &path, Some(json!({"spec": {"replicas": 1}})))
            .await;
        assert_eq!(scaled.json()["spec"]["replicas"], 1, "{plural}");
        let stored = c.get(&format!("{APPS}/{plural}/db")).await.json();
        assert_eq!(stored["spec"]["replicas"], 1, "{plural}");
        // `/status` is served for them too.
        assert_eq!(
            c.get(&format!("{APPS}/{plural}/db/status")).await.status,
            200
        );
    }
    let missing = c.get(&format!("{APPS}/deployments/nope/scale")).await;
    assert_eq!(
        (missing.status.as_u16(), missing.json()["message"].as_str()),
        (404, Some("deployments.apps \"nope\" not found"))
    );
    c.send(Method::POST, CMS, Some(json!({"metadata": {"name": "c"}})))
        .await;
    assert_eq!(c.get(&format!("{CMS}/c/scale")).await.status, 404);
    assert_eq!(
        c.send(Method::PUT, &format!("{CMS}/c/scale"), Some(json!({})))
            .await
            .status,
        404
    );
    let delete = c
        .send(
            Method::DELETE,
            &format!("{APPS}/replicasets/db/scale"),
            None,
        )
        .await;
    assert_eq!(delete.status, 405);
    assert_eq!(c.get(&format!("{APPS}/replicasets/db")).await.status, 200);
}

#[tokio::test]
async fn a_custom_resource_scales_through_its_declared_paths() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let scale = ScaleSubresource::new(".spec.size", ".status.count")
        .with_label_selector_path(".status.selector");
    sim.register(CustomResource::example_widgets().with_scale(scale))
        .await
        .unwrap();
    sim.register(CustomResource::new(
        "example.com",
        "v1",
        "Gadget",
        "gadgets",
        Scope::Namespaced,
    ))
    .await
    .unwrap();
    created(
        &c,
        WIDGETS,
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
               "spec": {"size": 2, "color": "red"}, "status": {"count": 1, "selector": "app=w"}}),
    )
    .await;
    let path = format!("{WIDGETS}/w/scale");
    let got = c.get(&path).await.json();
    assert_eq!(
        (&got["spec"], &got["status"]),
        (
            &json!({"replicas": 2}),
            &json!({"replicas": 1, "selector": "app=w"})
        )
    );
    // A Scale is a built-in type: strategic merge patches apply to a custom resource's.
    let scaled = patch(
        &c,
        &path,
        "application/strategic-merge-patch+json",
        json!({"spec": {"replicas": 5}}),
    )
    .await;
    assert_eq!(scaled.json()["spec"]["replicas"], 5);
    let w = c.get(&format!("{WIDGETS}/w")).await.json();
    assert_eq!(
        (&w["spec"], w["metadata"]["generation"].as_i64()),
        (&json!({"size": 5, "color": "red"}), Some(2))
    );
    let gadgets = "/apis/example.com/v1/namespaces/default/gadgets";
    created(
        &c,
        gadgets,
        json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}}),
    )
    .await;
    assert_eq!(c.get(&format!("{gadgets}/g/scale")).await.status, 404);

    let bad = CustomResource::new("example.com", "v1", "Thing", "things", Scope::Namespaced)
        .with_scale(ScaleSubresource::new(".status.size", ".status.count"));
    assert!(sim.register(bad).await.is_err());
}
