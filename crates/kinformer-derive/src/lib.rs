//! `#[derive(CustomResource)]`: a typed custom resource and its CustomResourceDefinition from a
//! spec struct. Use it through `kinformer-crd` (or the `kinformer` facade's `derive` feature),
//! which holds the runtime the generated code calls; see [`CustomResource`].
//!
//! # Feature flags
//! None.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release and never to a toolchain younger
//! than six months.

#![doc(test(attr(deny(warnings))))]

mod attrs;
mod crd;
mod expand;
mod names;

use proc_macro::TokenStream;

/// Derives a custom resource from its spec struct (or enum).
///
/// On `FooSpec` with `kind = "Foo"` it writes:
///
/// - `struct Foo { metadata: ObjectMeta, spec: FooSpec, status: Option<FooStatus> }` (no
///   `status` without `status = ...`), with the spec's visibility, deriving `Clone`, `Debug` and
///   whatever `derive = "..."` adds;
/// - `Foo::new(name, spec)`;
/// - `Serialize` (with `apiVersion` and `kind`, and no `status` while it is `None`) and
///   `Deserialize` (which checks `apiVersion` and `kind` when present);
/// - `k8s_openapi::Resource` (`URL_PATH_SEGMENT` is the plural; the scope is
///   `NamespaceResourceScope` with `namespaced`, else `ClusterResourceScope`),
///   `ListableResource` and `Metadata<Ty = ObjectMeta>`, which make it a `kinformer_core::Object`
///   that `Api<K>`, informers and controllers take as they take `Pod`;
/// - `kinformer_crd::CustomResourceExt`: `crd()`, `crd_name()`, `shortnames()`.
///
/// The spec and status types derive `Serialize`, `Deserialize` and `schemars::JsonSchema`
/// (their schema becomes the CRD's, made structural by `kinformer_crd::structural_schema`).
///
/// # Examples
/// ```
/// use kinformer_crd::{CustomResource, CustomResourceExt};
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(CustomResource, Serialize, Deserialize, JsonSchema, Clone, Debug)]
/// #[kinformer(group = "stable.example.com", version = "v1", kind = "CronTab", namespaced)]
/// #[kinformer(shortname = "ct", printcolumn(name = "Spec", type_ = "string", json_path = ".spec.cronSpec"))]
/// #[serde(rename_all = "camelCase")]
/// pub struct CronTabSpec {
///     cron_spec: String,
///     #[schemars(range(min = 1, max = 10))]
///     replicas: Option<i32>,
/// }
///
/// let tab = CronTab::new("every-minute", CronTabSpec { cron_spec: "* * * * */1".into(), replicas: None });
/// assert_eq!(CronTab::crd().spec.names.plural, "crontabs");
/// assert_eq!(tab.metadata.name.as_deref(), Some("every-minute"));
/// ```
///
/// # Attributes
/// `#[kinformer(...)]`, repeatable; the names are kube-derive's.
///
/// | key | value | CRD |
/// | --- | --- | --- |
/// | `group` | `"example.com"` (required) | `spec.group` |
/// | `version` | `"v1"` (required) | the one `spec.versions[]` entry (served, storage) |
/// | `kind` | `"Foo"` (required; the generated type's name) | `names.kind` |
/// | `namespaced` | flag | `scope: Namespaced` (else `Cluster`) |
/// | `plural` | `"foos"`; default: kube-derive's plural of the singular (`-s`, `-es`, `-ies`) | `names.plural`, the URL |
/// | `singular` | `"foo"`; default: the kind in lowercase | `names.singular` |
/// | `status` | `"FooStatus"` | the `status` field, schema and subresource |
/// | `shortname` | `"fo"`, repeatable | `names.shortNames` |
/// | `category` | `"all"`, repeatable | `names.categories` |
/// | `printcolumn` | `(name = "Replicas", type_ = "integer", json_path = ".spec.replicas", description, format, priority = 1)`, repeatable | `additionalPrinterColumns` |
/// | `selectable` | `".spec.size"`, repeatable | `selectableFields` |
/// | `scale` | `(spec_replicas_path = ".spec.replicas", status_replicas_path = ".status.replicas", label_selector_path)` | the scale subresource |
/// | `annotation` | `("api-approved.kubernetes.io", "https://...")`, repeatable | the CRD's annotations (a group under `k8s.io` needs that one) |
/// | `label` | `("app.kubernetes.io/part-of", "shop")`, repeatable | the CRD's labels |
/// | `derive` | `"PartialEq"`, repeatable | more derives on the generated type |
/// | `doc` | `"..."` | the generated type's doc and the schema's description |
/// | `crate` | `"kinformer::crd"`; default `::kinformer_crd` | where the generated code finds kinformer-crd |
///
/// Group, version, kind, names, paths, column types and formats are checked as the API server
/// checks them, and a bad one is a compile error on its value.
///
/// # Coming from kube-rs
/// The same resource with kube-derive and with this derive:
///
/// ```text
/// // kube-rs                                       // kinformer
/// use kube::{CustomResource, CustomResourceExt};   use kinformer_crd::{CustomResource, CustomResourceExt};
///
/// #[derive(CustomResource, Serialize,              #[derive(CustomResource, Serialize,
///     Deserialize, JsonSchema, Clone, Debug)]          Deserialize, JsonSchema, Clone, Debug)]
/// #[kube(group = "example.com", version = "v1",    #[kinformer(group = "example.com", version = "v1",
///     kind = "Foo", namespaced,                        kind = "Foo", namespaced,
///     status = "FooStatus", shortname = "fo",          status = "FooStatus", shortname = "fo",
///     printcolumn = r#"{"name": "Replicas",            printcolumn(name = "Replicas",
///       "type": "integer",                               type_ = "integer",
///       "jsonPath": ".spec.replicas"}"#)]                json_path = ".spec.replicas"))]
/// struct FooSpec { replicas: i32 }                 struct FooSpec { replicas: i32 }
///
/// let api: Api<Foo> = Api::namespaced(client, "ns");   let api: Api<Foo> = Api::namespaced(client, "ns");
/// let crd = Foo::crd();                                 let crd = Foo::crd();
/// ```
///
/// Not taken over: the JSON-string forms of `printcolumn` and `scale` (use the list forms, which
/// kube-derive takes too), `schema = "manual"`/`"disabled"`, `validation`/CEL rules, `no_spec`,
/// `root`, `served`/`storage`/`deprecated` (one version, served
/// and stored), and `HasSpec`/`HasStatus`. A kube-rs type can also stay as it is: kube-derive
/// implements kube's own `Resource` trait, not k8s-openapi's, and `kinformer_crd::impl_resource!`
/// adds k8s-openapi's `Resource`, `ListableResource` and `Metadata`, after which kinformer takes
/// it.
#[proc_macro_derive(CustomResource, attributes(kinformer))]
pub fn derive_custom_resource(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::expand(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
