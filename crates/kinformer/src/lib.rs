//! Kubernetes informers for Rust: shared informers, factory, listers and workqueue over the
//! kinformer crates.
//!
//! This facade re-exports the kinformer crates under short names and adds what controller
//! authors use on top of them:
//!
//! - [`informer`]: [`SharedIndexInformer`](informer::SharedIndexInformer): one list-watch
//!   feeding an indexed cache and any number of [`EventHandler`](informer::EventHandler)s, each
//!   on its own task with its own buffer; typed reads through an [`indexer::CacheLister`];
//! - [`workqueue`]: client-go's work queues (deduplicating, delaying, rate-limited) on tokio;
//! - [`runtime`]: a controller runtime: a [`Controller`](runtime::Controller) reconciles a
//!   primary resource's objects, and those it owns or relates to it, through one work queue.
//!
//! The building blocks are re-exported: [`core`] (objects, options, watch events, deltas, store
//! traits), [`selector`], [`pager`], [`indexer`], [`deltafifo`], [`reflector`], and with feature
//! `rest` the REST client, `api` (`Api<K>`: typed get, list, create, replace, patch and
//! server-side apply, delete, status and scale), `listwatch`, `discovery` (resource names as
//! kubectl accepts them, kinds to resources), `leaderelection` (one leader among a controller's
//! replicas, on a Lease), `events` (an `events.k8s.io/v1` event recorder) and `protobuf`
//! (Kubernetes' protobuf for built-in types, which reads of built-in types ask for first by
//! default, as client-go's clientsets do), with `sim` the simulator. The informer factory is
//! `informer::factory`.
//!
//! # Examples
//! A small controller: an informer turns changes into keys on a rate-limited work queue, and
//! two workers reconcile each key against the informer's cache.
//! ```
//! use std::sync::Arc;
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kinformer::informer::Config;
//! use kinformer::prelude::*;
//! # #[cfg(feature = "rest")]
//! use kinformer::{listwatch::ListWatch, rest::Client};
//!
//! # #[cfg(not(feature = "rest"))] fn main() {}
//! # #[cfg(feature = "rest")]
//! # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let sim = kinformer_sim::Sim::builder().configmaps(6).seed(1).start().await?;
//! let source = ListWatch::<ConfigMap, _>::for_type(Client::new(sim.service()));
//! let informer = SharedIndexInformer::new(source, Config::default().with_name("configmaps"))?;
//!
//! let queue: RateLimitingQueue<String> = RateLimitingQueue::new();
//! let (on_add, on_update) = (queue.clone(), queue.clone());
//! informer.add_event_handler(
//!     HandlerFns::new()
//!         .add_fn(move |cm: &Arc<ConfigMap>, _| on_add.add(object_key(&**cm)))
//!         .update_fn(move |_, cm: &Arc<ConfigMap>| on_update.add(object_key(&**cm))),
//! )?;
//! let running = tokio::spawn({
//!     let informer = informer.clone();
//!     async move { informer.run().await }
//! });
//! informer.wait_for_cache_sync().await.unwrap();
//!
//! let reconciled = Arc::new(AtomicUsize::new(0));
//! let workers: Vec<_> = (0..2)
//!     .map(|_| {
//!         let (queue, lister, reconciled) =
//!             (queue.clone(), informer.lister(), reconciled.clone());
//!         tokio::spawn(async move {
//!             while let Some(key) = queue.get().await {
//!                 match lister.get(&key) {
//!                     Ok(_configmap) => {
//!                         reconciled.fetch_add(1, Ordering::SeqCst);
//!                         queue.forget(&key);
//!                     }
//!                     Err(_) => queue.add_rate_limited(key.clone()),
//!                 }
//!                 queue.done(&key);
//!             }
//!         })
//!     })
//!     .collect();
//! while reconciled.load(Ordering::SeqCst) < 6 {
//!     tokio::task::yield_now().await;
//! }
//! queue.shutdown_with_drain().await;
//! for worker in workers {
//!     worker.await?;
//! }
//! informer.shutdown();
//! running.await??;
//! # Ok(()) }
//! ```
//!
//! # Feature flags
//! - `rest` (default): the REST client, as `kinformer::rest`, the typed resource API
//!   (`Api<K>`, `Patch`, `retry_on_conflict`), as `kinformer::api`, the informer factory, and
//!   discovery with a REST mapper, as `kinformer::discovery`, leader election, as
//!   `kinformer::leaderelection`, and the event recorder, as `kinformer::events`.
//! - `sim`: the in-process API server, as `kinformer::sim`.
//! - `derive`: typed custom resources, as `kinformer::crd`: `#[derive(CustomResource)]` on a
//!   spec struct writes the resource type and its CustomResourceDefinition (`crd()`); through
//!   the facade the derive is told where it lives:
//!
//!   ```
//!   # #[cfg(feature = "derive")] mod foo {
//!   use kinformer::crd::CustomResource;
//!   use kinformer::prelude::*;
//!
//!   #[derive(CustomResource, serde::Serialize, serde::Deserialize, schemars::JsonSchema, Clone, Debug)]
//!   #[kinformer(crate = "kinformer::crd", group = "example.com", version = "v1", kind = "Foo", namespaced)]
//!   pub struct FooSpec {
//!       pub replicas: i32,
//!   }
//!
//!   # pub fn check() {
//!   assert_eq!(Foo::crd().spec.names.plural, "foos");
//!   assert_eq!(Foo::new("a", FooSpec { replicas: 1 }).meta().name.as_deref(), Some("a"));
//!   # } }
//!   # #[cfg(feature = "derive")] foo::check();
//!   ```
//! - `prometheus`: `workqueue::WorkqueueMetrics` and `informer::InformerMetrics` (over
//!   `prometheus-client`), with client-go's metric names where it has them.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release and never to a toolchain younger
//! than six months.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![doc(test(attr(deny(warnings))))]

