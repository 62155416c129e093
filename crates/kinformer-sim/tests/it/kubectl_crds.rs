//! kubectl and CustomResourceDefinitions, with kubectl's default validation (it reads
//! `/openapi/v3`, finds `fieldValidation` and lets the server validate): apply a CRD, wait for
//! `Established`, write custom resources by kind and short name, `explain` them, and delete
//! the CRD with its resources. Skipped, with a notice, only when kubectl is not installed and
//! `CI` is not set.

use crate::kubectl::{Kubectl, path_str};
use kinformer_sim::Sim;

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets, shortNames: [gd]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: 3}
              color: {type: string, enum: [red, blue]}
          status:
            type: object
            properties:
              ready: {type: boolean}
";

const GADGET: &str = "apiVersion: example.com/v1
kind: Gadget
metadata: {name: g1, namespace: default}
spec: {size: 2, color: red}
";

#[tokio::test]
async fn kubectl_applies_a_crd_and_its_resources_with_default_validation() {
    let sim = Sim::builder().start().await.unwrap();
    let Some(k) = Kubectl::new(&sim, "crds") else {
        return;
    };
    let crd = k.write("crd.yaml", CRD);
    let out = k.run(&["apply", "-f", path_str(&crd)]).await;
    assert_eq!(
        out.trim(),
        "customresourcedefinition.apiextensions.k8s.io/gadgets.example.com created"
    );
    k.run(&[
        "wait",
        "--for=condition=Established",
        "crd/gadgets.example.com",
        "--timeout=10s",
    ])
    .await;
    let resources = k
        .run(&["api-resources", "--api-group=example.com", "--no-headers"])
        .await;
    let columns: Vec<&str> = resources.split_whitespace().collect();
    assert_eq!(
        columns,
        ["gadgets", "gd", "example.com/v1", "true", "Gadget"]
    );

    let gadget = k.write("gadget.yaml", GADGET);
    assert_eq!(
        k.run(&["apply", "-f", path_str(&gadget)]).await.trim(),
        "gadget.example.com/g1 created"
    );
    let named = k.run(&["get", "gd", "-o", "name"]).await;
    assert_eq!(named.trim(), "gadget.example.com/g1");
    let explained = k.run(&["explain", "gadgets.spec"]).await;
    assert!(
        explained.contains("color") && explained.contains("red, blue"),
        "{explained}"
    );

    // A field the schema does not declare: kubectl's default is Strict, the server refuses it.
    let extra = k.write(
        "extra.yaml",
        &GADGET
            .replace("name: g1", "name: g2")
            .replace("color: red", "color: red, shade: dark"),
    );
    let (ok, err) = k.attempt(&["apply", "-f", path_str(&extra)]).await;
    assert!(!ok);
    assert!(
        err.contains("Gadget in version \"v1\" cannot be handled as a Gadget: strict decoding error: unknown field \"spec.shade\""),
        "{err}"
    );

    // A wrong type and a value outside the enum are refused naming the fields.
    let wrong = k.write(
        "wrong.yaml",
        &GADGET
            .replace("name: g1", "name: g3")
            .replace("size: 2, color: red", "size: big, color: green"),
    );
    let (ok, err) = k.attempt(&["apply", "-f", path_str(&wrong)]).await;
    assert!(!ok);
    for part in [
        "The Gadget \"g3\" is invalid",
        "spec.color: Unsupported value: \"green\": supported values: \"red\", \"blue\"",
        "spec.size: Invalid value: \"string\": spec.size in body must be of type integer: \"string\"",
    ] {
        assert!(err.contains(part), "{part}: {err}");
    }
    // A missing field gets its default; a status sent on create is dropped.
    let defaulted = k.write(
        "defaulted.yaml",
        &format!(
            "{}status: {{ready: true}}\n",
            GADGET
                .replace("name: g1", "name: g4")
                .replace("size: 2, ", "")
        ),
    );
    k.run(&["apply", "-f", path_str(&defaulted)]).await;
    let got = k
        .run(&["get", "gd", "g4", "-o", "jsonpath={.spec.size} {.status}"])
        .await;
    assert_eq!(got.trim(), "3");

    k.run(&["delete", "crd", "gadgets.example.com"]).await;
    let (ok, err) = k.attempt(&["get", "gadgets"]).await;
    assert!(!ok);
    // Whether kubectl's discovery cache still names the resource or not, the server has none.
    assert!(
        err.contains("the server doesn't have a resource type \"gadgets\"")
            || err.contains(
                "the server could not find the requested resource (get gadgets.example.com)"
            ),
        "{err}"
    );
}
