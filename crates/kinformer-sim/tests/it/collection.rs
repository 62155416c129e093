//! DELETE on a collection (`deletecollection`) as kube-apiserver answers it: every object the
//! selectors match deleted (one DELETED event each), the list of them as the answer, dry runs,
//! preconditions per object, cluster-scoped and custom resources.

use http::Method;
use kinformer_sim::{CustomResource, Sim};
use serde_json::{Value, json};

use crate::common::{Client, Resp, WIDGETS, cm, in_process, names, rv_of};
use crate::verbs::CMS;

async fn create(c: &Client<'_>, path: &str, body: Value) -> Value {
    let resp = c.send(Method::POST, path, Some(body)).await;
    assert_eq!(resp.status, 201, "{:?}", resp.body);
    resp.json()
}

async fn delete(c: &Client<'_>, path: &str, body: Option<Value>) -> Resp {
    c.send(Method::DELETE, path, body).await
}

#[tokio::test]
async fn deletes_what_the_selectors_match_and_answers_the_list() {
    let sim = Sim::builder()
        .create_namespace("other")
        .start()
        .await
        .unwrap();
    let c = in_process(&sim);
    for (name, team) in [("a", "red"), ("b", "red"), ("c", "blue")] {
        create(&c, CMS, cm(name, json!({"team": team}))).await;
    }
    let other = "/api/v1/namespaces/other/configmaps";
    create(&c, other, cm("d", json!({"team": "red"}))).await;
    let before = sim.stats().await.revision;
    let mut watch = c
        .watch(&format!("{CMS}?watch=1&resourceVersion={before}"))
        .await;

    let red = format!("{CMS}?labelSelector=team%3Dred");
    let dry = delete(&c, &format!("{red}&dryRun=All"), None).await;
    assert_eq!(dry.status, 200);
    assert_eq!(names(&dry.json()), ["default/a", "default/b"]);
    assert_eq!(
        sim.stats().await.revision,
        before,
        "a dry run deletes nothing"
    );

    let answer = delete(
        &c,
        &red,
        Some(
            json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"}),
        ),
    )
    .await;
    assert_eq!(answer.status, 200);
    let list = answer.json();
    assert_eq!(
        (list["kind"].as_str(), list["apiVersion"].as_str()),
        (Some("ConfigMapList"), Some("v1"))
    );
    // The list as it was read, before the deletes; built-in items carry no kind.
    assert_eq!(rv_of(&list), before);
    assert_eq!(names(&list), ["default/a", "default/b"]);
    assert!(list["items"][0].get("kind").is_none());
    assert_eq!(list["items"][0]["data"]["k"], "v");

    let events = watch.events(2).await;
    let deleted: Vec<(&str, &str)> = events
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap(),
                e["object"]["metadata"]["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(deleted, [("DELETED", "a"), ("DELETED", "b")]);
    assert_eq!(sim.stats().await.revision, before + 2);
    assert_eq!(names(&c.get(CMS).await.json()), ["default/c"]);
    assert_eq!(
        names(&c.get(other).await.json()),
        ["other/d"],
        "another namespace's objects stay"
    );

    // A field selector, and a selector matching nothing (an empty list, nothing written).
    let by_name = delete(&c, &format!("{CMS}?fieldSelector=metadata.name%3Dc"), None).await;
    assert_eq!(names(&by_name.json()), ["default/c"]);
    let none = delete(&c, &red, None).await;
    assert_eq!((none.status.as_u16(), names(&none.json()).len()), (200, 0));
    let bad = delete(&c, &format!("{CMS}?fieldSelector=spec.x%3Dy"), None).await;
    assert_eq!(bad.status, 400);
}

#[tokio::test]
async fn preconditions_hold_per_object_and_stop_at_the_first_that_fails() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let a = create(&c, CMS, cm("a", json!({}))).await;
    create(&c, CMS, cm("b", json!({}))).await;
    let uid = a["metadata"]["uid"].clone();
    let failed = delete(&c, CMS, Some(json!({"preconditions": {"uid": uid}}))).await;
    assert_eq!(failed.status, 409);
    assert!(
        failed.json()["message"]
            .as_str()
            .unwrap()
            .contains("Precondition failed: UID in precondition"),
        "{:?}",
        failed.body
    );
    // Objects are deleted in key order: `a` (whose uid matched) went before `b` failed.
    assert_eq!(names(&c.get(CMS).await.json()), ["default/b"]);
    // kube-apiserver validates DeleteOptions before anything is deleted: 422 Invalid.
    let bad_policy = delete(&c, CMS, Some(json!({"propagationPolicy": "Sometimes"}))).await;
    assert_eq!(bad_policy.status, 422);
    assert_eq!(names(&c.get(CMS).await.json()), ["default/b"]);
}

#[tokio::test]
async fn cluster_scoped_and_custom_resources_and_the_paths_without_it() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    for (name, pool) in [("n1", "gpu"), ("n2", "cpu")] {
        create(
            &c,
            "/api/v1/nodes",
            json!({"metadata": {"name": name, "labels": {"pool": pool}}}),
        )
        .await;
    }
    let nodes = delete(&c, "/api/v1/nodes?labelSelector=pool%3Dgpu", None).await;
    assert_eq!(names(&nodes.json()), ["/n1"]);
    assert_eq!(names(&c.get("/api/v1/nodes").await.json()), ["/n2"]);

    sim.register(CustomResource::example_widgets())
        .await
        .unwrap();
    for name in ["w1", "w2"] {
        create(
            &c,
            WIDGETS,
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name}}),
        )
        .await;
    }
    let list = delete(&c, WIDGETS, None).await.json();
    assert_eq!(
        (list["kind"].as_str(), list["items"][1]["kind"].as_str()),
        (Some("WidgetList"), Some("Widget"))
    );
    assert_eq!(names(&c.get(WIDGETS).await.json()).len(), 0);

    // Namespaces have no collection delete; the all-namespaces path serves only list and watch.
    create(
        &c,
        "/api/v1/namespaces",
        json!({"metadata": {"name": "keep"}}),
    )
    .await;
    assert_eq!(delete(&c, "/api/v1/namespaces", None).await.status, 405);
    assert_eq!(delete(&c, "/api/v1/configmaps", None).await.status, 405);
    assert_eq!(c.get("/api/v1/namespaces/keep").await.status, 200);
}
