//! [`CustomResourceExt`]: what a typed custom resource knows about its definition.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

/// A custom resource type that can describe its own CustomResourceDefinition, as
/// `#[derive(CustomResource)]` implements it (kube-rs's trait of the same name and methods).
///
/// # Examples
/// ```
/// use kinformer_crd::{CustomResource, CustomResourceExt};
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(CustomResource, Serialize, Deserialize, JsonSchema, Clone, Debug)]
/// #[kinformer(group = "example.com", version = "v1", kind = "Widget", shortname = "wd")]
/// pub struct WidgetSpec {
///     size: u32,
/// }
///
/// assert_eq!(Widget::crd_name(), "widgets.example.com");
/// assert_eq!(Widget::shortnames(), ["wd"]);
/// assert_eq!(Widget::crd().spec.scope, "Cluster");
/// ```
pub trait CustomResourceExt: k8s_openapi::Resource {
    /// The CustomResourceDefinition of this type: its names, scope, the one version with its
    /// structural schema, subresources and printer columns; ready for
    /// `kinformer_api`'s `install_crd`, or to print as YAML for `kubectl apply`.
    ///
    /// # Panics
    /// When the spec or status type has a schema no structural schema can express (the
    /// message names the field and why, as [`structural_schema`](crate::structural_schema)'s
    /// error does). That is a property of the types, so any test that calls `crd()` finds it.
    fn crd() -> CustomResourceDefinition;

    /// The CRD's name, `<plural>.<group>`.
    fn crd_name() -> &'static str;

    /// The short names `kubectl` accepts for the resource (`kubectl get fo`).
    fn shortnames() -> &'static [&'static str];
}
