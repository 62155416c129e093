//! A controller runtime for Kubernetes in Rust, on kinformer's shared informers and work
//! queue: a [`Controller`] reconciles the objects of one primary resource, and the objects it
//! owns or relates to it, through one rate-limited queue (client-go's engine, assembled as
//! controller-runtime's builder and kube-rs's `Controller` assemble theirs).
//!
//! - [`Controller`]: [`owns`](Controller::owns) (the controller owner reference of an object
//!   maps it to its primary), [`watches`](Controller::watches) (any mapping), bounded
//!   concurrency, one reconcile of an object at a time, backoff on failure;
//!   [`stream`](Controller::stream) hands out each reconcile's outcome, [`run`](Controller::run)
//!   drives it.
//! - [`Action`]: requeue after a delay, after the backoff, or wait for a change.
//! - [`Predicate`]: which updates of a primary object are worth a reconcile (by default not a
//!   status-only write).
//! - `finalizer` (feature `rest`): a reconcile that cleans up before its object goes, through
//!   the controller's finalizer (`FinalizerEvent::Apply`, `FinalizerEvent::Cleanup`).
//! - [`ObjectRef`]: the key the queue holds.
//! - [`Health`]: readiness checks (the caches synced, the controller started); with feature
//!   `server`, `Probes` serves `/healthz`, `/readyz` and (feature `prometheus`) `/metrics`.
//! - [`ControllerMetrics`]: hooks around each reconcile; with feature `prometheus`,
//!   `RuntimeMetrics` records controller-runtime's `controller_runtime_*` metrics.
//!
//! # Examples
//! A controller that reconciles only while its replica leads, through leader election on a
//! Lease: when leadership ends, the controller stops at once, dropping the reconciles under
//! way, so a replica that is no longer leading writes nothing more. On a shutdown signal
//! ([`shutdown_signal`]) the elector releases the lease.
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
//! use kinformer_leaderelection::{Callbacks, Config, LeaderElector, RestLeaseLock};
//! use kinformer_rest::Client;
//! use kinformer_runtime::{Action, Controller, ControllerConfig};
//! use tokio_util::sync::CancellationToken;
//!
//! #[derive(Debug, thiserror::Error)]
//! #[error("the configmap could not be reconciled")]
//! struct ReconcileError;
//!
//! async fn reconcile(configmap: Arc<ConfigMap>, _ctx: Arc<()>) -> Result<Action, ReconcileError> {
//!     let _ = configmap; // make the world as the configmap asks
//!     Ok(Action::await_change())
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let sim = kinformer_sim::Sim::builder().configmaps(3).start().await?;
//! let client = Client::new(sim.service());
//! let factory = SharedInformerFactory::new(client.clone(), FactoryConfig::default());
//! let configmaps = factory.informer_for::<ConfigMap>();
//! factory.start();
//!
//! let callbacks = Callbacks::new(move |leading: CancellationToken| {
//!     // A new term, a new controller over the same shared informer.
//!     let controller = Controller::for_type(configmaps.clone(), ControllerConfig::default());
//!     async move {
//!         tokio::select! {
//!             () = leading.cancelled() => {}
//!             () = controller.run(reconcile, |_, _, _| Action::backoff(), Arc::new(())) => {}
//!         }
//!     }
//! });
//! let lock = RestLeaseLock::new(client, "kube-system", "configmap-controller")?;
//! let config = Config::default().with_release_on_cancel(true);
//! let elector = LeaderElector::new(lock, "replica-a", config, callbacks)?;
//!
//! let shutdown = CancellationToken::new();
//! // In a process: `tokio::spawn(async move { shutdown_signal().await; token.cancel() })`.
//! let running = tokio::spawn({
//!     let (elector, shutdown) = (elector.clone(), shutdown.clone());
//!     async move { elector.run(shutdown).await }
//! });
//! tokio::time::sleep(Duration::from_millis(500)).await;
//! assert!(elector.is_leader());
//! shutdown.cancel();
//! running.await?;
//! factory.shutdown().await;
//! # Ok(()) }
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
#![doc(test(attr(deny(warnings))))]

mod action;
#[cfg(feature = "rest")]
mod client_config;
mod config;
mod controller;
#[cfg(feature = "rest")]
mod elected;
mod error;
#[cfg(feature = "rest")]
mod finalizer;
mod health;
mod mapping;
mod metrics;
mod object_ref;
mod own_writes;
mod predicate;
#[cfg(feature = "prometheus")]
mod prometheus;
#[cfg(feature = "server")]
mod server;
mod signal;
mod stream;
mod worker;

pub use action::Action;
#[cfg(feature = "rest")]
#[cfg_attr(docsrs, doc(cfg(feature = "rest")))]
pub use client_config::client_config;
pub use config::{ControllerConfig, DEFAULT_CONCURRENCY, DEFAULT_DRAIN_TIMEOUT};
pub use controller::Controller;
#[cfg(feature = "rest")]
#[cfg_attr(docsrs, doc(cfg(feature = "rest")))]
pub use elected::LeaderElected;
pub use error::Error;
#[cfg(feature = "rest")]
#[cfg_attr(docsrs, doc(cfg(feature = "rest")))]
pub use finalizer::{FinalizerEvent, finalizer};
pub use health::{Check, Health};
pub use metrics::{ControllerMetrics, NoControllerMetrics, ReconcileResult};
pub use object_ref::ObjectRef;
pub use predicate::Predicate;
#[cfg(feature = "prometheus")]
#[cfg_attr(docsrs, doc(cfg(feature = "prometheus")))]
pub use prometheus::RuntimeMetrics;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use server::{ProbeServer, Probes};
pub use signal::shutdown_signal;
pub use stream::{Outcome, ResultStream};
