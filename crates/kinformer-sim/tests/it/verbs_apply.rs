//! Server-side apply with field ownership, dryRun, and Leases and Events, as kube-apiserver
//! answers them.

use http::Method;
use kinformer_sim::Sim;
use serde_json::json;

use crate::common::{in_process, rv_of};
use crate::verbs::{CMS, patch};

#[tokio::test]
async fn server_side_apply_owns_fields_conflicts_and_forces() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let apply = "application/apply-patch+yaml";
    let cm = |v: &str| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "s"}, "data": {"k": v}});
    let path = format!("{CMS}/s");
    let missing = patch(&c, &path, apply, cm("1")).await;
    assert_eq!(missing.status, 422);
    assert_eq!(
        missing.json()["message"],
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch"
    );
    let created = patch(&c, &format!("{path}?fieldManager=a"), apply, cm("1")).await;
    assert_eq!(created.status, 201);
    let obj = created.json();
    let mf = &obj["metadata"]["managedFields"];
    assert_eq!(
        (
            mf[0]["manager"].as_str(),
            mf[0]["operation"].as_str(),
            mf[0]["apiVersion"].as_str()
        ),
        (Some("a"), Some("Apply"), Some("v1"))
    );
    assert_eq!(mf[0]["fieldsV1"], json!({"f:data": {"f:k": {}}}));
    // Applying the same again changes nothing: same resourceVersion, no watch event.
    let mut w = c
        .watch(&format!("{CMS}?watch=1&resourceVersion={}", rv_of(&obj)))
        .await;
    let again = patch(&c, &format!("{path}?fieldManager=a"), apply, cm("1")).await;
    assert_eq!(
        (again.status.as_u16(), rv_of(&again.json())),
        (200, rv_of(&obj))
    );
    let conflict = patch(&c, &format!("{path}?fieldManager=b"), apply, cm("2")).await;
    assert_eq!(conflict.status, 409);
    let s = conflict.json();
    assert_eq!(
        (s["reason"].as_str(), s["message"].as_str()),
        (
            Some("Conflict"),
            Some("Apply failed with 1 conflict: conflict with \"a\": .data.k")
        )
    );
    assert_eq!(
        s["details"]["causes"],
        json!([{"reason": "FieldManagerConflict", "message": "conflict with \"a\"", "field": ".data.k"}])
    );
    let forced = patch(
        &c,
        &format!("{path}?fieldManager=b&force=true"),
        apply,
        cm("2"),
    )
    .await;
    assert_eq!(
        (forced.status.as_u16(), forced.json()["data"]["k"].as_str()),
        (200, Some("2"))
    );
    let first = w.event().await;
    assert_eq!(
        (
            first["type"].as_str(),
            first["object"]["data"]["k"].as_str()
        ),
        (Some("MODIFIED"), Some("2")),
        "the unchanged apply sent no event"
    );
    let managers: Vec<String> = forced.json()["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["manager"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(managers, ["b"], "a lost its only field");
    // An update by another manager, then an apply conflicting with it.
    let edited = c
        .send(
            Method::PATCH,
            &format!("{path}?fieldManager=editor"),
            Some(json!({"data": {"e": "1"}})),
        )
        .await
        .json();
    assert!(
        edited["metadata"]["managedFields"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["manager"] == "editor" && e["operation"] == "Update")
    );
    let vs_update = patch(&c, &format!("{path}?fieldManager=b"), apply, json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "s"}, "data": {"k": "2", "e": "2"}})).await;
    assert_eq!(
        vs_update.json()["message"],
        "Apply failed with 1 conflict: conflict with \"editor\" using v1: .data.e"
    );
    assert_eq!(
        patch(&c, &format!("{path}?fieldManager=b"), apply, json!(["x"]))
            .await
            .status,
        400
    );
    assert_eq!(
        patch(
            &c,
            &format!("{path}?fieldManager=b"),
            apply,
            json!({"metadata": {"name": "other"}})
        )
        .await
        .status,
        400
    );
}

