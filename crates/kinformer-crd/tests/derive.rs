//! The derive end to end: the sample controller's `Foo` as a typed resource, its CRD against
//! the one a kube-apiserver takes (written out by hand), its wire form and its traits.

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::{ClusterResourceScope, ListableResource, NamespaceResourceScope, Resource};
use kinformer_core::Object;
use kinformer_crd::{CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A Foo runs a Deployment.
#[derive(CustomResource, Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
#[kinformer(
    group = "samplecontroller.k8s.io",
    version = "v1alpha1",
    kind = "Foo",
    namespaced,
    status = "FooStatus",
    shortname = "fo",
    category = "all",
    derive = "PartialEq",
    printcolumn(name = "Replicas", type_ = "integer", json_path = ".spec.replicas"),
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.availableReplicas"
    )
)]
#[kinformer(selectable = ".spec.deploymentName")]
#[serde(rename_all = "camelCase")]
pub struct FooSpec {
    /// The Deployment's name.
    #[schemars(length(min = 1, max = 253))]
    deployment_name: String,
    #[schemars(range(min = 0, max = 100))]
    replicas: Option<i32>,
    #[serde(default)]
    strategy: Strategy,
    max_unavailable: Option<IntOrString>,
}

/// How the Deployment is updated.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Default)]
pub enum Strategy {
    #[default]
    /// All at once.
    Recreate,
    /// A few at a time.
    RollingUpdate,
}

/// What the Foo's controller saw.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FooStatus {
    available_replicas: i32,
}

/// A cluster-scoped resource without a status, plural given.
#[derive(CustomResource, Serialize, Deserialize, JsonSchema, Clone, Debug)]
#[kinformer(group = "example.com", version = "v1", kind = "Mouse", plural = "mice")]
pub struct MouseSpec {
    name: String,
}

fn spec() -> FooSpec {
    FooSpec {
        deployment_name: "web".into(),
        replicas: Some(2),
        strategy: Strategy::RollingUpdate,
        max_unavailable: None,
    }
}

#[test]
fn the_crd_is_the_one_kube_apiserver_takes() {
    let crd = serde_json::to_value(Foo::crd()).unwrap();
    let expected = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "foos.samplecontroller.k8s.io"},
        "spec": {
            "group": "samplecontroller.k8s.io",
            "names": {
                "categories": ["all"],
                "kind": "Foo",
                "plural": "foos",
                "shortNames": ["fo"],
                "singular": "foo",
            },
            "scope": "Namespaced",
            "versions": [{
                "name": "v1alpha1",
                "served": true,
                "storage": true,
                "additionalPrinterColumns": [
                    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
                ],
                "selectableFields": [{"jsonPath": ".spec.deploymentName"}],
                "subresources": {
                    "status": {},
                    "scale": {
                        "specReplicasPath": ".spec.replicas",
                        "statusReplicasPath": ".status.availableReplicas",
                    },
                },
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "required": ["spec"],
                    "properties": {
                        "apiVersion": {"type": "string", "description": "The versioned schema of this representation of an object."},
                        "kind": {"type": "string", "description": "The REST resource this object represents."},
                        "metadata": {"type": "object"},
                        "spec": {
                            "type": "object",
                            "description": "A Foo runs a Deployment.",
                            "required": ["deploymentName"],
                            "properties": {
                                "deploymentName": {
                                    "type": "string",
                                    "description": "The Deployment's name.",
                                    "minLength": 1,
                                    "maxLength": 253,
                                },
                                "replicas": {
                                    "type": "integer",
                                    "format": "int32",
                                    "minimum": 0.0,
                                    "maximum": 100.0,
                                    "nullable": true,
                                },
                                "strategy": {
                                    "type": "string",
                                    "enum": ["Recreate", "RollingUpdate"],
                                    "default": "Recreate",
                                    "description": "How the Deployment is updated.",
                                },
                                "maxUnavailable": {
                                    "x-kubernetes-int-or-string": true,
                                    "nullable": true,
                                    "description": "IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON field that can accept a name or number.",
                                },
                            },
                        },
                        "status": {
                            "type": "object",
                            "description": "What the Foo's controller saw.",
                            "nullable": true,
                            "required": ["availableReplicas"],
                            "properties": {
                                "availableReplicas": {"type": "integer", "format": "int32"},
                            },
                        },
                    },
                }},
            }],
        },
    });
    assert_eq!(
        crd,
        expected,
        "{}",
        serde_json::to_string_pretty(&crd).unwrap()
    );
    assert_eq!(Foo::crd_name(), "foos.samplecontroller.k8s.io");
    assert_eq!(Foo::shortnames(), ["fo"]);
}

