//! Shared informers: one list-watch feeding a cache and any number of event handlers.
//!
//! - [`EventHandler`], [`HandlerFns`] and [`FilteringHandler`]: what receives changes;
//! - [`Registration`]: the handle of one added handler (per-handler `has_synced`, removal).
//!
//! Each handler has its own unbounded, ordered buffer drained by its own task, so a slow handler
//! delays only itself. Handlers added after the informer started first receive a synthetic add
//! for every object in the cache.

mod config;
mod handler;
mod listener;
mod notification;
mod pipeline;
mod process;
mod processor;
mod queue;
mod queues;
mod registration;
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
pub use registration::Registration;
pub use shared::SharedIndexInformer;
pub use transform::Transform;
