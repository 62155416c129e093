//! CustomResourceDefinitions written through `apiextensions.k8s.io/v1`, as kube-apiserver 1.36
//! answers them: a create starts with no conditions, the naming and establishing controllers
//! then accept its names and serve it, CRD validation is 422 naming each field, and a delete
//! removes the custom resources before the CRD.

use http::Method;
use serde_json::{Value, json};

use crate::common::{Client, client};
use kinformer_sim::Sim;

pub(crate) const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
pub(crate) const GADGETS: &str = "/apis/example.com/v1/namespaces/default/gadgets";

/// The CRD of `gadgets.example.com`: a spec with a defaulted size and an enum, a status
/// subresource and a short name.
pub(crate) fn gadget_crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": {"plural": "gadgets", "kind": "Gadget", "shortNames": ["gd"]},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {
                        "size": {"type": "integer", "default": 3},
                        "color": {"type": "string", "enum": ["red", "blue"]},
                    }},
                    "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}},
                }}},
            }],
        },
    })
}

/// Creates `crd` and waits for its `Established` condition; returns the CRD as it then is.
pub(crate) async fn establish(c: &Client<'_>, crd: Value) -> Value {
    let created = c.send(Method::POST, CRDS, Some(crd)).await;
    assert_eq!(created.status, 201, "{}", created.json());
    wait_established(c, &created.json()).await
}

/// Waits from `crd`'s resourceVersion for its `Established` condition.
pub(crate) async fn wait_established(c: &Client<'_>, crd: &Value) -> Value {
    let name = crd["metadata"]["name"].as_str().unwrap();
    let rv = crd["metadata"]["resourceVersion"].as_str().unwrap();
    let mut watch = c
        .watch(&format!(
            "{CRDS}?watch=1&fieldSelector=metadata.name={name}&resourceVersion={rv}"
        ))
        .await;
    loop {
        let event = watch.event().await;
        if condition(&event["object"], "Established") == Some("True") {
            return event["object"].clone();
        }
    }
}

/// The status of the condition `kind` of a CRD.
pub(crate) fn condition<'a>(crd: &'a Value, kind: &str) -> Option<&'a str> {
    crd["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == kind)?["status"]
        .as_str()
}