#[test]
fn a_cluster_resource_without_status() {
    let crd = Mouse::crd();
    assert_eq!(crd.spec.scope, "Cluster");
    assert_eq!(crd.spec.names.plural, "mice");
    let version = &crd.spec.versions[0];
    assert_eq!(version.subresources, None);
    assert_eq!(version.additional_printer_columns, None);
    let schema = serde_json::to_value(&version.schema).unwrap();
    assert_eq!(schema["openAPIV3Schema"]["properties"].get("status"), None);
    assert_eq!(Mouse::shortnames(), [""; 0]);
    assert_eq!(Mouse::URL_PATH_SEGMENT, "mice");
    assert_eq!(Mouse::crd_name(), "mice.example.com");
    fn cluster<K: Resource<Scope = ClusterResourceScope>>() {}
    cluster::<Mouse>();
}

#[test]
fn resource_constants_and_object() {
    fn namespaced<K: Resource<Scope = NamespaceResourceScope> + ListableResource>() {}
    namespaced::<Foo>();
    assert_eq!(Foo::API_VERSION, "samplecontroller.k8s.io/v1alpha1");
    assert_eq!(
        (Foo::GROUP, Foo::VERSION, Foo::KIND),
        ("samplecontroller.k8s.io", "v1alpha1", "Foo")
    );
    assert_eq!(Foo::URL_PATH_SEGMENT, "foos");
    assert_eq!(Foo::LIST_KIND, "FooList");

    let mut foo = Foo::new("example", spec());
    foo.meta_mut().namespace = Some("default".into());
    assert_eq!(foo.meta().name.as_deref(), Some("example"));
    assert_eq!(foo.meta().namespace.as_deref(), Some("default"));
}

#[test]
fn the_wire_form_has_type_meta_and_no_status_until_set() {
    let mut foo = Foo::new("example", spec());
    let json = serde_json::to_value(&foo).unwrap();
    assert_eq!(
        json,
        json!({
            "apiVersion": "samplecontroller.k8s.io/v1alpha1",
            "kind": "Foo",
            "metadata": {"name": "example"},
            "spec": {"deploymentName": "web", "replicas": 2, "strategy": "RollingUpdate", "maxUnavailable": null},
        })
    );
    assert_eq!(serde_json::from_value::<Foo>(json).unwrap(), foo);

    foo.status = Some(FooStatus {
        available_replicas: 2,
    });
    let text = serde_json::to_string(&foo).unwrap();
    assert!(
        text.contains(r#""status":{"availableReplicas":2}"#),
        "{text}"
    );
    assert_eq!(serde_json::from_str::<Foo>(&text).unwrap(), foo);
}

#[test]
fn reading_checks_type_meta_when_present() {
    let bare = json!({"spec": {"deploymentName": "web"}});
    let foo: Foo = serde_json::from_value(bare).unwrap();
    assert_eq!(foo.spec.strategy, Strategy::Recreate);
    assert_eq!(foo.metadata.name, None);

    let wrong_kind = json!({"apiVersion": "samplecontroller.k8s.io/v1alpha1", "kind": "Bar", "spec": {"deploymentName": "web"}});
    let err = serde_json::from_value::<Foo>(wrong_kind).unwrap_err();
    assert!(err.to_string().contains("kind"), "{err}");
    let wrong_version = json!({"apiVersion": "samplecontroller.k8s.io/v1", "kind": "Foo", "spec": {"deploymentName": "web"}});
    let err = serde_json::from_value::<Foo>(wrong_version).unwrap_err();
    assert!(err.to_string().contains("apiVersion"), "{err}");
    let no_spec = json!({"apiVersion": "samplecontroller.k8s.io/v1alpha1", "kind": "Foo"});
    assert!(serde_json::from_value::<Foo>(no_spec).is_err());
}
