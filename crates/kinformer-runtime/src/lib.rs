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
//! - [`ObjectRef`]: the key the queue holds.
//! - [`ControllerMetrics`]: hooks around each reconcile; with feature `prometheus`,
//!   `RuntimeMetrics` records controller-runtime's `controller_runtime_*` metrics.
//!
//! See [`Controller`] for an example.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![doc(test(attr(deny(warnings))))]

mod action;
mod config;
mod controller;
mod error;
mod mapping;
mod metrics;
mod object_ref;
mod predicate;
#[cfg(feature = "prometheus")]
mod prometheus;
mod stream;
mod worker;

pub use action::Action;
pub use config::{ControllerConfig, DEFAULT_CONCURRENCY};
pub use controller::Controller;
pub use error::Error;
pub use metrics::{ControllerMetrics, NoControllerMetrics, ReconcileResult};
pub use object_ref::ObjectRef;
pub use predicate::Predicate;
#[cfg(feature = "prometheus")]
#[cfg_attr(docsrs, doc(cfg(feature = "prometheus")))]
pub use prometheus::RuntimeMetrics;
pub use stream::{Outcome, ResultStream};
