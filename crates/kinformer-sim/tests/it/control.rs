//! The control API over HTTP and as Rust methods: stats, state, objects, generate, churn, compact,
//! faults, request log, reset, custom resources, kubeconfig and the in-process service.

use std::time::Duration;

use http::Method;
use kinformer_core::Scope;
use kinformer_sim::{Churn, CustomResource, Generate, Mix, Sim};
use serde_json::json;

use crate::common::{client, in_process, rv_of};

#[tokio::test]
async fn control_routes_drive_the_simulator() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let r = c
        .send(
            Method::POST,
            "/_control/generate",
            Some(json!({"resource": "pods", "count": 12, "namespaces": 3, "seed": 9})),
        )
        .await;
    assert_eq!(r.json()["created"], 12);
    let stats = c.get("/_control/stats").await.json();
    assert_eq!(stats["objects"]["pods"], 12);
    assert_eq!(
        stats["objects"]["namespaces"], 6,
        "default, kube-system, kube-public, kube-node-lease, ns-1, ns-2"
    );
    let state = c
        .get("/_control/state?resource=pods&summary=1")
        .await
        .json();
    let items = state["items"].as_array().unwrap();
    assert_eq!(items.len(), 12);
    assert!(items[0]["uid"].is_string() && items[0].get("spec").is_none());
    assert_eq!(
        state["resourceVersion"]
            .as_str()
            .unwrap()
            .parse::<u64>()
            .unwrap(),
        stats["revision"]
    );
    let full = c.get("/_control/state?resource=pods").await.json();
    assert!(full["items"][0]["spec"]["containers"].is_array());

    let ops = json!({"ops": [
        {"op": "create", "resource": "configmaps", "namespace": "default", "object": {"metadata": {"name": "a"}}},
        {"op": "upsert", "resource": "configmaps", "namespace": "default", "object": {"metadata": {"name": "a"}, "data": {"k": "v"}}},
        {"op": "patch", "resource": "configmaps", "namespace": "default", "name": "a", "object": {"data": {"k2": "v2"}}},
        {"op": "update", "resource": "configmaps", "namespace": "default", "name": "missing", "object": {"metadata": {"name": "missing"}}},
        {"op": "delete", "resource": "configmaps", "namespace": "default", "name": "a"},
    ]});
    let res = c
        .send(Method::POST, "/_control/objects", Some(ops))
        .await
        .json();
    let codes: Vec<u64> = res["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["code"].as_u64().unwrap())
        .collect();
    assert_eq!(codes, [201, 200, 200, 404, 200]);
    assert_eq!(res["results"][2]["object"]["data"]["k2"], "v2");

    let r = c
        .send(
            Method::POST,
            "/_control/faults",
            Some(json!({"kind": "status", "code": 503})),
        )
        .await
        .json();
    assert_eq!(r.as_array().unwrap().len(), 1);
    assert_eq!(c.get("/api/v1/pods").await.status, 503);
    c.send(
        Method::POST,
        "/_control/faults",
        Some(json!([{"kind": "delay", "seconds": 0.01}, {"kind": "watch_close"}])),
    )
    .await;
    assert_eq!(
        c.get("/_control/faults")
            .await
            .json()
            .as_array()
            .unwrap()
            .len(),
        2
    );
    c.send(Method::DELETE, "/_control/faults", None).await;
    assert_eq!(c.get("/_control/faults").await.json(), json!([]));

    let log = c.get("/_control/requests").await.json();
    let paths: Vec<&str> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["/api/v1/pods"], "control requests are not logged");
    assert_eq!(log[0]["status"], 503);
    assert_eq!(log[0]["method"], "GET");

    let before = sim.stats().await.revision;
    let r = c
        .send(Method::POST, "/_control/compact", Some(json!({"keep": 5})))
        .await
        .json();
    assert_eq!(r["compactedRevision"], before - 5);
    let r = c
        .send(Method::POST, "/_control/compact", Some(json!({})))
        .await
        .json();
    assert_eq!(r["compactedRevision"], before);

    let r = c
        .send(
            Method::POST,
            "/_control/churn",
            Some(json!({"rate": 500, "count": 40, "seed": 1, "mix": {"update": 1.0}})),
        )
        .await
        .json();
    assert_eq!(r["running"], true);
    for _ in 0..300 {
        if !c.get("/_control/churn").await.json()["running"]
            .as_bool()
            .unwrap()
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let status = c.get("/_control/churn").await.json();
    assert_eq!(
        (status["running"].as_bool(), status["done"].as_u64()),
        (Some(false), Some(40))
    );
    assert_eq!(sim.stats().await.revision, before + 40);
    c.send(Method::DELETE, "/_control/churn", None).await;

    let r = c.send(Method::POST, "/_control/resources", Some(json!({"group": "example.com", "version": "v1", "plural": "widgets", "kind": "Widget", "scope": "Namespaced"}))).await;
    assert_eq!(r.status, 200);
    let w = c
        .send(
            Method::POST,
            "/apis/example.com/v1/namespaces/default/widgets",
            Some(json!({"metadata": {"name": "w1"}, "spec": {"size": 1}})),
        )
        .await;
    assert_eq!(w.status, 201);
    let list = c.get("/apis/example.com/v1/widgets").await.json();
    assert_eq!(list["kind"], "WidgetList");
    assert_eq!(
        list["items"][0]["kind"], "Widget",
        "custom resource list items carry kind"
    );
    assert_eq!(list["items"][0]["apiVersion"], "example.com/v1");
    let disc = c.get("/apis").await.json();
    assert!(
        disc["groups"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["name"] == "example.com")
    );

    let before = sim.stats().await.revision;
    c.send(Method::POST, "/_control/reset", None).await;
    let stats = sim.stats().await;
    // What a cluster always has is there again: its namespaces and component statuses.
    assert_eq!(stats.objects["namespaces"], 4, "{:?}", stats.objects);
    assert_eq!(stats.objects["componentstatuses"], 3, "{:?}", stats.objects);
    assert_eq!(stats.objects.values().sum::<usize>(), 7, "nothing else");
    assert!(
        stats.compacted_revision > before,
        "everything before the reset is compacted"
    );
    assert_eq!(c.get("/_control/requests").await.json(), json!([]));
    assert_eq!(c.get("/_control/nope").await.status, 404);
    assert_eq!(
        c.send(
            Method::POST,
            "/_control/generate",
            Some(json!({"resource": "nope", "count": 1}))
        )
        .await
        .status,
        400
    );
}