#[tokio::test]
async fn a_created_crd_is_named_established_and_served() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let created = c.send(Method::POST, CRDS, Some(gadget_crd())).await;
    assert_eq!(created.status, 201);
    let created = created.json();
    // The create's answer: defaults set, no conditions yet, the storage version recorded.
    assert_eq!(created["spec"]["names"]["singular"], "gadget");
    assert_eq!(created["spec"]["names"]["listKind"], "GadgetList");
    assert_eq!(created["spec"]["conversion"], json!({"strategy": "None"}));
    assert_eq!(
        created["status"],
        json!({"acceptedNames": {"plural": "", "kind": ""}, "storedVersions": ["v1"]})
    );
    let crd = wait_established(&c, &created).await;
    assert_eq!(condition(&crd, "NamesAccepted"), Some("True"));
    assert_eq!(
        crd["status"]["acceptedNames"],
        json!({"plural": "gadgets", "singular": "gadget", "shortNames": ["gd"], "kind": "Gadget", "listKind": "GadgetList"})
    );

    let discovery = c.get("/apis/example.com/v1").await.json();
    let names: Vec<&str> = discovery["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["gadgets", "gadgets/status"]);
    assert_eq!(discovery["resources"][0]["shortNames"], json!(["gd"]));

    // With a status subresource, a status sent on create is dropped.
    let gadget = json!({"apiVersion": "example.com/v1", "kind": "Gadget",
        "metadata": {"name": "g1"}, "spec": {"size": 2, "color": "red"}, "status": {"ready": true}});
    let made = c.send(Method::POST, GADGETS, Some(gadget)).await;
    assert_eq!(made.status, 201, "{}", made.json());
    assert_eq!(made.json().get("status"), None);

    let crds = c.get(CRDS).await.json();
    assert_eq!(crds["items"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn an_invalid_crd_is_refused_naming_each_field() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let mut crd = gadget_crd();
    crd["metadata"]["name"] = json!("widgets.example.com");
    crd["spec"]["scope"] = json!("Everywhere");
    crd["spec"]["versions"][0]["schema"] = json!({});
    let refused = c.send(Method::POST, CRDS, Some(crd)).await;
    assert_eq!(refused.status, 422);
    let body = refused.json();
    assert_eq!(
        body["message"],
        "CustomResourceDefinition.apiextensions.k8s.io \"widgets.example.com\" is invalid: [\
         metadata.name: Invalid value: \"widgets.example.com\": must be spec.names.plural+\".\"+spec.group, \
         spec.scope: Unsupported value: \"Everywhere\": supported values: \"Cluster\", \"Namespaced\", \
         spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required]"
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
            ("metadata.name", "FieldValueInvalid"),
            ("spec.scope", "FieldValueNotSupported"),
            (
                "spec.versions[0].schema.openAPIV3Schema",
                "FieldValueRequired"
            ),
        ]
    );

    // A group of the Kubernetes project needs the approval annotation.
    let mut protected = gadget_crd();
    protected["metadata"]["name"] = json!("gadgets.apps.k8s.io");
    protected["spec"]["group"] = json!("apps.k8s.io");
    let refused = c.send(Method::POST, CRDS, Some(protected.clone())).await;
    assert_eq!(refused.status, 422);
    assert_eq!(
        refused.json()["details"]["causes"][0]["field"],
        "metadata.annotations[api-approved.kubernetes.io]"
    );
    protected["metadata"]["annotations"] =
        json!({"api-approved.kubernetes.io": "https://github.com/kubernetes/kubernetes/pull/1"});
    assert_eq!(
        c.send(Method::POST, CRDS, Some(protected)).await.status,
        201
    );

    // The root of a schema is an object; the scope cannot change.
    let mut root = gadget_crd();
    root["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["type"] = json!("string");
    let refused = c.send(Method::POST, CRDS, Some(root)).await.json();
    assert_eq!(
        refused["details"]["causes"][0]["message"],
        "Invalid value: \"string\": must be object at the root"
    );
    let crd = establish(&c, gadget_crd()).await;
    let path = format!("{CRDS}/gadgets.example.com");
    let mut changed = crd.clone();
    changed["spec"]["scope"] = json!("Cluster");
    let refused = c.send(Method::PUT, &path, Some(changed)).await;
    assert_eq!(refused.status, 422);
    assert_eq!(
        refused.json()["details"]["causes"][0]["message"],
        "Invalid value: \"Cluster\": field is immutable"
    );
}

#[tokio::test]
async fn a_name_in_use_in_the_group_is_not_accepted() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    establish(&c, gadget_crd()).await;
    let mut other = gadget_crd();
    other["metadata"]["name"] = json!("doodads.example.com");
    other["spec"]["names"] = json!({"plural": "doodads", "kind": "Doodad", "shortNames": ["gd"]});
    let created = c.send(Method::POST, CRDS, Some(other)).await;
    assert_eq!(created.status, 201);
    let rv = created.json()["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut watch = c
        .watch(&format!(
            "{CRDS}?watch=1&fieldSelector=metadata.name=doodads.example.com&resourceVersion={rv}"
        ))
        .await;
    let event = watch.event().await;
    let conditions = &event["object"]["status"]["conditions"];
    assert_eq!(conditions[0]["type"], "NamesAccepted");
    assert_eq!(conditions[0]["status"], "False");
    assert_eq!(conditions[0]["reason"], "ShortNamesConflict");
    assert_eq!(conditions[0]["message"], "\"gd\" is already in use");
    assert_eq!(conditions[1]["type"], "Established");
    assert_eq!(conditions[1]["status"], "False");
    assert_eq!(conditions[1]["reason"], "NotAccepted");
    // Not served while its names are not accepted.
    let doodads = c
        .get("/apis/example.com/v1/namespaces/default/doodads")
        .await;
    assert_eq!(doodads.status, 404);
}

#[tokio::test]
async fn deleting_a_crd_deletes_its_custom_resources_first() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    establish(&c, gadget_crd()).await;
    for name in ["g1", "g2"] {
        let g = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": name}, "spec": {}});
        assert_eq!(c.send(Method::POST, GADGETS, Some(g)).await.status, 201);
    }
    let list = c.get(GADGETS).await.json();
    let rv = list["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut gadgets = c
        .watch(&format!("{GADGETS}?watch=1&resourceVersion={rv}"))
        .await;
    let path = format!("{CRDS}/gadgets.example.com");
    let deleted = c.send(Method::DELETE, &path, None).await;
    assert_eq!(deleted.status, 200);
    let deleted = deleted.json();
    // The delete only marks it: the cleanup finalizer holds it while its resources go.
    assert!(deleted["metadata"]["deletionTimestamp"].is_string());
    assert_eq!(
        deleted["metadata"]["finalizers"],
        json!(["customresourcecleanup.apiextensions.k8s.io"])
    );
    assert_eq!(condition(&deleted, "Terminating"), Some("True"));
    let events = gadgets.events(2).await;
    assert!(events.iter().all(|e| e["type"] == "DELETED"), "{events:?}");
    let mut crds = c
        .watch(&format!(
            "{CRDS}?watch=1&resourceVersion={}",
            deleted["metadata"]["resourceVersion"].as_str().unwrap()
        ))
        .await;
    loop {
        if crds.event().await["type"] == "DELETED" {
            break;
        }
    }
    assert_eq!(c.get(&path).await.status, 404);
    assert_eq!(c.get(GADGETS).await.status, 404);
    let groups = c.get("/apis").await.json();
    assert!(!groups.to_string().contains("example.com"), "{groups}");
}

#[tokio::test]
async fn openapi_v3_publishes_an_established_crd() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let before = c.get("/openapi/v3").await.json();
    assert!(before["paths"].get("apis/example.com/v1").is_none());
    assert!(
        before["paths"]["apis/apiextensions.k8s.io/v1"]["serverRelativeURL"]
            .as_str()
            .unwrap()
            .starts_with("/openapi/v3/apis/apiextensions.k8s.io/v1?hash=")
    );
    establish(&c, gadget_crd()).await;
    let root = c.get("/openapi/v3").await.json();
    let url = root["paths"]["apis/example.com/v1"]["serverRelativeURL"]
        .as_str()
        .unwrap();
    let doc = c.get(url).await.json();
    let patch =
        &doc["paths"]["/apis/example.com/v1/namespaces/{namespace}/gadgets/{name}"]["patch"];
    assert_eq!(
        patch["x-kubernetes-group-version-kind"],
        json!({"group": "example.com", "version": "v1", "kind": "Gadget"})
    );
    // What kubectl looks for before it lets the server validate.
    assert!(
        patch["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "fieldValidation")
    );
    let schema = &doc["components"]["schemas"]["com.example.v1.Gadget"];
    assert_eq!(
        schema["properties"]["spec"]["properties"]["color"]["enum"],
        json!(["red", "blue"])
    );
    assert_eq!(
        schema["x-kubernetes-group-version-kind"],
        json!([{"group": "example.com", "kind": "Gadget", "version": "v1"}])
    );
    assert_eq!(
        c.get("/openapi/v3/apis/nothing.example.com/v1")
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn openapi_v3_describes_built_in_types_field_by_field() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let core = c.get("/openapi/v3/api/v1").await.json();
    let schemas = &core["components"]["schemas"];
    let pod = &schemas["io.k8s.api.core.v1.Pod"];
    assert_eq!(
        pod["x-kubernetes-group-version-kind"],
        json!([{"group": "", "kind": "Pod", "version": "v1"}])
    );
    assert_eq!(
        pod["properties"]["spec"]["$ref"],
        "#/components/schemas/io.k8s.api.core.v1.PodSpec"
    );
    let containers = &schemas["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"];
    assert_eq!(containers["type"], "array");
    assert_eq!(
        containers["items"]["$ref"],
        "#/components/schemas/io.k8s.api.core.v1.Container"
    );
    // A volume's source is inlined: its fields are the volume's.
    let volume = &schemas["io.k8s.api.core.v1.Volume"]["properties"];
    assert!(volume.get("configMap").is_some() && volume.get("name").is_some());
    let meta = &schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"];
    assert_eq!(
        meta["creationTimestamp"],
        json!({"type": "string", "format": "date-time"})
    );
    assert_eq!(
        meta["labels"]["additionalProperties"],
        json!({"type": "string"})
    );
    let v2 = c.get("/openapi/v2").await.json();
    assert_eq!(
        v2["definitions"]["io.k8s.api.core.v1.Pod"]["properties"]["spec"]["$ref"],
        "#/definitions/io.k8s.api.core.v1.PodSpec"
    );
}
