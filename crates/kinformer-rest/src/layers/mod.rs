//! The tower layers of the client stack, outermost first: tracing, request metrics, retry, rate
//! limit, user agent, warnings, auth and gzip decoding (auth and rate limiting run again on every
//! retry).

mod backoff;
mod gzip;
mod headers;
mod metrics;
mod rate_limit;
mod retry;
mod trace;
mod user_agent;
mod warning;

use std::future::Future;
use std::pin::Pin;

pub use backoff::UrlBackoff;
pub use gzip::{DecompressionLayer, DecompressionService};
pub(crate) use headers::HeadersLayer;
#[cfg(feature = "prometheus")]
pub use metrics::RestClientMetrics;
pub use metrics::{MetricsLayer, MetricsService, RequestMetrics};
pub use rate_limit::{ClientRateLimiter, RateLimitLayer, RateLimitService};
pub(crate) use retry::DEFAULT_MAX_RETRIES;
pub use retry::{RetryLayer, RetryService};
pub use trace::{TraceLayer, TraceService};
pub use user_agent::{UserAgentLayer, UserAgentService, default_user_agent};
pub use warning::{DedupWarningLogger, NoWarnings, WarningHandler, WarningLayer, WarningService};

use crate::body::{Body, ResponseBody};
use crate::error::BoxError;

/// The future every layer returns.
pub(crate) type LayerFuture =
    Pin<Box<dyn Future<Output = Result<http::Response<ResponseBody>, BoxError>> + Send>>;

/// A bound alias for what every layer wraps: a cloneable service from `http::Request<Body>` to
/// responses with a boxed body (`UnsyncBoxBody<Bytes, Box<dyn Error + Send + Sync>>`).
pub trait StackService:
    tower::Service<
        http::Request<Body>,
        Response = http::Response<ResponseBody>,
        Error = BoxError,
        Future: Send + 'static,
    > + Clone
    + Send
    + 'static
{
}

impl<S> StackService for S where
    S: tower::Service<
            http::Request<Body>,
            Response = http::Response<ResponseBody>,
            Error = BoxError,
            Future: Send + 'static,
        > + Clone
        + Send
        + 'static
{
}

/// Takes the ready service out of `slot`, leaving a clone behind (tower's clone-and-swap idiom,
/// so the returned future owns a service that was polled ready).
pub(crate) fn take_ready<S: Clone>(slot: &mut S) -> S {
    let clone = slot.clone();
    std::mem::replace(slot, clone)
}

/// The attempt number of a request (0 for the first), set by the retry layer.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Attempt(pub(crate) u32);

/// Implements `tower::Service` for a layer service whose work is `self.run(req) -> LayerFuture`.
macro_rules! layer_service {
    ($name:ident) => {
        impl<S: $crate::layers::StackService> tower::Service<http::Request<$crate::body::Body>>
            for $name<S>
        {
            type Response = http::Response<$crate::body::ResponseBody>;
            type Error = $crate::error::BoxError;
            type Future = $crate::layers::LayerFuture;

            fn poll_ready(
                &mut self,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<Result<(), Self::Error>> {
                self.inner.poll_ready(cx)
            }

            fn call(&mut self, req: http::Request<$crate::body::Body>) -> Self::Future {
                self.run(req)
            }
        }
    };
}
pub(crate) use layer_service;
