//! Kubernetes API discovery for Rust: what the server serves, cached as kubectl caches it, and
//! a REST mapper from the names kubectl accepts (`deploy`, `po`, `widgets.example.com`,
//! `Deployment`) and from kinds to resources (client-go's `discovery`, `discovery/cached/disk`
//! and `restmapper`).
//!
//! - [`Discovery`]: asks `/api` and `/apis` for aggregated discovery
//!   (`apidiscovery.k8s.io` v2, then v2beta1) and falls back to the legacy per-group documents
//!   when the server answers in the plain form; keeps the answer in memory and, when asked, in
//!   kubectl's disk cache (`~/.kube/cache/discovery/<host_port>/`, six hours); a name that is not
//!   found refreshes it once. [`Discovery::dynamic_informer`] gives a factory's informer for any
//!   resource so named.
//! - [`RestMapper`]: the mapping itself over one snapshot, with kubectl's priorities (the core
//!   group first, then groups in the server's order, preferred versions first).
//! - [`ServerResources`]: the typed result: groups, versions (with the preferred one), resources
//!   with kind, singular, short names, verbs, scope and subresources.
//!
//! # Examples
//! ```
//! use kinformer_discovery::Discovery;
//! use kinformer_rest::Client;
//! use kinformer_sim::Sim;
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let sim = Sim::builder().start().await?;
//! let discovery = Discovery::new(Client::new(sim.service()));
//! let resources = discovery.server_resources().await?;
//! let apps = resources.group("apps").expect("the sim serves apps");
//! assert_eq!(apps.preferred_version, "v1");
//! let deployments = discovery.find("deploy").await?;
//! assert_eq!(deployments.kind, "Deployment");
//! assert!(deployments.supports("watch"));
//! let subresources: Vec<(&str, &str)> = deployments
//!     .subresources
//!     .iter()
//!     .map(|s| (s.name.as_str(), s.kind.as_str()))
//!     .collect();
//! assert_eq!(subresources, [("scale", "Scale"), ("status", "Deployment")]);
//! # Ok(()) }
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
#![doc(test(attr(deny(warnings))))]

mod client;
mod disk;
mod error;
mod fetch;
mod mapper;
mod model;
mod wire;

pub use client::Discovery;
pub use disk::{DEFAULT_TTL, default_cache_dir, server_dir};
pub use error::{Error, Result};
pub use fetch::{AGGREGATED_ACCEPT, Form, LEGACY_ACCEPT};
pub use mapper::RestMapper;
pub use model::{ApiGroup, GroupVersion, Resource, ServerResources, Subresource};
