//! Shared informers: one list-watch feeding a cache and any number of event handlers
//! (client-go's `tools/cache` shared informer).
//!
//! - [`SharedIndexInformer`]: reflector, then a delta queue ([`QueueKind`]), then an indexed
//!   cache, then the handlers; built from a [`Config`];
//! - [`EventHandler`], [`HandlerFns`] and [`FilteringHandler`]: what receives changes;
//! - [`Registration`]: the handle of one added handler (per-handler `has_synced`, backlog,
//!   removal);
//! - [`Transform`](kinformer_core::Transform): a change applied to every object once, as it
//!   arrives; [`trim_pod_capacity`] is one for pod caches.
//!
//! Guarantees, as in client-go:
//! - the cache is updated before any handler hears of the change, and converges to the server;
//! - per object, the states a handler sees are a subsequence of the real ones, in order; a
//!   delete and re-create under one name may look like one update (compare UIDs);
//! - a delete the informer missed arrives as [`DeletedState::Unknown`](kinformer_core::DeletedState)
//!   (a tombstone) with the last known object;
//! - each handler has its own unbounded, ordered buffer drained by its own task, so a slow
//!   handler delays only itself; a handler added after start first receives a synthetic add for
//!   every cached object.
//!
//! Beyond client-go: nothing owed to a handler is skipped without a word. When a compact cache's
//! object fails to decode, the handler gets [`EventHandler::on_decode_error`] (with the key and
//! the call missed) in place of the call, and the informer logs and counts it.
//!
//! What the cache keeps of each object, and how it holds it, is the config's
//! [`ObjectShape`](kinformer_core::ObjectShape) ([`Config::with_shape`]): by default every field
//! but `metadata.managedFields` (skipped while decoding, by the source the informer hands the
//! shape's fields to), each object held typed and exactly sized.
//!
//! With feature `rest`, [`factory`] builds informers for any resource over one REST client, each
//! with per-resource options if asked (`ResourceOptions`: shape, indexes, transform),
//! reporting to the factory's metrics, and forgets one on request.
//!
//! # Feature flags
//! - `rest`: the [`factory`] module (`SharedInformerFactory`), over `kinformer-rest`.
//! - `prometheus`: `InformerMetrics` (over `prometheus-client`), with client-go's names.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release and never to a toolchain younger
//! than six months.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![doc(test(attr(deny(warnings))))]

mod config;
mod error;
mod events;
#[cfg(feature = "rest")]
#[cfg_attr(docsrs, doc(cfg(feature = "rest")))]
pub mod factory;
mod handler;
mod inner;
mod listener;
mod metrics;
mod notification;
mod pipeline;
mod pod_trim;
mod process;
mod processor;
#[cfg(feature = "prometheus")]
mod prometheus;
mod queues;
mod registration;
mod run;
mod shared;
mod spent;
mod sync;
#[cfg(test)]
mod testing;
mod transform;

pub use config::{Config, QueueKind};
pub use error::{Conflict, Error, Missed, Result};
pub use events::{Event, EventStream};
pub use handler::{EventHandler, FilteringHandler, HandlerFns};
pub use metrics::Metrics;
pub use pod_trim::trim_pod_capacity;
pub use processor::MINIMUM_RESYNC_PERIOD;
#[cfg(feature = "prometheus")]
#[cfg_attr(docsrs, doc(cfg(feature = "prometheus")))]
pub use prometheus::InformerMetrics;
pub use registration::Registration;
pub use shared::SharedIndexInformer;
