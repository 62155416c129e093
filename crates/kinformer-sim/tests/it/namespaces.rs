//! Every Namespace carries `kubernetes.io/metadata.name` with its own name, as kube-apiserver
//! sets it on each create and update whatever the body says, so that a namespace selector can
//! pick namespaces by name; the namespaces the sim generates carry it too, and a label
//! selector finds them by it.

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
