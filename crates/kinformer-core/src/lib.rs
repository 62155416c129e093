//! Traits and types that join the kinformer crates.
//!
//! This crate does no IO. It defines what flows through a list-watch pipeline:
//!
//! - [`Object`]: anything with Kubernetes `ObjectMeta` (every k8s-openapi resource and [`DynamicObject`]);
//! - [`ApiResource`]: the runtime description of a resource type (group, version, plural, kind, scope);
//! - [`ListOptions`] and [`ObjectList`]: what a list or watch request asks for and what a list returns;
//! - [`WatchEvent`] and [`Bookmark`]: what a watch stream yields;
//! - [`Delta`] and [`DeletedState`]: what a delta queue hands to an informer, tombstones included;
//! - [`ObjectShape`]: what a cache keeps of each object ([`Fields`]) and how it holds it
//!   ([`Holding`]);
//! - [`Cached`]: an object as a cache holds it (decoded, or packed and decoded on demand), as the
//!   pipeline carries it from a list through the queues to handlers;
//! - the traits [`Lister`], [`Watcher`], [`ApiError`] and [`Store`] that the reflector is generic over;
//! - [`Projection`]: which fields of each object are decoded, as paths to drop or to keep (the
//!   parser skips the others without building them);
//! - [`Backoff`], [`Delays`] and [`Random`]: client-go's `wait.Backoff` and `wait.Jitter`, the
//!   one retry-delay mechanism of every kinformer crate (the caller keeps the clock);
//! - [`object_key`] and [`split_key`]: client-go's `MetaNamespaceKeyFunc` and its inverse;
//!
//! Objects travel as `Arc<K>` (inside a [`Cached`]) from decode to store to handlers, so no stage
//! deep-copies them; a cache that packs objects hands its packed form on instead, decoded where
//! a handler or a reader needs the object.
//!
//! # Feature flags
//! None. This crate never picks a k8s-openapi version: the final binary does.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release and never to a toolchain younger
//! than six months.

#![doc(test(attr(deny(warnings))))]

mod api_error;
mod api_resource;
mod backoff;
mod cached;
mod delta;
mod dynamic;
mod key;
mod key_func;
mod list;
mod object;
mod options;
mod partial;
mod projection;
mod shape;
mod store;
mod traits;
mod transform;
mod watch;

// The public interface is:
pub use api_error::{ApiError, is_expired_status, is_too_large_resource_version_status};
pub use api_resource::{ApiResource, Scope};
pub use backoff::{Backoff, BackoffError, Delays, Random};
pub use cached::{Cached, Packed};
pub use delta::{DeletedState, Delta};
pub use dynamic::{DynamicObject, TypeMeta};
pub use key::{KeyError, object_key, split_key};
pub use key_func::KeyFunc;
pub use list::ObjectList;
pub use object::Object;
pub use options::{ListOptions, ResourceVersionMatch};
pub use partial::{
    PARTIAL_OBJECT_METADATA_API_VERSION, PARTIAL_OBJECT_METADATA_KIND, PartialObjectMetadata,
};
pub use projection::{Projection, ProjectionError, ProjectionNode, ProjectionTake};
pub use shape::{Fields, Holding, ObjectShape};
pub use store::{Store, StoreError, StoreRead};
pub use traits::{FieldsError, Lister, ListerWatcher, Watcher};
pub use transform::Transform;
pub use watch::{Bookmark, WatchEvent};

/// Kubernetes object metadata, as k8s-openapi defines it.
pub use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
/// The Kubernetes `Status` object: the body of every API error and of watch `ERROR` events.
pub use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;
/// The annotation on the bookmark that ends a streaming list's initial events.
pub const INITIAL_EVENTS_END_ANNOTATION: &str = "k8s.io/initial-events-end";
