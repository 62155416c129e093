//! Garbage collection of owner references, as kube-apiserver and kube-controller-manager's
//! collector answer it: background propagation (the default) deletes a gone owner's
//! dependents, releasing those that name another owner; `Orphan` keeps the owner with the
//! `orphan` finalizer until its dependents lost their references; `Foreground` keeps it with
//! `foregroundDeletion` until the dependents that block it are gone. A DELETE's options come
//! from its body when it says anything about propagation, else from the query; both
//! `orphanDependents` and `propagationPolicy`, or an unknown policy, are 422. Checked with
//! kubectl's `--cascade` too.

use std::time::Duration;

use http::Method;
use kinformer_sim::{Sim, SimHandle};
use serde_json::{Value, json};

use crate::common::{Client, client, in_process};
use crate::kubectl::tls_sim_with_kubectl;

const CMS: &str = "/api/v1/namespaces/default/configmaps";

/// Creates ConfigMap `name` owned by `owners` (`(uid, blockOwnerDeletion)`), with
/// `finalizers`; its uid.
async fn create(
    c: &Client<'_>,
    name: &str,
    owners: &[(&str, bool)],
    finalizers: &[&str],
) -> String {
    let refs: Vec<Value> = owners
        .iter()
        .map(|(uid, block)| {
            json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": uid,
                   "blockOwnerDeletion": block})
        })
        .collect();
    let body =
        json!({"metadata": {"name": name, "ownerReferences": refs, "finalizers": finalizers}});
    let created = c.send(Method::POST, CMS, Some(body)).await;
    assert_eq!(created.status, 201, "{}", created.json());
    created.json()["metadata"]["uid"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The ConfigMap `name` once `done` holds of it (`None`: gone), within five seconds.
async fn eventually(
    c: &Client<'_>,
    name: &str,
    done: impl Fn(Option<&Value>) -> bool,
) -> Option<Value> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let got = c.get(&format!("{CMS}/{name}")).await;
        let object = (got.status == 200).then(|| got.json());
        if done(object.as_ref()) {
            return object;
        }
        assert!(tokio::time::Instant::now() < deadline, "{name}: {object:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn owner_uids(object: &Value) -> Vec<&str> {
    object["metadata"]["ownerReferences"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["uid"].as_str())
        .collect()
}

fn finalizers(object: &Value) -> Vec<&str> {
    object["metadata"]["finalizers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

async fn delete(c: &Client<'_>, name: &str, body: Option<Value>) -> Value {
    let answer = c.send(Method::DELETE, &format!("{CMS}/{name}"), body).await;
    assert_eq!(answer.status, 200, "{}", answer.json());
    answer.json()
}

#[tokio::test]
async fn background_deletes_dependents_and_releases_those_with_another_owner() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let owner = create(&c, "owner", &[], &[]).await;
    let other = create(&c, "other", &[], &[]).await;
    let child = create(&c, "child", &[(&owner, false)], &[]).await;
    create(&c, "grandchild", &[(&child, false)], &[]).await;
    create(&c, "shared", &[(&owner, false), (&other, false)], &[]).await;
    create(&c, "stranger", &[("never-stored", false)], &[]).await;

    delete(&c, "owner", None).await;
    assert_eq!(
        c.get(&format!("{CMS}/owner")).await.status,
        404,
        "gone at once"
    );
    eventually(&c, "child", |o| o.is_none()).await;
    eventually(&c, "grandchild", |o| o.is_none()).await;
    let shared = eventually(&c, "shared", |o| {
        o.is_some_and(|o| owner_uids(o) == [other.as_str()])
    })
    .await;
    assert!(shared.is_some(), "released, not deleted");
    let stranger = c.get(&format!("{CMS}/stranger")).await;
    assert_eq!(
        stranger.status, 200,
        "an owner the sim never held is not collected"
    );
}

/// A controller's apply that raced its owner's delete writes a dependent naming an owner
/// already gone: the collector finds the owner absent and deletes the dependent (or drops the
/// reference when another owner remains), as kube-controller-manager's does.
#[tokio::test]
async fn a_dependent_written_after_its_owner_was_deleted_is_collected() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let owner = create(&c, "owner", &[], &[]).await;
    let other = create(&c, "other", &[], &[]).await;
    delete(&c, "owner", None).await;

    create(&c, "late", &[(&owner, true)], &[]).await;
    create(&c, "late-shared", &[(&owner, false), (&other, false)], &[]).await;
    eventually(&c, "late", |o| o.is_none()).await;
    let shared = eventually(&c, "late-shared", |o| {
        o.is_some_and(|o| owner_uids(o) == [other.as_str()])
    })
    .await;
    assert!(shared.is_some(), "released, not deleted");

    // A reference added later to a live object is collected the same way.
    create(&c, "adopted", &[], &[]).await;
    let refs = json!({"metadata": {"ownerReferences": [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner}
    ]}});
    let patched = c
        .send(Method::PATCH, &format!("{CMS}/adopted"), Some(refs))
        .await;
    assert_eq!(patched.status, 200, "{}", patched.json());
    eventually(&c, "adopted", |o| o.is_none()).await;
}