#[tokio::test]
async fn rust_methods_and_in_process_service() {
    let sim = Sim::builder()
        .pods(4)
        .configmaps(3)
        .namespaces(2)
        .seed(11)
        .start()
        .await
        .unwrap();
    assert_eq!(
        sim.generate(Generate::new("secrets", 2).seed(1))
            .await
            .unwrap(),
        2
    );
    sim.register(CustomResource::new(
        "example.com",
        "v1",
        "Gadget",
        "gadgets",
        Scope::Cluster,
    ))
    .await
    .unwrap();
    assert_eq!(sim.generate(Generate::new("gadgets", 3)).await.unwrap(), 3);
    let stats = sim.stats().await;
    assert_eq!(
        (
            stats.objects["pods"],
            stats.objects["configmaps"],
            stats.objects["secrets"]
        ),
        (4, 3, 2)
    );
    assert_eq!(stats.objects["gadgets.example.com"], 3);
    let c = in_process(&sim);
    let list = c.get("/apis/example.com/v1/gadgets").await.json();
    assert_eq!(list["items"].as_array().unwrap().len(), 3);
    let mut w = c.watch("/api/v1/pods?watch=1").await;
    assert_eq!(w.events(4).await.len(), 4);
    sim.churn_start(Churn::new(200.0).mix(Mix::new(1.0, 0.0, 0.0)).seed(2))
        .await
        .unwrap();
    let e = w.event().await;
    assert_eq!(e["type"], "MODIFIED");
    assert!(e["object"]["metadata"]["annotations"]["kinformer.io/churn"].is_string());
    sim.churn_stop().await;
    assert!(!sim.churn_status().await.running);
    assert!(sim.kubeconfig().contains(sim.url()));
    let dir = std::env::temp_dir().join(format!("kinformer-sim-kc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    sim.write_kubeconfig(dir.join("config")).unwrap();
    assert!(
        std::fs::read_to_string(dir.join("config"))
            .unwrap()
            .contains("current-context: kinformer-sim")
    );
    let _ = std::fs::remove_dir_all(&dir);
    // Same seed, same objects.
    let other = Sim::builder()
        .pods(4)
        .configmaps(3)
        .namespaces(2)
        .seed(11)
        .start()
        .await
        .unwrap();
    let names = |s: kinformer_sim::State| {
        s.items
            .iter()
            .map(|i| i["name"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(other.state("configmaps", true).await.unwrap()),
        names(sim.state("configmaps", true).await.unwrap())
    );
    assert!(
        rv_of(
            &json!({"metadata": {"resourceVersion": sim.state("pods", true).await.unwrap().resource_version}})
        ) > 0
    );
}
