//! [`ListWatch`]: a [`Lister`](kinformer_core::Lister) and [`Watcher`](kinformer_core::Watcher)
//! for one resource in one namespace (or all), built from a REST [`Getter`](kinformer_rest::Getter)
//! — client-go's `NewFilteredListWatchFromClient`.
//!
//! Every list and watch is `GET <group-version>[/namespaces/<ns>]/<plural>?<options>`; a watch adds
//! `watch=true`. Label and field selectors and an options modifier apply to every call, after the
//! caller (usually a reflector) has filled in resourceVersion, limit and timeouts, so the modifier
//! may override them. It works for any k8s-openapi type and for
//! [`DynamicObject`](kinformer_core::DynamicObject).
//!
//! A `ListWatch` never paginates by itself: the reflector's pager decides.
//!
//! # Examples
//! ```
//! use k8s_openapi::api::core::v1::Pod;
//! use kinformer_listwatch::ListWatch;
//! use kinformer_rest::{Body, Client};
//!
//! let client = Client::new(tower::service_fn(|_req: http::Request<Body>| async {
//!     Ok::<_, std::convert::Infallible>(http::Response::new(Body::empty()))
//! }));
//! let pods = ListWatch::<Pod, _>::for_type(client)
//!     .with_namespace("prod")?
//!     .with_label_selector("app=web")?
//!     .with_options_modifier(|options| options.timeout_seconds = options.timeout_seconds.map(|t| t.min(600)));
//! assert_eq!(pods.collection_path(), "/api/v1/namespaces/prod/pods");
//! # Ok::<(), kinformer_listwatch::Error>(())
//! ```
//!
//! # Feature flags
//! None.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release.

#![doc(test(attr(deny(warnings))))]

mod error;
mod list_watch;

// The public interface is:
pub use error::Error;
pub use list_watch::{
    ListWatch, METADATA_LIST_ACCEPT, METADATA_LIST_ACCEPT_PROTOBUF, METADATA_WATCH_ACCEPT,
    METADATA_WATCH_ACCEPT_PROTOBUF, OptionsModifier,
};

#[cfg(test)]
mod tests;