#[tokio::test]
async fn orphan_keeps_the_owner_until_its_dependents_are_released() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let owner = create(&c, "owner", &[], &[]).await;
    create(&c, "child", &[(&owner, true)], &[]).await;

    let marked = delete(&c, "owner", Some(json!({"propagationPolicy": "Orphan"}))).await;
    assert_eq!(finalizers(&marked), ["orphan"]);
    assert!(marked["metadata"]["deletionTimestamp"].is_string());
    eventually(&c, "owner", |o| o.is_none()).await;
    let child = eventually(&c, "child", |o| o.is_some_and(|o| owner_uids(o).is_empty())).await;
    assert!(child.unwrap()["metadata"]["ownerReferences"].is_null());
}

#[tokio::test]
async fn foreground_waits_for_the_dependents_that_block_it() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let owner = create(&c, "owner", &[], &[]).await;
    create(&c, "blocking", &[(&owner, true)], &["example.com/hold"]).await;
    create(&c, "plain", &[(&owner, false)], &[]).await;

    // The query says it when the body does not.
    let answer = c
        .send(
            Method::DELETE,
            &format!("{CMS}/owner?propagationPolicy=Foreground"),
            None,
        )
        .await;
    assert_eq!(finalizers(&answer.json()), ["foregroundDeletion"]);
    eventually(&c, "plain", |o| o.is_none()).await;
    // Deleted in the foreground too (it blocks its owner); having no dependents of its own,
    // it keeps only its own finalizer.
    eventually(&c, "blocking", |o| {
        o.is_some_and(|o| {
            o["metadata"]["deletionTimestamp"].is_string() && finalizers(o) == ["example.com/hold"]
        })
    })
    .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let held = c.get(&format!("{CMS}/owner")).await;
    assert_eq!(held.status, 200, "still blocked");
    assert_eq!(finalizers(&held.json()), ["foregroundDeletion"]);

    let release = json!({"metadata": {"finalizers": null}});
    let patched = c
        .send(Method::PATCH, &format!("{CMS}/blocking"), Some(release))
        .await;
    assert_eq!(patched.status, 200, "{}", patched.json());
    eventually(&c, "blocking", |o| o.is_none()).await;
    eventually(&c, "owner", |o| o.is_none()).await;
}

#[tokio::test]
async fn propagation_options_are_validated_and_a_second_delete_swaps_the_policy() {
    // Without the collector, the finalizers a policy sets stay for the test to read.
    let sim: SimHandle = Sim::builder()
        .garbage_collection(false)
        .start()
        .await
        .unwrap();
    let c = client(&sim);
    create(&c, "owner", &[], &["example.com/hold"]).await;
    for (body, reason) in [
        (
            json!({"propagationPolicy": "Orphan", "orphanDependents": true}),
            "orphanDependents and deletionPropagation cannot be both set",
        ),
        (
            json!({"propagationPolicy": "Sideways"}),
            "Unsupported value: \"Sideways\"",
        ),
    ] {
        let refused = c
            .send(Method::DELETE, &format!("{CMS}/owner"), Some(body))
            .await;
        assert_eq!(refused.status, 422);
        let status = refused.json();
        assert_eq!(status["reason"], "Invalid");
        assert!(
            status["message"].as_str().unwrap().contains(reason),
            "{status}"
        );
        assert_eq!(status["details"]["causes"][0]["field"], "propagationPolicy");
    }
    let orphan = delete(&c, "owner", Some(json!({"orphanDependents": true}))).await;
    assert_eq!(finalizers(&orphan), ["example.com/hold", "orphan"]);
    let foreground = delete(
        &c,
        "owner",
        Some(json!({"propagationPolicy": "Foreground"})),
    )
    .await;
    assert_eq!(
        finalizers(&foreground),
        ["example.com/hold", "foregroundDeletion"]
    );
    assert_eq!(
        foreground["metadata"]["deletionTimestamp"],
        orphan["metadata"]["deletionTimestamp"]
    );
    let background = delete(
        &c,
        "owner",
        Some(json!({"propagationPolicy": "Background"})),
    )
    .await;
    assert_eq!(finalizers(&background), ["example.com/hold"]);
}

#[tokio::test]
async fn kubectl_cascades_orphan_and_foreground() {
    let Some((sim, k)) = tls_sim_with_kubectl("gc").await else {
        return;
    };
    let c = in_process(&sim);
    let owner = create(&c, "owner", &[], &[]).await;
    create(&c, "kept", &[(&owner, true)], &[]).await;
    k.run(&["delete", "configmap", "owner", "--cascade=orphan"])
        .await;
    assert_eq!(c.get(&format!("{CMS}/owner")).await.status, 404);
    let kept = c.get(&format!("{CMS}/kept")).await.json();
    assert!(owner_uids(&kept).is_empty(), "{kept}");

    let owner = create(&c, "owner", &[], &[]).await;
    create(&c, "removed", &[(&owner, true)], &[]).await;
    k.run(&["delete", "configmap", "owner", "--cascade=foreground"])
        .await;
    assert_eq!(c.get(&format!("{CMS}/owner")).await.status, 404);
    assert_eq!(c.get(&format!("{CMS}/removed")).await.status, 404);
}