#[tokio::test]
async fn dry_run_answers_but_writes_nothing() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let base = sim.stats().await.revision;
    let dry = c
        .send(
            Method::POST,
            &format!("{CMS}?dryRun=All"),
            Some(json!({"metadata": {"name": "d"}, "data": {"k": "v"}})),
        )
        .await;
    assert_eq!(dry.status, 201);
    assert_eq!(
        dry.json()["metadata"]["uid"].as_str().map(str::len),
        Some(36)
    );
    assert!(dry.json()["metadata"].get("resourceVersion").is_none());
    assert_eq!(c.get(&format!("{CMS}/d")).await.status, 404);
    assert_eq!(sim.stats().await.revision, base);
    let real = c
        .send(
            Method::POST,
            CMS,
            Some(json!({"metadata": {"name": "d"}, "data": {"k": "v"}})),
        )
        .await
        .json();
    let rev = sim.stats().await.revision;
    let path = format!("{CMS}/d");
    let mut put = real.clone();
    put["data"]["k"] = json!("w");
    let put = c
        .send(Method::PUT, &format!("{path}?dryRun=All"), Some(put))
        .await
        .json();
    assert_eq!(
        (put["data"]["k"].as_str(), rv_of(&put)),
        (Some("w"), rv_of(&real))
    );
    let p = c
        .send(
            Method::PATCH,
            &format!("{path}?dryRun=All"),
            Some(json!({"data": {"k": "x"}})),
        )
        .await
        .json();
    assert_eq!(p["data"]["k"], "x");
    let applied = patch(&c, &format!("{path}?dryRun=All&fieldManager=m"), "application/apply-patch+yaml",
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d"}, "data": {"z": "1"}})).await;
    assert_eq!(applied.json()["data"]["z"], "1");
    let deleted = c
        .send(Method::DELETE, &format!("{path}?dryRun=All"), None)
        .await;
    assert_eq!(deleted.status, 200);
    let body_dry = c
        .send(Method::DELETE, &path, Some(json!({"dryRun": ["All"]})))
        .await;
    assert_eq!(body_dry.status, 200);
    assert_eq!(
        sim.stats().await.revision,
        rev,
        "no dry run consumed a revision"
    );
    assert_eq!(c.get(&path).await.json(), real);
    let wrong_uid = c
        .send(
            Method::DELETE,
            &path,
            Some(json!({"preconditions": {"uid": "nope"}})),
        )
        .await;
    assert_eq!(wrong_uid.status, 409);
    assert_eq!(
        c.send(
            Method::POST,
            &format!("{CMS}?dryRun=Some"),
            Some(json!({"metadata": {"name": "e"}}))
        )
        .await
        .status,
        400
    );
}

#[tokio::test]
async fn leases_and_events_are_served_like_builtins() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let leases = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
    let mut w = c.watch(&format!("{leases}?watch=1")).await;
    let lease = c.send(Method::POST, leases, Some(json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "leader"},
        "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15, "acquireTime": "2026-11-25T10:00:00.000000Z", "renewTime": "2026-11-25T10:00:00.000000Z", "leaseTransitions": 0}}))).await;
    assert_eq!(lease.status, 201);
    let lease = lease.json();
    assert_eq!(
        (lease["kind"].as_str(), lease["apiVersion"].as_str()),
        (Some("Lease"), Some("coordination.k8s.io/v1"))
    );
    assert_eq!(w.event().await["type"], "ADDED");
    let mut renewed = lease.clone();
    renewed["spec"]["renewTime"] = json!("2026-11-25T10:00:02.000000Z");
    assert_eq!(
        c.send(
            Method::PUT,
            &format!("{leases}/leader"),
            Some(renewed.clone())
        )
        .await
        .status,
        200
    );
    renewed["spec"]["holderIdentity"] = json!("b");
    assert_eq!(
        c.send(Method::PUT, &format!("{leases}/leader"), Some(renewed))
            .await
            .status,
        409,
        "a stale lease write loses"
    );
    assert_eq!(w.event().await["type"], "MODIFIED");
    assert_eq!(
        c.get(leases).await.json()["items"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        c.send(Method::DELETE, &format!("{leases}/leader"), None)
            .await
            .status,
        200
    );
    let events = "/apis/events.k8s.io/v1/namespaces/default/events";
    let invalid = c
        .send(
            Method::POST,
            events,
            Some(json!({"metadata": {"name": "e"}, "type": "Normal"})),
        )
        .await;
    assert_eq!(
        (invalid.status.as_u16(), invalid.json()["reason"].as_str()),
        (422, Some("Invalid"))
    );
    let event = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e"}, "eventTime": "2026-11-25T10:00:00.000000Z",
        "reportingController": "example.com/ctl", "reportingInstance": "ctl-1", "action": "Sync", "reason": "Synced", "type": "Normal",
        "regarding": {"kind": "ConfigMap", "namespace": "default", "name": "c"}, "note": "synced"});
    let created = c.send(Method::POST, events, Some(event)).await;
    assert_eq!(created.status, 201);
    let series = c
        .send(
            Method::PATCH,
            &format!("{events}/e"),
            Some(
                json!({"series": {"count": 2, "lastObservedTime": "2026-11-25T10:00:05.000000Z"}}),
            ),
        )
        .await;
    assert_eq!(series.json()["series"]["count"], 2);
    let core = c.send(Method::POST, "/api/v1/namespaces/default/events", Some(json!({"metadata": {"name": "x"}, "involvedObject": {"kind": "Pod", "name": "p"}, "reason": "R", "type": "Normal"}))).await;
    assert_eq!(core.status, 201);
    let selected = c
        .get("/api/v1/events?fieldSelector=involvedObject.name%3Dp")
        .await
        .json();
    assert_eq!(selected["items"].as_array().unwrap().len(), 1);
}
