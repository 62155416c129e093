//! The discovery documents as a real kube-apiserver 1.36 writes them (seen on one, 2026-11-28):
//! `/api/v1` without `apiVersion` while the group documents carry it, `/apis/{group}` as the
//! `APIGroup`, plain-text 404s for paths no handler serves and JSON Statuses for missing
//! resources, and a server without aggregated discovery answering the legacy form to any
//! `Accept`.

use kinformer_sim::Sim;
use serde_json::json;

use crate::common::in_process;

/// client-go's `Accept` for `/api` and `/apis`.
const AGGREGATED_FIRST: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

#[tokio::test]
async fn the_core_resource_list_has_no_api_version_and_the_groups_have_one() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let core = c.get("/api/v1").await.json();
    assert_eq!(core["kind"], "APIResourceList");
    assert_eq!(core["groupVersion"], "v1");
    assert!(core.get("apiVersion").is_none(), "{core}");
    let apps = c.get("/apis/apps/v1").await.json();
    assert_eq!(apps["kind"], "APIResourceList");
    assert_eq!(apps["apiVersion"], "v1");
    assert_eq!(apps["groupVersion"], "apps/v1");
    let api = c.get("/api").await.json();
    assert_eq!(api["kind"], "APIVersions");
    assert!(api.get("apiVersion").is_none(), "{api}");
}

#[tokio::test]
async fn a_group_path_answers_the_api_group() {
    let sim = Sim::builder().start().await.unwrap();
    let resp = in_process(&sim).get("/apis/apps").await;
    assert_eq!(resp.status, 200);
    assert_eq!(resp.headers["content-type"], "application/json");
    assert_eq!(
        resp.json(),
        json!({
            "kind": "APIGroup", "apiVersion": "v1", "name": "apps",
            "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
            "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"},
        })
    );
}

#[tokio::test]
async fn paths_no_handler_serves_are_plain_text_404s() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    for path in [
        "/apis/nosuch.example.com",
        "/apis/nosuch.example.com/v1",
        "/apis/nosuch.example.com/v1/namespaces/default/things",
        "/apis/apps/v7/deployments",
        "/api/v2/pods",
        "/nosuch",
    ] {
        let resp = c.get(path).await;
        assert_eq!(resp.status, 404, "{path}");
        assert_eq!(
            resp.headers["content-type"], "text/plain; charset=utf-8",
            "{path}"
        );
        assert_eq!(&resp.body[..], b"404 page not found\n", "{path}");
    }
    // A resource a served group version does not have is a Status.
    let resp = c.get("/apis/apps/v1/gizmos").await;
    assert_eq!(resp.status, 404);
    assert_eq!(resp.headers["content-type"], "application/json");
    assert_eq!(resp.json()["kind"], "Status");
}

#[tokio::test]
async fn without_aggregated_discovery_the_legacy_form_answers_any_accept() {
    let sim = Sim::builder()
        .aggregated_discovery(false)
        .start()
        .await
        .unwrap();
    let c = in_process(&sim);
    let api = c.get_accepting("/api", AGGREGATED_FIRST).await;
    assert_eq!(api.status, 200);
    assert_eq!(api.headers["content-type"], "application/json");
    assert_eq!(api.json()["kind"], "APIVersions");
    let apis = c.get_accepting("/apis", AGGREGATED_FIRST).await.json();
    assert_eq!(apis["kind"], "APIGroupList");
    assert!(
        apis["groups"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["name"] == "apps")
    );
}
