//! Deletion held by finalizers, as kube-apiserver answers it: a delete of an object with
//! finalizers marks it (`deletionTimestamp`, `deletionGracePeriodSeconds: 0`, a MODIFIED event)
//! and keeps it; a second delete changes nothing; a write may remove finalizers but not add
//! one (422 naming it); the write that removes the last one deletes the object (DELETED).
//! Checked with kubectl too.

use std::time::Duration;

use http::Method;
use kinformer_sim::Sim;
use serde_json::json;

use crate::common::{client, rv_of};
use crate::kubectl::tls_sim_with_kubectl;

const CMS: &str = "/api/v1/namespaces/default/configmaps";

#[tokio::test]
async fn finalizers_hold_a_deleted_object_until_the_last_one_is_removed() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let held =
        json!({"metadata": {"name": "held", "finalizers": ["example.com/a", "example.com/b"]}});
    let created = c.send(Method::POST, CMS, Some(held)).await;
    assert_eq!(created.status, 201);
    let mut watch = c
        .watch(&format!(
            "{CMS}?watch=1&resourceVersion={}",
            rv_of(&created.json())
        ))
        .await;

    let deleted = c.send(Method::DELETE, &format!("{CMS}/held"), None).await;
    assert_eq!(deleted.status, 200);
    let marked = deleted.json();
    assert!(
        marked["metadata"]["deletionTimestamp"].is_string(),
        "{marked}"
    );
    assert_eq!(marked["metadata"]["deletionGracePeriodSeconds"], 0);
    let event = watch.event().await;
    assert_eq!(event["type"], "MODIFIED");
    assert!(event["object"]["metadata"]["deletionTimestamp"].is_string());

    // A second delete changes nothing.
    let again = c.send(Method::DELETE, &format!("{CMS}/held"), None).await;
    assert_eq!(again.status, 200);
    assert_eq!(rv_of(&again.json()), rv_of(&marked));

    // No finalizer may be added now; the deletion fields are the server's.
    let add =
        json!({"metadata": {"finalizers": ["example.com/a", "example.com/b", "example.com/c"]}});
    let refused = c
        .send(Method::PATCH, &format!("{CMS}/held"), Some(add))
        .await;
    assert_eq!(refused.status, 422);
    let status = refused.json();
    assert_eq!(status["reason"], "Invalid");
    assert!(
        status["message"].as_str().unwrap().ends_with(
            "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{\"example.com/c\"}"
        ),
        "{status}"
    );
    let clear = json!({"metadata": {"deletionTimestamp": null, "finalizers": ["example.com/b"]}});
    let one_left = c
        .send(Method::PATCH, &format!("{CMS}/held"), Some(clear))
        .await;
    assert_eq!(one_left.status, 200);
    assert_eq!(
        one_left.json()["metadata"]["deletionTimestamp"],
        marked["metadata"]["deletionTimestamp"]
    );
    assert_eq!(watch.event().await["type"], "MODIFIED");

    // The last one removed: the object goes.
    let last = json!({"metadata": {"finalizers": null}});
    let gone = c
        .send(Method::PATCH, &format!("{CMS}/held"), Some(last))
        .await;
    assert_eq!(gone.status, 200);
    let event = watch.event().await;
    assert_eq!(event["type"], "DELETED");
    assert_eq!(event["object"]["metadata"]["name"], "held");
    assert_eq!(c.get(&format!("{CMS}/held")).await.status, 404);

    // Without finalizers a delete is at once.
    let plain = json!({"metadata": {"name": "plain"}});
    c.send(Method::POST, CMS, Some(plain)).await;
    assert_eq!(
        c.send(Method::DELETE, &format!("{CMS}/plain"), None)
            .await
            .status,
        200
    );
    assert_eq!(c.get(&format!("{CMS}/plain")).await.status, 404);
}

#[tokio::test]
async fn kubectl_deletes_and_finishes_a_held_object() {
    let Some((_sim, k)) = tls_sim_with_kubectl("finalizers").await else {
        return;
    };
    let file = k.write(
        "held.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  namespace: default\n  finalizers: [example.com/cleanup]\n",
    );
    k.run(&["create", "-f", crate::kubectl::path_str(&file)])
        .await;
    k.run(&["delete", "configmap", "held", "--wait=false"])
        .await;
    let marked: serde_json::Value =
        serde_json::from_str(&k.run(&["get", "configmap", "held", "-o", "json"]).await).unwrap();
    assert!(
        marked["metadata"]["deletionTimestamp"].is_string(),
        "{marked}"
    );
    k.run(&[
        "patch",
        "configmap",
        "held",
        "--type=json",
        "-p",
        r#"[{"op":"remove","path":"/metadata/finalizers"}]"#,
    ])
    .await;
    let out = tokio::time::timeout(
        Duration::from_secs(30),
        k.command(&[
            "get",
            "configmap",
            "held",
            "--ignore-not-found",
            "-o",
            "name",
        ])
        .output(),
    )
    .await
    .unwrap()
    .unwrap();
    assert!(out.status.success());
    assert!(
        out.stdout.is_empty(),
        "still there: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}
