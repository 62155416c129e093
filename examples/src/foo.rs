//! Foos for the sample controller's demo and tests: the definition the embedded server
//! registers, and Foos to create.

use kinformer::core::{DynamicObject, Scope};
use kinformer::sim::CustomResource;
use serde_json::json;

use crate::sample::foo_resource;

/// The `Foo` definition the embedded server registers (with a status subresource, as
/// sample-controller's CRD declares).
pub fn crd() -> CustomResource {
    let resource = foo_resource();
    CustomResource::new(
        &resource.group,
        &resource.version,
        "Foo",
        "foos",
        Scope::Namespaced,
    )
    .with_status_subresource()
}

/// A Foo asking for `replicas` of its Deployment.
pub fn object(name: &str, replicas: i32) -> DynamicObject {
    let mut primary = DynamicObject::new(name);
    primary.data = json!({"spec": {"deploymentName": deployment_name(name), "replicas": replicas}});
    primary
}

/// The Deployment a Foo of this name asks for.
pub fn deployment_name(primary: &str) -> String {
    format!("{primary}-nginx")
}
