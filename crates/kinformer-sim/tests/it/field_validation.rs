//! `fieldValidation` on writes of built-in types, as kube-apiserver 1.36 answers it: a field the
//! Go type does not declare is dropped, named in a `Warning` header by default, refused by
//! `Strict` (400, the strict decoder's words, in the document's order) and dropped silently by
//! `Ignore`.

use http::Method;
use serde_json::{Value, json};

use crate::common::client;
use kinformer_sim::Sim;

const DEPLOYMENTS: &str = "/apis/apps/v1/namespaces/default/deployments";

fn deployment(name: &str) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "bogus": 1,
            "selector": {"matchLabels": {"app": "a"}},
            "template": {
                "metadata": {"labels": {"app": "a"}},
                "spec": {
                    "containers": [{
                        "name": "c", "image": "nginx", "pullPolicy": "Always",
                        // `httpGet` is the probe's inlined handler; the delay belongs to the probe.
                        "livenessProbe": {"httpGet": {"port": 80, "initialDelaySeconds": 3}, "periodSeconds": 5},
                    }],
                    "volumes": [{"name": "v", "configMap": {"name": "cm"}}],
                },
            },
        },
    })
}

#[tokio::test]
async fn strict_refuses_every_unknown_field_in_document_order() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let refused = c
        .send(
            Method::POST,
            &format!("{DEPLOYMENTS}?fieldValidation=Strict"),
            Some(deployment("d1")),
        )
        .await;
    assert_eq!(refused.status, 400);
    assert_eq!(
        refused.json()["message"],
        "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: \
         unknown field \"spec.bogus\", \
         unknown field \"spec.template.spec.containers[0].livenessProbe.httpGet.initialDelaySeconds\", \
         unknown field \"spec.template.spec.containers[0].pullPolicy\""
    );
    assert_eq!(c.get(&format!("{DEPLOYMENTS}/d1")).await.status, 404);
}

#[tokio::test]
async fn warn_is_the_default_and_drops_the_fields() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let created = c
        .send(Method::POST, DEPLOYMENTS, Some(deployment("d1")))
        .await;
    assert_eq!(created.status, 201);
    let warnings: Vec<&str> = created
        .headers
        .get_all(http::header::WARNING)
        .iter()
        .map(|v| v.to_str().unwrap())
        .collect();
    assert_eq!(
        warnings,
        [
            r#"299 - "unknown field \"spec.bogus\"""#,
            r#"299 - "unknown field \"spec.template.spec.containers[0].livenessProbe.httpGet.initialDelaySeconds\"""#,
            r#"299 - "unknown field \"spec.template.spec.containers[0].pullPolicy\"""#,
        ]
    );
    let stored = c.get(&format!("{DEPLOYMENTS}/d1")).await.json();
    assert_eq!(stored["spec"].get("bogus"), None);
    let container = &stored["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(container.get("pullPolicy"), None);
    assert_eq!(
        container["livenessProbe"],
        json!({"httpGet": {"port": 80}, "periodSeconds": 5})
    );
    // Fields of inlined structs (a volume's source) are known.
    assert_eq!(
        stored["spec"]["template"]["spec"]["volumes"][0]["configMap"],
        json!({"name": "cm"})
    );

    // A patch is checked on its result; Ignore drops without a word.
    let patched = c
        .raw(
            Method::PATCH,
            &format!("{DEPLOYMENTS}/d1?fieldValidation=Ignore"),
            Some(json!({"spec": {"other": true}})),
            "application/merge-patch+json",
        )
        .await;
    assert_eq!(patched.status(), 200);
    assert!(patched.headers().get(http::header::WARNING).is_none());
    let strict = c
        .raw(
            Method::PATCH,
            &format!("{DEPLOYMENTS}/d1?fieldValidation=Strict"),
            Some(json!({"spec": {"other": true}})),
            "application/merge-patch+json",
        )
        .await;
    assert_eq!(strict.status(), 400);
}

#[tokio::test]
async fn an_unknown_directive_is_invalid() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let refused = c
        .send(
            Method::POST,
            "/api/v1/namespaces/default/configmaps?fieldValidation=Loose",
            Some(json!({"metadata": {"name": "c"}})),
        )
        .await;
    assert_eq!(refused.status, 422);
    assert_eq!(
        refused.json()["message"],
        "CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"Loose\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\""
    );
}

#[tokio::test]
async fn a_crd_schema_keeps_its_extensions() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let mut crd = crate::crds::gadget_crd();
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-preserve-unknown-fields"] =
        json!(true);
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"]
        ["x-kubernetes-int-or-string"] = json!(true);
    let created = c
        .send(
            Method::POST,
            &format!("{}?fieldValidation=Strict", crate::crds::CRDS),
            Some(crd.clone()),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.json());
    assert_eq!(
        created.json()["spec"]["versions"][0]["schema"],
        crd["spec"]["versions"][0]["schema"]
    );
}
