//! Discovery of the write verbs and subresources: `deletecollection` where it is served, and the
//! `scale` subresources (an `autoscaling/v1` `Scale`) beside `status`, in the legacy documents and
//! the aggregated ones.

use kinformer_sim::{CustomResource, ScaleSubresource, Sim, SimHandle};
use serde_json::{Value, json};

use crate::common::in_process;

#[tokio::test]
async fn discovery_lists_deletecollection_where_it_is_served() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let core = c.get("/api/v1").await.json();
    let verbs = |name: &str| entry(&core["resources"], "name", name)["verbs"].clone();
    assert_eq!(
        verbs("configmaps"),
        json!([
            "create",
            "delete",
            "deletecollection",
            "get",
            "list",
            "patch",
            "update",
            "watch"
        ])
    );
    assert_eq!(
        verbs("namespaces"),
        json!([
            "create", "delete", "get", "list", "patch", "update", "watch"
        ])
    );
    let core = aggregated(&sim, "/api").await;
    let resources = &core["items"][0]["versions"][0]["resources"];
    let of = |name: &str| entry(resources, "resource", name)["verbs"].clone();
    assert_eq!(of("configmaps"), verbs("configmaps"));
    assert_eq!(of("namespaces"), verbs("namespaces"));
}

/// The element of the array `list` whose `field` is `name`.
fn entry<'a>(list: &'a Value, field: &str, name: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|e| e[field] == name)
        .unwrap_or_else(|| panic!("no {field} {name} in {list}"))
}

/// The aggregated discovery document at `path` (`/api` or `/apis`), as client-go asks for it.
async fn aggregated(sim: &SimHandle, path: &str) -> Value {
    let accept =
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
    let resp = in_process(sim).get_accepting(path, accept).await;
    assert_eq!(resp.status, 200);
    resp.json()
}

#[tokio::test]
async fn discovery_lists_the_scale_subresources() {
    let sim = Sim::builder().start().await.unwrap();
    sim.register(
        CustomResource::example_widgets()
            .with_scale(ScaleSubresource::new(".spec.replicas", ".status.replicas")),
    )
    .await
    .unwrap();
    let c = in_process(&sim);
    let apps = c.get("/apis/apps/v1").await.json();
    let listed: Vec<&str> = apps["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert_eq!(
        listed,
        [
            "controllerrevisions",
            "daemonsets",
            "daemonsets/status",
            "deployments",
            "deployments/scale",
            "deployments/status",
            "replicasets",
            "replicasets/scale",
            "replicasets/status",
            "statefulsets",
            "statefulsets/scale",
            "statefulsets/status"
        ]
    );
    let scale = apps["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "deployments/scale")
        .unwrap();
    assert_eq!(
        (
            &scale["group"],
            &scale["version"],
            &scale["kind"],
            &scale["verbs"]
        ),
        (
            &json!("autoscaling"),
            &json!("v1"),
            &json!("Scale"),
            &json!(["get", "patch", "update"])
        )
    );
    assert!(apps["resources"][2].get("group").is_none());

    let groups = aggregated(&sim, "/apis").await;
    let subresources = |group: &str, resource: &str| {
        let group = groups["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["metadata"]["name"] == group)
            .unwrap();
        entry(&group["versions"][0]["resources"], "resource", resource)["subresources"].clone()
    };
    let scale_kind = json!({"group": "autoscaling", "version": "v1", "kind": "Scale"});
    let deployments = subresources("apps", "deployments");
    assert_eq!(deployments[0]["subresource"], "scale");
    assert_eq!(deployments[0]["responseKind"], scale_kind);
    assert_eq!(deployments[1]["subresource"], "status");
    assert_eq!(deployments[1]["responseKind"]["kind"], "Deployment");
    let widgets = subresources("example.com", "widgets");
    assert_eq!(
        widgets,
        json!([{"subresource": "scale", "responseKind": scale_kind, "verbs": ["get", "patch", "update"]}])
    );
}