// The public interface is:
#[cfg(feature = "rest")]
#[cfg_attr(docsrs, doc(cfg(feature = "rest")))]
pub use kinformer_api as api;
pub use kinformer_core as core;
#[cfg(feature = "derive")]
#[cfg_attr(docsrs, doc(cfg(feature = "derive")))]
pub use kinformer_crd as crd;
pub use kinformer_deltafifo as deltafifo;
#[cfg(feature = "rest")]
#[cfg_attr(docsrs, doc(cfg(feature = "rest")))]
pub use kinformer_discovery as discovery;
#[cfg(feature = "rest")]
#[cfg_attr(docsrs, doc(cfg(feature = "rest")))]
pub use kinformer_events as events;
pub use kinformer_indexer as indexer;
pub use kinformer_informer as informer;
#[cfg(feature = "rest")]
#[cfg_attr(docsrs, doc(cfg(feature = "rest")))]
pub use kinformer_leaderelection as leaderelection;
#[cfg(feature = "rest")]
#[cfg_attr(docsrs, doc(cfg(feature = "rest")))]
pub use kinformer_listwatch as listwatch;
pub use kinformer_pager as pager;
#[cfg(feature = "rest")]
#[cfg_attr(docsrs, doc(cfg(feature = "rest")))]
pub use kinformer_protobuf as protobuf;
pub use kinformer_reflector as reflector;
#[cfg(feature = "rest")]
#[cfg_attr(docsrs, doc(cfg(feature = "rest")))]
pub use kinformer_rest as rest;
pub use kinformer_runtime as runtime;
pub use kinformer_selector as selector;
#[cfg(feature = "sim")]
#[cfg_attr(docsrs, doc(cfg(feature = "sim")))]
pub use kinformer_sim as sim;
pub use kinformer_workqueue as workqueue;

/// The names most programs need, to import with `use kinformer::prelude::*`.
pub mod prelude {
    pub use crate::core::{
        DeletedState, Fields, Holding, Object, ObjectShape, StoreRead as _, object_key,
    };
    #[cfg(feature = "derive")]
    pub use crate::crd::CustomResourceExt as _;
    pub use crate::indexer::{CacheLister, IndexRead as _};
    pub use crate::informer::{EventHandler, HandlerFns, Registration, SharedIndexInformer};
    pub use crate::selector::LabelSelector;
    pub use crate::workqueue::{Queue, RateLimiter as _, RateLimitingQueue};
}
