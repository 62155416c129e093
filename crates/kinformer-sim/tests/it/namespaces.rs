//! Every Namespace carries `kubernetes.io/metadata.name` with its own name, as kube-apiserver
//! sets it on each create and update whatever the body says, so that a namespace selector can
//! pick namespaces by name; the namespaces the sim generates carry it too, and a label
//! selector finds them by it. Writes into a namespace are admitted as kube-apiserver's
//! NamespaceLifecycle admits them.

use http::Method;
use kinformer_sim::Sim;
use serde_json::json;

use crate::common::client;

const NAMESPACES: &str = "/api/v1/namespaces";
const LABEL: &str = "kubernetes.io/metadata.name";

#[tokio::test]
async fn a_namespace_is_labelled_with_its_name_on_every_write() {
    let sim = Sim::builder().namespaces(2).start().await.unwrap();
    let c = client(&sim);
    let created = c
        .send(
            Method::POST,
            NAMESPACES,
            Some(json!({"metadata": {"name": "team-a", "labels": {"tier": "x"}}})),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.json());
    assert_eq!(
        created.json()["metadata"]["labels"],
        json!({"tier": "x", LABEL: "team-a"})
    );

    // Neither removed nor changed by a write that tries.
    let patch = json!({"metadata": {"labels": {LABEL: "other", "tier": null}}});
    let patched = c
        .send(Method::PATCH, &format!("{NAMESPACES}/team-a"), Some(patch))
        .await;
    assert_eq!(patched.status, 200, "{}", patched.json());
    assert_eq!(
        patched.json()["metadata"]["labels"],
        json!({LABEL: "team-a"})
    );

    let selected = c
        .get(&format!("{NAMESPACES}?labelSelector={LABEL}%3Dteam-a"))
        .await
        .json();
    let names: Vec<_> = selected["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["metadata"]["name"].clone())
        .collect();
    assert_eq!(names, [json!("team-a")]);

    let all = c.get(NAMESPACES).await.json();
    for namespace in all["items"].as_array().unwrap() {
        let name = &namespace["metadata"]["name"];
        assert_eq!(namespace["metadata"]["labels"][LABEL], *name, "{namespace}");
    }
}

/// A namespace starts Active and held by the `kubernetes` finalizer; deleting it makes it
/// Terminating (creates in it are refused with 403), its contents are deleted, then it goes.
#[tokio::test]
async fn a_deleted_namespace_terminates_after_its_contents() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let created = c
        .send(
            Method::POST,
            NAMESPACES,
            Some(json!({"metadata": {"name": "team-b"}})),
        )
        .await
        .json();
    assert_eq!(created["spec"]["finalizers"], json!(["kubernetes"]));
    assert_eq!(created["status"]["phase"], "Active");
    let configmaps = "/api/v1/namespaces/team-b/configmaps";
    // Held by its own finalizer, one object keeps the namespace Terminating.
    let held = json!({"metadata": {"name": "held", "finalizers": ["example.com/hold"]}});
    assert_eq!(
        c.send(Method::POST, configmaps, Some(held)).await.status,
        201
    );
    let free = json!({"metadata": {"name": "free"}});
    assert_eq!(
        c.send(Method::POST, configmaps, Some(free)).await.status,
        201
    );

    let path = format!("{NAMESPACES}/team-b");
    let deleted = c.send(Method::DELETE, &path, None).await;
    assert_eq!(deleted.status, 200);
    let deleted = deleted.json();
    assert_eq!(deleted["status"]["phase"], "Terminating");
    assert!(deleted["metadata"]["deletionTimestamp"].is_string());

    let refused = c
        .send(
            Method::POST,
            configmaps,
            Some(json!({"metadata": {"name": "late"}})),
        )
        .await;
    assert_eq!(refused.status, 403);
    assert_eq!(
        refused.json()["message"],
        "configmaps \"late\" is forbidden: unable to create new content in namespace team-b because it is being terminated"
    );

    let rv = deleted["metadata"]["resourceVersion"].as_str().unwrap();
    let mut contents = c
        .watch(&format!("{configmaps}?watch=1&resourceVersion={rv}"))
        .await;
    let event = contents.event().await;
    assert_eq!(
        (
            event["type"].as_str(),
            event["object"]["metadata"]["name"].as_str()
        ),
        (Some("DELETED"), Some("free"))
    );
    assert_eq!(c.get(&path).await.json()["status"]["phase"], "Terminating");

    // The last object goes; then the namespace.
    let release = json!({"metadata": {"finalizers": null}});
    assert_eq!(
        c.send(Method::PATCH, &format!("{configmaps}/held"), Some(release))
            .await
            .status,
        200
    );
    let mut namespaces = c
        .watch(&format!(
            "{NAMESPACES}?watch=1&fieldSelector=metadata.name=team-b&resourceVersion={rv}"
        ))
        .await;
    loop {
        if namespaces.event().await["type"] == "DELETED" {
            break;
        }
    }
    assert_eq!(c.get(&path).await.status, 404);
}

