//! Custom resources written under their CRD's structural schema, as kube-apiserver 1.36 answers
//! them: unknown fields pruned (named in a warning, refused by `Strict`), defaults applied on
//! create, wrong types and values outside an enum refused with 422 naming each field, and a
//! CRD whose schema is not structural refused.

use http::Method;
use serde_json::json;

use crate::common::client;
use crate::crds::{CRDS, GADGETS, establish, gadget_crd};
use kinformer_sim::Sim;

#[tokio::test]
async fn custom_resources_are_pruned_defaulted_and_validated() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    establish(&c, gadget_crd()).await;

    // Unknown fields go, named in a warning; the missing size gets its default.
    let g1 = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g1"},
        "spec": {"color": "blue", "shade": "dark"}, "extra": 1});
    let created = c.send(Method::POST, GADGETS, Some(g1.clone())).await;
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
            r#"299 - "unknown field \"extra\"""#,
            r#"299 - "unknown field \"spec.shade\"""#
        ]
    );
    let stored = c.get(&format!("{GADGETS}/g1")).await.json();
    assert_eq!(stored["spec"], json!({"color": "blue", "size": 3}));
    assert_eq!(stored.get("extra"), None);

    // Strict refuses them instead.
    let mut g2 = g1.clone();
    g2["metadata"]["name"] = json!("g2");
    let strict = c
        .send(
            Method::POST,
            &format!("{GADGETS}?fieldValidation=Strict"),
            Some(g2),
        )
        .await;
    assert_eq!(strict.status, 400);
    assert_eq!(
        strict.json()["message"],
        "Gadget in version \"v1\" cannot be handled as a Gadget: strict decoding error: unknown field \"extra\", unknown field \"spec.shade\""
    );

    // A wrong type and a value outside the enum: 422 naming both fields.
    let bad = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g3"},
        "spec": {"size": "string", "color": "green"}});
    let refused = c.send(Method::POST, GADGETS, Some(bad)).await;
    assert_eq!(refused.status, 422);
    let body = refused.json();
    assert_eq!(
        body["message"],
        "Gadget.example.com \"g3\" is invalid: [spec.color: Unsupported value: \"green\": supported values: \"red\", \"blue\", spec.size: Invalid value: \"string\": spec.size in body must be of type integer: \"string\"]"
    );
    let causes: Vec<(&str, &str)> = body["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["field"].as_str().unwrap(), c["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        causes,
        [
            ("spec.color", "FieldValueNotSupported"),
            ("spec.size", "FieldValueTypeInvalid")
        ]
    );

    // An update is validated too, and pruned.
    let mut update = stored.clone();
    update["spec"]["color"] = json!("green");
    let refused = c
        .send(Method::PUT, &format!("{GADGETS}/g1"), Some(update))
        .await;
    assert_eq!(refused.status, 422);
    let patched = c
        .raw(
            Method::PATCH,
            &format!("{GADGETS}/g1"),
            Some(json!({"spec": {"size": 5, "other": true}})),
            "application/merge-patch+json",
        )
        .await;
    assert_eq!(patched.status(), 200);
    assert_eq!(
        c.get(&format!("{GADGETS}/g1")).await.json()["spec"],
        json!({"color": "blue", "size": 5})
    );
}

#[tokio::test]
async fn a_crd_whose_schema_is_not_structural_is_refused() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let mut crd = gadget_crd();
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"] =
        json!({"minimum": 1});
    let refused = c.send(Method::POST, CRDS, Some(crd)).await;
    assert_eq!(refused.status, 422);
    let cause = &refused.json()["details"]["causes"][0];
    assert_eq!(
        cause["field"],
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type"
    );
    assert_eq!(cause["reason"], "FieldValueRequired");
}

/// A default the CRD gains later applies to objects stored before it when they are read, at
/// their own resourceVersion, as kube-apiserver decodes what it reads from storage.
#[tokio::test]
async fn a_new_default_applies_to_stored_objects_on_read() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let crd = establish(&c, gadget_crd()).await;
    let g = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "old"}, "spec": {"size": 1}});
    assert_eq!(c.send(Method::POST, GADGETS, Some(g)).await.status, 201);
    let before = c.get(&format!("{GADGETS}/old")).await.json();
    assert_eq!(before["spec"].get("color"), None);

    let mut updated = crd.clone();
    updated["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        ["color"]["default"] = json!("red");
    let path = format!("{CRDS}/gadgets.example.com");
    assert_eq!(c.send(Method::PUT, &path, Some(updated)).await.status, 200);
    // The controller serves the new schema on its own task.
    let mut after = before.clone();
    for _ in 0..500 {
        after = c.get(&format!("{GADGETS}/old")).await.json();
        if after["spec"].get("color").is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(after["spec"], json!({"size": 1, "color": "red"}));
    assert_eq!(
        after["metadata"]["resourceVersion"],
        before["metadata"]["resourceVersion"]
    );
}

/// A CRD serving two versions (conversion `None`) answers each object in the version it is
/// read through, whichever version wrote it: gets, lists and watches.
#[tokio::test]
async fn each_served_version_reads_objects_in_its_own_apiversion() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let mut crd = gadget_crd();
    let mut beta = crd["spec"]["versions"][0].clone();
    beta["name"] = json!("v1beta1");
    beta["storage"] = json!(false);
    crd["spec"]["versions"].as_array_mut().unwrap().push(beta);
    establish(&c, crd).await;
    let g = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"size": 1}});
    assert_eq!(c.send(Method::POST, GADGETS, Some(g)).await.status, 201);
    let beta_path = "/apis/example.com/v1beta1/namespaces/default/gadgets";
    let got = c.get(&format!("{beta_path}/g")).await.json();
    assert_eq!(got["apiVersion"], "example.com/v1beta1");
    assert_eq!(got["spec"], json!({"size": 1}));
    let list = c.get(beta_path).await.json();
    assert_eq!(list["items"][0]["apiVersion"], "example.com/v1beta1");
    let mut watch = c
        .watch(&format!("{beta_path}?watch=1&resourceVersion=0"))
        .await;
    assert_eq!(
        watch.event().await["object"]["apiVersion"],
        "example.com/v1beta1"
    );
    assert_eq!(
        c.get(&format!("{GADGETS}/g")).await.json()["apiVersion"],
        "example.com/v1"
    );
}
