//! LIST rules: response shape, RV semantics, paging and continue tokens, selectors.

use std::time::Duration;

use base64::Engine;
use http::Method;
use kinformer_sim::{Compaction, ObjectOp, OpKind, Sim, SimHandle};
use serde_json::{Value, json};

use crate::common::{client, cm, names, rv_of};

async fn sim_with_configmaps(n: usize) -> SimHandle {
    let sim = Sim::builder()
        .too_large_wait(Duration::from_millis(300))
        .start()
        .await
        .unwrap();
    for i in 0..n {
        let tier = ["gold", "silver", "bronze"][i % 3];
        let ns = if i % 2 == 0 { "a" } else { "b" };
        let op = ObjectOp::new(
            OpKind::Create,
            "configmaps",
            cm(
                &format!("cm-{i:03}"),
                json!({"tier": tier, "idx": i.to_string()}),
            ),
        )
        .namespace(ns);
        sim.apply(op).await.unwrap();
    }
    sim
}

fn decode_token(t: &str) -> Value {
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(t)
        .unwrap();
    serde_json::from_slice(&raw).unwrap()
}

#[tokio::test]
async fn list_shape_items_without_kind_and_list_rv_is_store_revision() {
    let sim = Sim::builder().pods(5).start().await.unwrap();
    let list = client(&sim).get("/api/v1/pods").await;
    assert_eq!(list.status, 200);
    let v = list.json();
    assert_eq!(v["kind"], "PodList");
    assert_eq!(v["apiVersion"], "v1");
    assert_eq!(rv_of(&v), sim.stats().await.revision);
    assert!(v["metadata"].get("continue").is_none());
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 5);
    assert!(
        items
            .iter()
            .all(|i| i.get("kind").is_none() && i.get("apiVersion").is_none())
    );
    let empty = client(&sim).get("/api/v1/secrets").await.json();
    assert_eq!(empty["items"], json!([]));
    let deploys = client(&sim)
        .get("/apis/apps/v1/namespaces/default/deployments")
        .await
        .json();
    assert_eq!(deploys["kind"], "DeploymentList");
    assert_eq!(deploys["apiVersion"], "apps/v1");
}

#[tokio::test]
async fn pages_form_one_snapshot_with_real_tokens_and_remaining_count() {
    let sim = sim_with_configmaps(30).await;
    let c = client(&sim);
    let full = c.get("/api/v1/configmaps").await.json();
    let first = c.get("/api/v1/configmaps?limit=7").await.json();
    let rv = rv_of(&first);
    assert_eq!(first["metadata"]["remainingItemCount"], 23);
    let token = first["metadata"]["continue"].as_str().unwrap().to_owned();
    let decoded = decode_token(&token);
    assert_eq!(decoded["v"], "meta.k8s.io/v1");
    assert_eq!(decoded["rv"], rv);
    assert!(decoded["start"].as_str().unwrap().ends_with('\u{0}'));
    // Writes after the first page must not show up in later pages.
    sim.apply(ObjectOp::new(OpKind::Create, "configmaps", cm("aaa-new", json!({}))).namespace("b"))
        .await
        .unwrap();
    sim.apply(ObjectOp::delete("configmaps", "b", "cm-029"))
        .await
        .unwrap();
    let mut all = names(&first);
    let mut cont = Some(token);
    let mut pages = 1;
    while let Some(t) = cont {
        let page = c
            .get(&format!("/api/v1/configmaps?limit=7&continue={t}"))
            .await
            .json();
        assert_eq!(rv_of(&page), rv, "every page has the first page's RV");
        all.extend(names(&page));
        cont = page["metadata"]["continue"].as_str().map(str::to_owned);
        if cont.is_none() {
            assert!(page["metadata"].get("remainingItemCount").is_none());
        }
        pages += 1;
    }
    assert_eq!(pages, 5);
    assert_eq!(all, names(&full));
    let ns_page = c
        .get("/api/v1/namespaces/a/configmaps?limit=4")
        .await
        .json();
    let start = decode_token(ns_page["metadata"]["continue"].as_str().unwrap())["start"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        !start.contains('/'),
        "a namespaced token's start key is relative to the namespace: {start}"
    );
    assert_eq!(ns_page["metadata"]["remainingItemCount"], 11);
}

