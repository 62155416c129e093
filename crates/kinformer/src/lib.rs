//! Kubernetes informers for Rust: shared informers, factory, listers and workqueue over the
//! kinformer crates.
//!
//! This facade re-exports the kinformer crates under short names and adds what controller
//! authors use on top of them:
//!
//! - [`workqueue`]: client-go's work queues (deduplicating, delaying, rate-limited) on tokio;
//! - [`core`]: objects, list options, watch events, deltas and the store traits.
//!
//! # Feature flags
//! None yet.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release and never to a toolchain younger
//! than six months.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![doc(test(attr(deny(warnings))))]

mod error;
pub mod informer;
pub mod workqueue;

// The public interface is:
pub use error::{Error, Result};
pub use kinformer_core as core;
pub use kinformer_pager as pager;
pub use kinformer_selector as selector;

/// The names most programs need, to import with `use kinformer::prelude::*`.
pub mod prelude {
    pub use crate::core::{DeletedState, Delta, Object, object_key};
    pub use crate::workqueue::{Queue, RateLimiter as _, RateLimitingQueue};
}
