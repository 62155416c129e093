//! Shared informers: one list-watch feeding a cache and any number of event handlers
//! (client-go's `tools/cache` shared informer).
//!
//! - [`SharedIndexInformer`]: reflector, then a delta queue ([`QueueKind`]), then an indexed
//!   cache, then the handlers; built from a [`Config`];
//! - [`EventHandler`], [`HandlerFns`] and [`FilteringHandler`]: what receives changes;
//! - [`Registration`]: the handle of one added handler (per-handler `has_synced`, backlog,
//!   removal);
//! - [`Transform`]: a change applied to every object once, as it enters the queue.
//!
//! Guarantees, as in client-go:
//! - the cache is updated before any handler hears of the change, and converges to the server;
//! - per object, the states a handler sees are a subsequence of the real ones, in order; a
//!   delete and re-create under one name may look like one update (compare UIDs);
//! - a delete the informer missed arrives as [`DeletedState::Unknown`](crate::core::DeletedState)
//!   (a tombstone) with the last known object;
//! - each handler has its own unbounded, ordered buffer drained by its own task, so a slow
//!   handler delays only itself; a handler added after start first receives a synthetic add for
//!   every cached object.
//!
//! `metadata.managedFields` is dropped by a transform after decoding; skipping it while parsing
//! needs the list-watch source to decode without it.

mod compact;
mod config;
mod handler;
mod listener;
mod notification;
#[cfg(all(test, feature = "rest"))]
mod outage_tests;
mod pipeline;
mod process;
mod processor;
#[cfg(feature = "prometheus")]
mod prometheus;
mod queue;
mod queues;
mod registration;
#[cfg(all(test, feature = "rest"))]
mod relist_tests;
mod run;
mod shared;
#[cfg(all(test, feature = "rest"))]
mod sim_tests;
mod sync;
#[cfg(test)]
mod testing;
mod transform;

#[cfg(feature = "rest")]
pub(crate) use queue::DeltaQueue;
#[cfg(feature = "rest")]
pub(crate) use queues::make_queue;
#[cfg(all(test, feature = "rest"))]
pub(crate) use testing::ScriptedQueue;

pub use config::{Config, QueueKind};
pub use handler::{EventHandler, FilteringHandler, HandlerFns};
pub use processor::MINIMUM_RESYNC_PERIOD;
#[cfg(feature = "prometheus")]
#[cfg_attr(docsrs, doc(cfg(feature = "prometheus")))]
pub use prometheus::InformerMetrics;
pub use registration::Registration;
pub use shared::SharedIndexInformer;
pub use transform::Transform;
