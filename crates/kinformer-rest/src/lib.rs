//! The REST client: kubeconfig and in-cluster config, TLS, auth, rate limiting, retries, typed
//! requests and watch decoding.
//!
//! This is client-go's `rest` and `clientcmd` on hyper, rustls and tower:
//!
//! - [`Client`]: a cloneable handle on a tower service stack. [`Client::new`] wraps any
//!   `tower::Service<http::Request<Body>>` (tests, the in-process simulator);
//! - [`RestClient`] (one group-version) and the [`Request`] builder, with the terminal calls
//!   `do_raw`, `into`, `list` (an `ObjectList<K>` decoded item by item), `watch` (a
//!   [`WatchStream`] of `WatchEvent<K>`) and `stream`;
//! - [`Getter`]: anything that yields a GET request for one group-version;
//! - [`Error`]: one opaque error with client-go's predicates, implementing
//!   [`kinformer_core::ApiError`].
//!
//! # Feature flags
//! None.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release and never to a toolchain younger
//! than six months.

#![doc(test(attr(deny(warnings))))]

mod auth;
mod body;
mod client;
mod config;
mod decode;
mod error;
mod layers;
mod request;
mod response;
mod rest_client;
#[cfg(test)]
mod test_util;
mod transport;

// The public interface is:
pub use auth::{Auth, AuthLayer, AuthService, ExecConfig, InteractiveMode, Secret};
pub use body::Body;
pub use client::{Client, DEFAULT_MAX_WATCH_FRAME};
pub use config::{Config, DEFAULT_BURST, DEFAULT_QPS, Identity, Kubeconfig, KubeconfigOptions};
pub use decode::{ByteStream, WatchDecoder, WatchStream, decode_list};
pub use error::{Error, Result};
pub use layers::{
    DecompressionLayer, DecompressionService, DedupWarningLogger, Inner, NoWarnings,
    RateLimitLayer, RateLimitService, RateLimiter, RetryLayer, RetryService, TraceLayer,
    TraceService, UrlBackoff, UserAgentLayer, UserAgentService, WarningHandler, WarningLayer,
    WarningService, default_user_agent,
};
pub use request::Request;
pub use rest_client::{Getter, PatchType, RestClient};
