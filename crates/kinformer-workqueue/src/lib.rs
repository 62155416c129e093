//! Work queues for controllers: client-go's `util/workqueue`, async on tokio.
//!
//! - [`Queue`]: deduplicates items while they wait and never hands one item to two workers at
//!   once; an item re-added while processing is processed again after [`Queue::done`].
//! - [`DelayingQueue`]: adds [`add_after`](DelayingQueue::add_after) (the earlier time wins).
//! - [`RateLimitingQueue`]: adds [`add_rate_limited`](RateLimitingQueue::add_rate_limited),
//!   [`forget`](RateLimitingQueue::forget) and [`num_requeues`](RateLimitingQueue::num_requeues),
//!   spaced by a [`RateLimiter`] (by default [`default_controller_rate_limiter`]).
//! - [`QueueMetrics`]: hooks for depth, adds, queue latency, work duration and retries.
//!
//! All timing uses tokio's clock, so tests can run with paused time.
//!
//! # Examples
//! A controller loop with two workers:
//! ```
//! use kinformer_workqueue::RateLimitingQueue;
//!
//! # tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_time().build().unwrap().block_on(async {
//! let queue = RateLimitingQueue::new();
//! let workers: Vec<_> = (0..2)
//!     .map(|_| {
//!         let queue = queue.clone();
//!         tokio::spawn(async move {
//!             while let Some(key) = queue.get().await {
//!                 // reconcile(&key) succeeded:
//!                 queue.forget(&key);
//!                 queue.done(&key);
//!             }
//!         })
//!     })
//!     .collect();
//! for key in ["ns/a", "ns/b", "ns/a"] {
//!     queue.add(key.to_string());
//! }
//! queue.shutdown_with_drain().await;
//! for w in workers {
//!     w.await.unwrap();
//! }
//! # });
//! ```
//!
//! # Feature flags
//! - `prometheus`: `WorkqueueMetrics` (over `prometheus-client`), with client-go's metric names.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release and never to a toolchain younger
//! than six months.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![doc(test(attr(deny(warnings))))]

mod delaying;
mod error;
mod lanes;
mod metrics;
#[cfg(feature = "prometheus")]
mod prometheus;
mod queue;
mod rate_limiter;
mod rate_limiting;
mod state;
mod waiting;

use std::hash::Hash;

pub use delaying::{DelayingQueue, MAX_DELAY};
pub use error::Error;
pub use lanes::{DEFAULT_LOW_PRIORITY_WAIT, Priority};
pub use metrics::{NoQueueMetrics, QueueMetrics};
#[cfg(feature = "prometheus")]
#[cfg_attr(docsrs, doc(cfg(feature = "prometheus")))]
pub use prometheus::WorkqueueMetrics;
pub use queue::{Queue, QueueConfig};
pub use rate_limiter::{
    BucketRateLimiter, ItemExponentialRateLimiter, ItemFastSlowRateLimiter, MaxOfRateLimiter,
    MaxWaitRateLimiter, RateLimiter, default_controller_rate_limiter,
};
pub use rate_limiting::RateLimitingQueue;

/// What a work queue can hold: usually an object key (`String`) or a small key struct.
///
/// Implemented for every type that is `Clone + Eq + Hash + Send + Sync + 'static`.
pub trait QueueItem: Clone + Eq + Hash + Send + Sync + 'static {}

impl<T: Clone + Eq + Hash + Send + Sync + 'static> QueueItem for T {}