#[tokio::test]
async fn resource_version_semantics() {
    let sim = sim_with_configmaps(6).await;
    let c = client(&sim);
    let at = sim.stats().await.revision;
    sim.apply(ObjectOp::new(OpKind::Create, "configmaps", cm("later", json!({}))).namespace("a"))
        .await
        .unwrap();
    let now = sim.stats().await.revision;
    // "0": any state, limit ignored, no continue.
    let zero = c
        .get("/api/v1/configmaps?resourceVersion=0&limit=2")
        .await
        .json();
    assert_eq!(zero["items"].as_array().unwrap().len(), 7);
    assert!(zero["metadata"].get("continue").is_none());
    // "N" without limit: not older than N (served at the latest revision).
    let n = c
        .get(&format!("/api/v1/configmaps?resourceVersion={at}"))
        .await
        .json();
    assert_eq!(rv_of(&n), now);
    // "N" with a limit: exact.
    let exact = c
        .get(&format!(
            "/api/v1/configmaps?resourceVersion={at}&limit=100"
        ))
        .await
        .json();
    assert_eq!(rv_of(&exact), at);
    assert_eq!(exact["items"].as_array().unwrap().len(), 6);
    let exact2 = c
        .get(&format!(
            "/api/v1/configmaps?resourceVersion={at}&resourceVersionMatch=Exact"
        ))
        .await
        .json();
    assert_eq!(rv_of(&exact2), at);
    assert_eq!(exact2["items"].as_array().unwrap().len(), 6);
    let not_older = c
        .get(&format!(
            "/api/v1/configmaps?resourceVersion={at}&resourceVersionMatch=NotOlderThan&limit=3"
        ))
        .await
        .json();
    assert_eq!(rv_of(&not_older), now);
    assert!(not_older["metadata"]["continue"].is_string());
    // Not numeric: 400.
    let bad = c.get("/api/v1/configmaps?resourceVersion=abc").await;
    assert_eq!(bad.status, 400);
    assert!(
        bad.json()["message"]
            .as_str()
            .unwrap()
            .contains("invalid resource version")
    );
}

#[tokio::test]
async fn list_option_validation_gives_422_and_400() {
    let sim = sim_with_configmaps(3).await;
    let c = client(&sim);
    for (query, field) in [
        ("resourceVersionMatch=Exact", "resourceVersionMatch"),
        (
            "resourceVersion=0&resourceVersionMatch=Exact",
            "resourceVersionMatch",
        ),
        (
            "resourceVersion=1&resourceVersionMatch=Bogus",
            "resourceVersionMatch",
        ),
        (
            "resourceVersion=1&resourceVersionMatch=Exact&continue=abc",
            "resourceVersionMatch",
        ),
        ("sendInitialEvents=true", "sendInitialEvents"),
    ] {
        let r = c.get(&format!("/api/v1/configmaps?{query}")).await;
        assert_eq!(r.status, 422, "{query}");
        let s = r.json();
        assert_eq!(s["reason"], "Invalid");
        assert_eq!(s["details"]["kind"], "ListOptions");
        assert_eq!(s["details"]["group"], "meta.k8s.io");
        assert_eq!(s["details"]["causes"][0]["field"], field, "{query}");
    }
    let first = c.get("/api/v1/configmaps?limit=1").await.json();
    let token = first["metadata"]["continue"].as_str().unwrap();
    let r = c
        .get(&format!(
            "/api/v1/configmaps?limit=1&continue={token}&resourceVersion=5"
        ))
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["message"],
        "specifying resource version is not allowed when using continue"
    );
    let r = c
        .get(&format!(
            "/api/v1/configmaps?limit=1&continue={token}&resourceVersion=0"
        ))
        .await;
    assert_eq!(r.status, 200);
    let r = c.get("/api/v1/configmaps?limit=1&continue=notatoken").await;
    assert_eq!(r.status, 400);
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .starts_with("invalid continue token")
    );
}

#[tokio::test]
async fn future_resource_version_waits_then_504_with_retry_after() {
    let sim = sim_with_configmaps(2).await;
    let c = client(&sim);
    let future = sim.stats().await.revision + 100;
    let started = std::time::Instant::now();
    let r = c
        .get(&format!(
            "/api/v1/configmaps?resourceVersion={future}&resourceVersionMatch=NotOlderThan"
        ))
        .await;
    assert!(
        started.elapsed() >= Duration::from_millis(250),
        "waited for the revision first"
    );
    assert_eq!(r.status, 504);
    assert_eq!(r.headers["retry-after"], "1");
    let s = r.json();
    assert_eq!(s["reason"], "Timeout");
    assert_eq!(
        s["details"]["causes"][0]["reason"],
        "ResourceVersionTooLarge"
    );
    assert!(s["message"].as_str().unwrap().starts_with(&format!(
        "Timeout: Too large resource version: {future}, current: "
    )));
    // A revision that arrives during the wait is served.
    let next = sim.stats().await.revision + 1;
    let writer = async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        sim.apply(
            ObjectOp::new(OpKind::Create, "configmaps", cm("late", json!({}))).namespace("a"),
        )
        .await
        .unwrap();
    };
    let url = format!("/api/v1/configmaps?resourceVersion={next}&limit=10");
    let (r, ()) = tokio::join!(c.get(&url), writer);
    assert_eq!(r.status, 200);
    assert_eq!(rv_of(&r.json()), next);
}