/// kube-apiserver's NamespaceLifecycle admission: a create in a namespace that does not exist is
/// a 404 naming the namespace, not the object (after the body is decoded: a body that does not
/// decode is a 400 first); server-side apply creating an object answers the same; a local
/// access review may ask about any namespace; the control plane's namespaces may not be deleted.
#[tokio::test]
async fn writes_into_a_namespace_that_does_not_exist_are_refused_naming_it() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let cms = "/api/v1/namespaces/nowhere/configmaps";
    let refused = c
        .send(Method::POST, cms, Some(json!({"metadata": {"name": "cm"}})))
        .await;
    assert_eq!(refused.status, 404);
    let status = refused.json();
    assert_eq!(status["reason"], "NotFound");
    assert_eq!(status["message"], r#"namespaces "nowhere" not found"#);
    assert_eq!(status["details"]["name"], "nowhere");
    // As Go writes StatusDetails: the core group's empty group is left out.
    assert_eq!(
        status["details"],
        json!({"name": "nowhere", "kind": "namespaces"})
    );

    let undecodable = c
        .send(
            Method::POST,
            "/api/v1/namespaces/nowhere/secrets",
            Some(json!({"metadata": {"name": "s"}, "data": {"k": "not base64!"}})),
        )
        .await;
    assert_eq!(undecodable.status, 400, "{}", undecodable.json());

    let apply = c
        .send_bytes(
            Method::PATCH,
            &format!("{cms}/cm?fieldManager=test"),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}})
                .to_string()
                .into(),
            &[("content-type", "application/apply-patch+yaml")],
        )
        .await;
    assert_eq!(apply.status, 404);
    assert_eq!(apply.json()["message"], r#"namespaces "nowhere" not found"#);

    let review = c
        .send(
            Method::POST,
            "/apis/authorization.k8s.io/v1/namespaces/nowhere/localsubjectaccessreviews",
            Some(json!({"spec": {"user": "u", "resourceAttributes": {"verb": "get", "resource": "pods"}}})),
        )
        .await;
    assert_eq!(review.status, 201, "{}", review.json());

    for name in ["default", "kube-system", "kube-public"] {
        let kept = c
            .send(Method::DELETE, &format!("{NAMESPACES}/{name}"), None)
            .await;
        assert_eq!(kept.status, 403, "{name}");
        assert_eq!(
            kept.json()["message"],
            format!("namespaces \"{name}\" is forbidden: this namespace may not be deleted")
        );
    }
    let lease_namespace = c
        .send(
            Method::DELETE,
            &format!("{NAMESPACES}/kube-node-lease"),
            None,
        )
        .await;
    assert_eq!(lease_namespace.status, 200, "{}", lease_namespace.json());
}
