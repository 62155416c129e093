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
//!   [`kinformer_core::ApiError`];
//! - [`ContentType`]: JSON (the default) or Kubernetes' protobuf for reads of built-in types.
//!
//! # Media types
//! A response is decoded as its `Content-Type` says, whatever was asked: `application/json`
//! (and anything unnamed) as JSON, `application/vnd.kubernetes.protobuf` (a watch's with
//! `;stream=watch`) as protobuf, both item by item and through the request's projection
//! ([`decoders`]). What is asked follows the client's [`ContentType`]: with
//! [`ContentType::Protobuf`], `into`, `list` and `watch` GETs of built-in group-versions send
//! `Accept: application/vnd.kubernetes.protobuf,application/json`, as client-go's clientsets
//! do; custom resources (which have no protobuf form), request bodies, `do_raw` and `stream`
//! stay on JSON.
//!
//! # The stack
//! [`Client::from_config`] builds, outermost first (the types are in [`stack`]): `TraceLayer`
//! (a span per attempt), `MetricsLayer` (the [`RequestMetrics`](stack::RequestMetrics) hooks set with
//! [`Config::metrics`]), `RetryLayer` (`Retry-After` and transport failures as client-go
//! retries them, optional [`UrlBackoff`](stack::UrlBackoff)), `RateLimitLayer` (a shared [`ClientRateLimiter`](stack::ClientRateLimiter), QPS 5
//! / burst 10), `UserAgentLayer`, `WarningLayer`, impersonation headers, `AuthLayer` (basic,
//! bearer, token file, exec, oidc), `DecompressionLayer` (gzip), then hyper-util's pooled client over
//! rustls (ALPN `h2` and
//! `http/1.1`, HTTP/2 keepalive pings). Auth and rate limiting run again on every retry.
//!
//! # Proxies
//! As client-go: [`Config::proxy_url`] (a kubeconfig's `proxy-url`) carries every request,
//! through an `http://` proxy (`CONNECT` tunnels, absolute-form requests for `http://` servers),
//! an `https://` one (the same inside TLS to the proxy) or a `socks5://` one (RFC 1928, with
//! RFC 1929 username/password from the URL; host names resolved by the proxy). Unset,
//! `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` apply as Go's `ProxyFromEnvironment` reads them, never
//! for `localhost` or loopback addresses; they are read when the client is built, or taken from
//! [`Config::proxy_env`] ([`ProxyEnv`](stack::ProxyEnv)). The server's TLS, and HTTP/2 by ALPN, run inside the
//! tunnel.
//!
//! # Examples
//! A client from a kubeconfig (here the in-process simulator's, with TLS and a token), a typed
//! list, and a watch from the list's resourceVersion:
//! ```
//! use futures_util::StreamExt;
//! use k8s_openapi::api::core::v1::Pod;
//! use kinformer_core::{ListOptions, WatchEvent};
//! use kinformer_rest::{Client, Config, Kubeconfig, KubeconfigOptions, RestClient};
//!
//! # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let sim = kinformer_sim::Sim::builder().pods(5).tls(true).token("t0k").start().await?;
//! let kubeconfig = Kubeconfig::from_yaml(&sim.kubeconfig(), None)?;
//! let config = Config::from_custom_kubeconfig(kubeconfig, &KubeconfigOptions::default())?;
//! let core = RestClient::new(Client::from_config(&config)?, "", "v1");
//!
//! let pods = core.get().resource("pods").list::<Pod>().await?;
//! assert_eq!(pods.items.len(), 5);
//!
//! let options = ListOptions::default().resource_version(&pods.resource_version).timeout_seconds(1);
//! let mut events = core.get().resource("pods").versioned_params(&options).watch::<Pod>().await?;
//! while let Some(event) = events.next().await {
//!     if let WatchEvent::Added(pod) | WatchEvent::Modified(pod) = event? {
//!         println!("{:?}", pod.metadata.name);
//!     }
//! }
//! # Ok(()) }
//! ```
//! Against a real cluster, `Config::infer()` finds the kubeconfig (or the pod's service account)
//! the way kubectl does.
//!
//! # Feature flags
//! - `prometheus`: `stack::RestClientMetrics`, the [`RequestMetrics`](stack::RequestMetrics) hooks for a
//!   `prometheus_client` registry under client-go's `rest_client_*` names.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release and never to a toolchain younger
//! than six months.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![doc(test(attr(deny(warnings))))]

pub mod auth;
mod body;
mod client;
mod config;
mod content_type;
mod decode;
mod error;
mod layers;
mod request;
mod response;
mod rest_client;
#[cfg(test)]
mod test_util;
mod transport;

// The public interface is: at the root, what a controller author uses (a client from a
// config, requests, their results and errors); credentials in `auth`; the pieces of the
// client's tower stack (layers, rate limiter, backoff, metrics hooks, warning handlers, proxy
// environment) in `stack`; the decoders behind `list` and `watch` in `decoders`.
pub use body::Body;
pub use client::Client;
pub use config::{Config, Kubeconfig, KubeconfigOptions, RateLimit, TokenBucket};
pub use content_type::ContentType;
pub use decode::{ByteStream, WatchStream};
pub use error::{Error, Result};
pub use request::Request;
pub use rest_client::{Getter, PatchType, RestClient};

/// The decoders behind [`Request::list`] and [`Request::watch`], for callers that hold
/// raw bytes (benchmarks, fuzzing, a body read elsewhere): lists through the one `ListDecoder`
/// driver with its JSON (`JsonListCodec`, the default) or protobuf (`ProtobufListCodec`, as
/// `ListDecoder<K, ProtobufListCodec<K>>`) codec; watches through the one `WatchDecoder` driver with its JSON
/// (`JsonCodec`, the default) or protobuf (`ProtobufCodec`) codec.
pub mod decoders {
    pub use crate::decode::{
        DEFAULT_MAX_LIST_ITEM, DEFAULT_MAX_WATCH_FRAME, JsonCodec, JsonListCodec, ListCodec,
        ListDecoder, ProjectionSeed, ProtobufCodec, ProtobufListCodec, WatchCodec, WatchDecoder,
        decode_list, protobuf_decodes_exactly_sized,
    };
}

/// The client's tower stack: the layers and services [`Client::from_config`] stacks (rate
/// limiting, retries, decompression, metrics, tracing, user agent, warnings; authentication's
/// are in [`auth`]), for building a custom stack, and what configures them: the shared
/// [`ClientRateLimiter`](stack::ClientRateLimiter) and its defaults, [`UrlBackoff`](stack::UrlBackoff),
/// the [`RequestMetrics`](stack::RequestMetrics) hooks, the [`WarningHandler`](stack::WarningHandler)s,
/// and the [`ProxyEnv`](stack::ProxyEnv) the transport reads proxies from.
pub mod stack {
    pub use crate::config::{DEFAULT_BURST, DEFAULT_QPS};
    #[cfg(feature = "prometheus")]
    #[cfg_attr(docsrs, doc(cfg(feature = "prometheus")))]
    pub use crate::layers::RestClientMetrics;
    pub use crate::layers::{
        ClientRateLimiter, DecompressionLayer, DecompressionService, DedupWarningLogger,
        MetricsLayer, MetricsService, NoWarnings, RateLimitLayer, RateLimitService, RequestMetrics,
        RetryLayer, RetryService, StackService, TraceLayer, TraceService, UrlBackoff,
        UserAgentLayer, UserAgentService, WarningHandler, WarningLayer, WarningService,
        default_user_agent,
    };
    pub use crate::transport::ProxyEnv;
}
