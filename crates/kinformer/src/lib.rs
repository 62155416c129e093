//! Kubernetes informers for Rust: shared informers, factory, listers and workqueue over the
//! kinformer crates.
//!
//! This facade re-exports the kinformer crates under short names and adds what controller
//! authors use on top of them:
//!
//! - [`informer`]: [`SharedIndexInformer`](informer::SharedIndexInformer): one list-watch
//!   feeding an indexed cache and any number of [`EventHandler`](informer::EventHandler)s, each
//!   on its own task with its own buffer; typed reads through an [`indexer::Lister`];
//! - [`workqueue`]: client-go's work queues (deduplicating, delaying, rate-limited) on tokio.
//!
//! The building blocks are re-exported: [`core`] (objects, options, watch events, deltas, store
//! traits), [`selector`], [`pager`], [`indexer`], [`deltafifo`], [`reflector`], and with feature
//! `rest` the REST client and `listwatch`, with `sim` the simulator.
//!
//! # Feature flags
//! - `rest` (default): the REST client, as `kinformer::rest`.
//! - `sim`: the in-process API server, as `kinformer::sim`.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release and never to a toolchain younger
//! than six months.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![doc(test(attr(deny(warnings))))]

mod error;
#[cfg(feature = "rest")]
#[cfg_attr(docsrs, doc(cfg(feature = "rest")))]
pub mod factory;
pub mod informer;
pub mod workqueue;

// The public interface is:
pub use error::{Error, Result};
pub use kinformer_core as core;
pub use kinformer_deltafifo as deltafifo;
pub use kinformer_indexer as indexer;
#[cfg(feature = "rest")]
#[cfg_attr(docsrs, doc(cfg(feature = "rest")))]
pub use kinformer_listwatch as listwatch;
pub use kinformer_pager as pager;
pub use kinformer_reflector as reflector;
#[cfg(feature = "rest")]
#[cfg_attr(docsrs, doc(cfg(feature = "rest")))]
pub use kinformer_rest as rest;
pub use kinformer_selector as selector;
#[cfg(feature = "sim")]
#[cfg_attr(docsrs, doc(cfg(feature = "sim")))]
pub use kinformer_sim as sim;

/// The names most programs need, to import with `use kinformer::prelude::*`.
pub mod prelude {
    pub use crate::core::{DeletedState, Object, StoreRead as _, object_key};
    pub use crate::indexer::Lister;
    pub use crate::informer::{EventHandler, HandlerFns, Registration, SharedIndexInformer};
    pub use crate::selector::LabelSelector;
    pub use crate::workqueue::{Queue, RateLimiter as _, RateLimitingQueue};
}
