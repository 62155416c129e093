//! The subresources besides status and scale, as kube-apiserver 1.36 answers them: eviction,
//! binding, a service account's token, a namespace's finalize, a CSR's approval, a pod's
//! ephemeral containers, and the kubelet-backed ones answering that nothing serves them.

use http::Method;
use serde_json::json;

use crate::common::{Client, in_process};
use kinformer_sim::Sim;

const PODS: &str = "/api/v1/namespaces/default/pods";

async fn pod(c: &Client<'_>, name: &str) {
    let pod =
        json!({"metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "i"}]}});
    assert_eq!(c.send(Method::POST, PODS, Some(pod)).await.status, 201);
}

#[tokio::test]
async fn eviction_binding_and_the_kubelet_subresources() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    pod(&c, "p").await;
    let logs = c.get(&format!("{PODS}/p/log")).await;
    assert_eq!(logs.status, 400);
    assert_eq!(
        logs.json()["message"],
        "pod p does not have a host assigned"
    );

    let binding = json!({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"}, "target": {"kind": "Node", "name": "n1"}});
    let bound = c
        .send(Method::POST, &format!("{PODS}/p/binding"), Some(binding))
        .await;
    assert_eq!(bound.status, 201);
    assert_eq!(
        c.get(&format!("{PODS}/p")).await.json()["spec"]["nodeName"],
        "n1"
    );
    assert_eq!(c.get(&format!("{PODS}/p/log")).await.status, 503);
    assert_eq!(
        c.send(Method::PUT, &format!("{PODS}/p/log"), None)
            .await
            .status,
        405
    );

    let eviction =
        json!({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "p"}});
    let evicted = c
        .send(Method::POST, &format!("{PODS}/p/eviction"), Some(eviction))
        .await;
    assert_eq!(evicted.status, 201);
    assert_eq!(evicted.json()["status"], "Success");
    assert_eq!(c.get(&format!("{PODS}/p")).await.status, 404);

    let services = "/api/v1/namespaces/default/services";
    c.send(
        Method::POST,
        services,
        Some(json!({"metadata": {"name": "s"}})),
    )
    .await;
    let proxied = c.get(&format!("{services}/s/proxy")).await;
    assert_eq!(proxied.status, 503);
    assert_eq!(
        proxied.json()["message"],
        "no endpoints available for service \"s\""
    );
}

#[tokio::test]
async fn a_service_account_token_is_requested() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let accounts = "/api/v1/namespaces/default/serviceaccounts";
    let missing = c
        .send(
            Method::POST,
            &format!("{accounts}/bot/token"),
            Some(json!({})),
        )
        .await;
    assert_eq!(missing.status, 404);
    c.send(
        Method::POST,
        accounts,
        Some(json!({"metadata": {"name": "bot"}})),
    )
    .await;
    let request = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": 1200}});
    let answered = c
        .send(
            Method::POST,
            &format!("{accounts}/bot/token"),
            Some(request),
        )
        .await;
    assert_eq!(answered.status, 201);
    let answered = answered.json();
    assert_eq!(answered["kind"], "TokenRequest");
    assert_eq!(answered["spec"]["expirationSeconds"], 1200);
    let token = answered["status"]["token"].as_str().unwrap();
    assert_eq!(token.split('.').count(), 3, "a JWT's three parts: {token}");
    assert!(
        answered["status"]["expirationTimestamp"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );
    let short = json!({"spec": {"expirationSeconds": 60}});
    let refused = c
        .send(Method::POST, &format!("{accounts}/bot/token"), Some(short))
        .await;
    assert_eq!(refused.status, 422);
}

#[tokio::test]
async fn parts_of_an_object_are_written_through_their_subresources() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    // A namespace's finalize sets its finalizers and nothing else.
    c.send(
        Method::POST,
        "/api/v1/namespaces",
        Some(json!({"metadata": {"name": "team"}})),
    )
    .await;
    let finalize = json!({"metadata": {"name": "team", "labels": {"ignored": "yes"}}, "spec": {"finalizers": []}});
    let finalized = c
        .send(
            Method::PUT,
            "/api/v1/namespaces/team/finalize",
            Some(finalize),
        )
        .await;
    assert_eq!(finalized.status, 200);
    let team = c.get("/api/v1/namespaces/team").await.json();
    assert_eq!(team["spec"].get("finalizers"), None);
    assert_eq!(team["metadata"]["labels"].get("ignored"), None);

    // A CSR's approval writes its conditions, not its spec.
    let csrs = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
    let csr = json!({"metadata": {"name": "csr"}, "spec": {"signerName": "example.com/signer", "request": "aGVsbG8=", "usages": ["digital signature"]}});
    assert_eq!(c.send(Method::POST, csrs, Some(csr)).await.status, 201);
    let mut approved = c.get(&format!("{csrs}/csr")).await.json();
    approved["status"] =
        json!({"conditions": [{"type": "Approved", "status": "True", "reason": "Test"}]});
    approved["spec"]["signerName"] = json!("example.com/other");
    let written = c
        .send(Method::PUT, &format!("{csrs}/csr/approval"), Some(approved))
        .await;
    assert_eq!(written.status, 200);
    let stored = c.get(&format!("{csrs}/csr")).await.json();
    assert_eq!(stored["status"]["conditions"][0]["type"], "Approved");
    assert_eq!(stored["spec"]["signerName"], "example.com/signer");

    // A pod's ephemeral containers are written alone.
    pod(&c, "debug-me").await;
    let mut with_debug = c.get(&format!("{PODS}/debug-me")).await.json();
    with_debug["spec"]["ephemeralContainers"] = json!([{"name": "debugger", "image": "busybox"}]);
    with_debug["spec"]["containers"][0]["image"] = json!("changed");
    let written = c
        .send(
            Method::PUT,
            &format!("{PODS}/debug-me/ephemeralcontainers"),
            Some(with_debug),
        )
        .await;
    assert_eq!(written.status, 200);
    let stored = c.get(&format!("{PODS}/debug-me")).await.json();
    assert_eq!(stored["spec"]["ephemeralContainers"][0]["name"], "debugger");
    assert_eq!(stored["spec"]["containers"][0]["image"], "i");
}
