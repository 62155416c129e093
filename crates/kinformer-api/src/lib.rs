//! The typed resource API: [`Api<K>`](Api), what a controller writes with.
//!
//! One [`Api`] per resource type and namespace, over the REST client, for every k8s-openapi
//! resource and for [`DynamicObject`](kinformer_core::DynamicObject) with an
//! [`ApiResource`](kinformer_core::ApiResource):
//!
//! | verb | request | client-go |
//! | --- | --- | --- |
//! | [`get`](Api::get), [`get_opt`](Api::get_opt) | `GET …/name` | `Get` |
//! | [`list`](Api::list) | `GET …` paged through the pager | `List` |
//! | [`create`](Api::create) | `POST …` | `Create` |
//! | [`replace`](Api::replace) | `PUT …/name` (409 on a stale resourceVersion) | `Update` |
//! | [`patch`](Api::patch) | `PATCH …/name`: [`Patch`] JSON, merge, strategic, apply | `Patch`, `Apply` |
//! | [`delete`](Api::delete) | `DELETE …/name` with [`DeleteParams`] | `Delete` |
//! | [`delete_collection`](Api::delete_collection) | `DELETE …?selector` | `DeleteCollection` |
//! | [`get_status`](Api::get_status), [`replace_status`](Api::replace_status), [`patch_status`](Api::patch_status) | `…/name/status` | `UpdateStatus`, `ApplyStatus` |
//! | [`get_scale`](Api::get_scale), [`replace_scale`](Api::replace_scale), [`patch_scale`](Api::patch_scale) | `…/name/scale` | `GetScale`, `UpdateScale` |
//!
//! Every write takes its params ([`PostParams`], [`PatchParams`], [`DeleteParams`]), each with
//! `dry_run`. Failures are one typed [`Error`]: [`NotFound`](Error::NotFound),
//! [`Conflict`](Error::Conflict) (a stale write, or the managers and fields of an apply
//! conflict), [`Invalid`](Error::Invalid) (with the field causes), [`Forbidden`](Error::Forbidden),
//! ...; [`retry_on_conflict`] re-runs a read-modify-write as client-go's `RetryOnConflict` does.
//! Watching is the informers' business (`kinformer-informer`). [`install_crd`] applies a
//! CustomResourceDefinition and waits, watching it, until the API server serves its resource.
//!
//! # Examples
//! A controller's writes: apply what it wants as its own field manager, then report status.
//! ```
//! use k8s_openapi::api::apps::v1::Deployment;
//! use kinformer_api::{Api, Patch, PatchParams};
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let sim = kinformer_sim::Sim::builder().start().await?;
//! let client = kinformer_rest::Client::new(sim.service());
//! let deployments: Api<Deployment> = Api::namespaced(client, "default");
//!
//! let desired = json!({
//!     "apiVersion": "apps/v1", "kind": "Deployment",
//!     "metadata": {"name": "web"},
//!     "spec": {
//!         "replicas": 2,
//!         "selector": {"matchLabels": {"app": "web"}},
//!         "template": {
//!             "metadata": {"labels": {"app": "web"}},
//!             "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
//!         },
//!     },
//! });
//! let apply = PatchParams::apply("web-controller")?.with_force(true);
//! let web = deployments.patch("web", &apply, &Patch::Apply(&desired)).await?;
//!
//! let status = Patch::Merge(json!({"status": {"observedGeneration": web.metadata.generation}}));
//! deployments.patch_status("web", &PatchParams::default(), &status).await?;
//! # Ok(()) }
//! ```
//!
//! # Feature flags
//! None.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release and never to a toolchain younger
//! than six months.

#![doc(test(attr(deny(warnings))))]

mod api;
mod crd;
mod error;
mod params;
mod patch;
mod retry;
mod subresource;
mod verbs;
mod written;

// The public interface is:
pub use api::Api;
pub use crd::{InstallOptions, install_crd};
pub use either::Either;
pub use error::{Error, FieldConflict, Result, StatusCause};
pub use params::{DeleteParams, PatchParams, PostParams, Preconditions, PropagationPolicy};
pub use patch::{JsonPatchOp, Patch};
pub use retry::retry_on_conflict;
pub use written::{WriteObserver, observe_writes};