#[tokio::test]
async fn compaction_expires_tokens_and_exact_reads() {
    let sim = sim_with_configmaps(10).await;
    let c = client(&sim);
    let first = c.get("/api/v1/configmaps?limit=4").await.json();
    let rv = rv_of(&first);
    let token = first["metadata"]["continue"].as_str().unwrap().to_owned();
    sim.apply(ObjectOp::new(OpKind::Create, "configmaps", cm("zzz", json!({}))).namespace("b"))
        .await
        .unwrap();
    let compacted = sim.compact(Compaction::all()).await;
    assert_eq!(sim.stats().await.compacted_revision, compacted);
    let r = c
        .get(&format!("/api/v1/configmaps?limit=4&continue={token}"))
        .await;
    assert_eq!(r.status, 410);
    let s = r.json();
    assert_eq!(s["reason"], "Expired");
    assert!(
        s["message"]
            .as_str()
            .unwrap()
            .starts_with("The provided continue parameter is too old")
    );
    let fresh = s["metadata"]["continue"].as_str().unwrap();
    assert_eq!(decode_token(fresh)["rv"], -1);
    // The fresh token continues at the latest revision (an inconsistent list).
    let rest = c
        .get(&format!("/api/v1/configmaps?limit=100&continue={fresh}"))
        .await
        .json();
    assert_eq!(rv_of(&rest), sim.stats().await.revision);
    assert_eq!(
        rest["items"].as_array().unwrap().len(),
        7,
        "the 6 remaining originals and the new one"
    );
    let r = c
        .get(&format!(
            "/api/v1/configmaps?resourceVersion={rv}&resourceVersionMatch=Exact"
        ))
        .await;
    assert_eq!(r.status, 410);
    assert_eq!(
        r.json()["message"],
        "The resourceVersion for the provided list is too old."
    );
}

#[tokio::test]
async fn label_selectors_full_syntax() {
    let sim = sim_with_configmaps(12).await;
    let c = client(&sim);
    let count = |sel: &str| {
        let c = &c;
        let sel = sel.to_owned();
        async move {
            let enc: String = sel.bytes().map(|b| format!("%{b:02X}")).collect();
            let r = c
                .get(&format!("/api/v1/configmaps?labelSelector={enc}"))
                .await;
            assert_eq!(r.status, 200, "{sel}");
            r.json()["items"].as_array().unwrap().len()
        }
    };
    assert_eq!(count("tier=gold").await, 4);
    assert_eq!(count("tier==gold").await, 4);
    assert_eq!(count("tier!=gold").await, 8);
    assert_eq!(count("tier in (gold,silver)").await, 8);
    assert_eq!(count("tier notin (gold)").await, 8);
    assert_eq!(count("tier").await, 12);
    assert_eq!(count("!tier").await, 0);
    assert_eq!(count("missing!=x").await, 12);
    assert_eq!(count("tier=gold,idx in (0,3,9)").await, 3);
    let r = c
        .get("/api/v1/configmaps?labelSelector=tier%20in%20(")
        .await;
    assert_eq!(r.status, 400);
    let paged = c
        .get("/api/v1/configmaps?labelSelector=tier%3Dgold&limit=2")
        .await
        .json();
    assert!(paged["metadata"]["continue"].is_string());
    assert!(
        paged["metadata"].get("remainingItemCount").is_none(),
        "no estimate with selectors"
    );
}

#[tokio::test]
async fn field_selectors_on_metadata_and_pod_fields() {
    let sim = Sim::builder()
        .pods(40)
        .namespaces(2)
        .seed(3)
        .start()
        .await
        .unwrap();
    let c = client(&sim);
    let state = sim.state("pods", false).await.unwrap();
    let first = &state.items[0];
    let node = first["spec"]["nodeName"].as_str().unwrap();
    let on_node = state
        .items
        .iter()
        .filter(|p| p["spec"]["nodeName"] == node)
        .count();
    let r = c
        .get(&format!(
            "/api/v1/pods?fieldSelector=spec.nodeName%3D{node}"
        ))
        .await
        .json();
    assert_eq!(r["items"].as_array().unwrap().len(), on_node);
    let running = state
        .items
        .iter()
        .filter(|p| p["status"]["phase"] == "Running")
        .count();
    let r = c
        .get("/api/v1/pods?fieldSelector=status.phase%3DRunning")
        .await
        .json();
    assert_eq!(r["items"].as_array().unwrap().len(), running);
    let r = c
        .get("/api/v1/pods?fieldSelector=status.phase!%3DRunning")
        .await
        .json();
    assert_eq!(r["items"].as_array().unwrap().len(), 40 - running);
    let name = first["metadata"]["name"].as_str().unwrap();
    let r = c
        .get(&format!(
            "/api/v1/pods?fieldSelector=metadata.name%3D{name}"
        ))
        .await
        .json();
    assert_eq!(r["items"].as_array().unwrap().len(), 1);
    let r = c
        .get("/api/v1/pods?fieldSelector=metadata.namespace%3Dns-1")
        .await
        .json();
    assert_eq!(r["items"].as_array().unwrap().len(), 20);
    let r = c
        .get("/api/v1/configmaps?fieldSelector=spec.nodeName%3Dx")
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["message"],
        "field label not supported: spec.nodeName"
    );
    let r = c
        .send(Method::GET, "/api/v1/namespaces/ns-1/pods", None)
        .await
        .json();
    assert_eq!(r["items"].as_array().unwrap().len(), 20);
}
