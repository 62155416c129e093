//! Typed custom resources: declare a spec struct, derive the resource and its
//! CustomResourceDefinition.
//!
//! `#[derive(CustomResource)]` on a spec struct writes the resource type `metadata` + `spec`
//! (+ `status`), its `k8s_openapi::Resource`, `ListableResource` and `Metadata` impls (so it is
//! a `kinformer_core::Object` and works with `Api<K>`, informers and the controller runtime as
//! any k8s-openapi type does), serde impls that write `apiVersion` and `kind`, `new(name, spec)`,
//! and [`CustomResourceExt`], whose `crd()` is the CustomResourceDefinition with a structural
//! schema built from the Rust types ([`structural_schema`]). The attributes are kube-derive's,
//! under `#[kinformer(...)]`; every one is listed on [`CustomResource`].
//!
//! A crate deriving resources depends on serde (feature `derive`) and schemars 1 (feature
//! `derive`) for its spec and status types; schemars must be the 1.x this crate uses, so that
//! both name the same `JsonSchema` trait. Types from k8s-openapi inside a spec (`IntOrString`,
//! `Quantity`, ...) need k8s-openapi's `schemars` feature, as with kube-rs.
//!
//! # Examples
//! ```
//! use kinformer_crd::{CustomResource, CustomResourceExt};
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(CustomResource, Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
//! #[kinformer(group = "samplecontroller.k8s.io", version = "v1alpha1", kind = "Foo", namespaced)]
//! #[kinformer(status = "FooStatus", shortname = "fo", derive = "PartialEq")]
//! #[serde(rename_all = "camelCase")]
//! pub struct FooSpec {
//!     deployment_name: String,
//!     replicas: Option<i32>,
//! }
//!
//! #[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
//! #[serde(rename_all = "camelCase")]
//! pub struct FooStatus {
//!     available_replicas: i32,
//! }
//!
//! let foo = Foo::new("example", FooSpec { deployment_name: "web".into(), replicas: Some(2) });
//! let json = serde_json::to_value(&foo)?;
//! assert_eq!(json["apiVersion"], "samplecontroller.k8s.io/v1alpha1");
//! assert_eq!(json["spec"]["deploymentName"], "web");
//! assert_eq!(serde_json::from_value::<Foo>(json)?, foo);
//!
//! let crd = Foo::crd();
//! assert_eq!(crd.metadata.name.as_deref(), Some("foos.samplecontroller.k8s.io"));
//! println!("{}", serde_json::to_string_pretty(&crd)?); // for kubectl apply -f -
//! # Ok::<(), serde_json::Error>(())
//! ```
//!
//! # Types derived with kube-rs
//! A type from kube's `#[derive(kube::CustomResource)]` can stay as it is. kube-derive
//! implements serde and kube's own `kube::Resource` for it, but not k8s-openapi's `Resource`
//! and `Metadata`, which kinformer's `Object` rests on; [`impl_resource!`] adds those (one line
//! per attribute), after which `Api<K>`, informers and controllers take the type. Both sides
//! must use the same k8s-openapi (one version in `Cargo.lock`: kube 5 and kinformer use 0.29).
//! Its CRD still comes from kube's own `CustomResourceExt`, or, moving the attributes to
//! `#[kinformer(...)]`, from this crate's derive.
//!
//! # Feature flags
//! None.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release and never to a toolchain younger
//! than six months.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![doc(test(attr(deny(warnings))))]

mod adapter;
mod error;
mod resource_ext;
mod schema;

#[doc(hidden)]
pub mod __private;

// The public interface is:
pub use error::{Error, Result};
pub use kinformer_derive::CustomResource;
pub use resource_ext::CustomResourceExt;
pub use schema::structural_schema;
