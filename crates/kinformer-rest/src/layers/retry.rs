//! Retries on `Retry-After` responses and on broken connections (client-go `withRetry`).

use std::sync::Arc;
use std::time::Duration;

use tower::ServiceExt;

use super::metrics::{CallKind, Hooks, host_of};
use super::{
    Attempt, LayerFuture, RequestMetrics, StackService, UrlBackoff, layer_service, take_ready,
};
use crate::body::Body;
use crate::request::{MaxRetries, NoTransportRetry, WatchRequest};
use crate::response::retry_after;

/// client-go's default ceiling: at most 11 attempts.
pub(crate) const DEFAULT_MAX_RETRIES: u32 = 10;

/// Retries a request as client-go's `withRetry` does: when the server answers 429 or 5xx with an
/// integer `Retry-After` (waiting that long), and after 1 s when the transport failed in a way
/// the call kind retries (client-go's `Do`, `Watch` and `Stream` rules). With a per-host
/// [`UrlBackoff`], the first attempt waits the host's backoff, and each retry waits once: the
/// larger of `Retry-After` and the backoff.
#[derive(Clone, Debug)]
pub struct RetryLayer {
    max_retries: u32,
    backoff: Option<UrlBackoff>,
    hooks: Hooks,
}

impl RetryLayer {
    /// At most `max_retries` retries, with an optional per-host backoff.
    pub fn new(max_retries: u32, backoff: Option<UrlBackoff>) -> Self {
        Self {
            max_retries,
            backoff,
            hooks: Hooks::default(),
        }
    }

    /// Reports each attempt (its status, whether it was a retry, the size of its body) to
    /// `metrics`, or to nothing when `None`.
    #[must_use]
    pub fn metrics(mut self, metrics: Option<Arc<dyn RequestMetrics>>) -> Self {
        self.hooks = Hooks::new(metrics);
        self
    }
}

impl Default for RetryLayer {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_RETRIES, None)
    }
}

impl<S> tower::Layer<S> for RetryLayer {
    type Service = RetryService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RetryService {
            inner,
            layer: self.clone(),
        }
    }
}

/// The service of [`RetryLayer`].
#[derive(Clone, Debug)]
pub struct RetryService<S> {
    inner: S,
    layer: RetryLayer,
}

impl<S: StackService> RetryService<S> {
    fn run(&mut self, req: http::Request<Body>) -> LayerFuture {
        let inner = take_ready(&mut self.inner);
        let layer = self.layer.clone();
        Box::pin(async move {
            let (parts, body) = req.into_parts();
            let max = parts
                .extensions
                .get::<MaxRetries>()
                .map_or(layer.max_retries, |m| m.0);
            let transport_retry = TransportRetry::of(&parts);
            let host = parts
                .uri
                .authority()
                .map(ToString::to_string)
                .unwrap_or_default();
            let mut attempt = 0;
            // Before the first attempt, the host's backoff; before a retry, the larger of it
            // and what the failed attempt asked for (client-go's `withRetry.Before`).
            let mut wait = layer
                .backoff
                .as_ref()
                .map_or(Duration::ZERO, |b| b.delay(&host));
            loop {
                if !wait.is_zero() {
                    tokio::time::sleep(wait).await;
                }
                let mut delay = Duration::ZERO;
                let mut req = http::Request::new(body.clone());
                *req.method_mut() = parts.method.clone();
                *req.uri_mut() = parts.uri.clone();
                *req.version_mut() = parts.version;
                *req.headers_mut() = parts.headers.clone();
                *req.extensions_mut() = parts.extensions.clone();
                req.extensions_mut().insert(Attempt(attempt));
                let result = inner.clone().oneshot(req).await;
                if let Some(metrics) = layer.hooks.get() {
                    report_attempt(metrics.as_ref(), &parts, &body, attempt, &result);
                }
                let retry = match &result {
                    Ok(resp) => {
                        let code = resp.status().as_u16();
                        if let Some(b) = &layer.backoff {
                            b.update(&host, code);
                        }
                        let wait = (code == 429 || code >= 500)
                            .then(|| retry_after(resp.headers()))
                            .flatten();
                        wait.inspect(|w| delay = *w).is_some()
                    }
                    Err(e) => {
                        if let Some(b) = &layer.backoff {
                            b.update(&host, 0);
                        }
                        // client-go answers a retryable error with an artificial `Retry-After: 1`.
                        delay = Duration::from_secs(1);
                        transport_retry.retries(e.as_ref())
                    }
                };
                if !retry || attempt >= max {
                    return result;
                }
                let backoff = layer
                    .backoff
                    .as_ref()
                    .map_or(Duration::ZERO, |b| b.delay(&host));
                wait = delay.max(backoff);
                tracing::debug!(attempt, ?wait, uri = %parts.uri.path(), "retrying request");
                attempt += 1;
            }
        })
    }
}

layer_service!(RetryService);

/// What one attempt reports: its result (and, after the first, its retry), and for a plain call
/// the size of its body (client-go's `request` reports it; `Watch` and `Stream` do not).
fn report_attempt(
    metrics: &dyn RequestMetrics,
    parts: &http::request::Parts,
    body: &Body,
    attempt: u32,
    result: &Result<http::Response<crate::body::ResponseBody>, crate::error::BoxError>,
) {
    let host = host_of(&parts.uri);
    let code = result.as_ref().ok().map(http::Response::status);
    if CallKind::of(&parts.extensions) == CallKind::Call {
        metrics.request_size(&parts.method, host, body.bytes().len() as u64);
    }
    metrics.request_result(&parts.method, host, code);
    if attempt > 0 {
        metrics.request_retry(&parts.method, host, code);
    }
}

/// Which transport failures a request is retried after, by call kind (client-go's
/// `IsRetryableErrorFunc` of `Do`, `Watch` and `Stream`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TransportRetry {
    /// `stream()`: never (client-go's `Stream` passes `neverRetryError`).
    Never,
    /// A plain GET: a reset, broken or closed connection (client-go's `Do`: connection reset,
    /// probable EOF, HTTP/2 connection lost); other methods are not idempotent.
    BrokenGet,
    /// A watch, whatever its method: a broken or closed connection, or a timeout (client-go's
    /// `Watch`: probable EOF or timeout), since the watch resumes from its resourceVersion.
    Watch,
}

impl TransportRetry {
    fn of(parts: &http::request::Parts) -> Self {
        if parts.extensions.get::<NoTransportRetry>().is_some() {
            Self::Never
        } else if parts.extensions.get::<WatchRequest>().is_some() {
            Self::Watch
        } else if parts.method == http::Method::GET {
            Self::BrokenGet
        } else {
            Self::Never
        }
    }

    fn retries(self, err: &(dyn std::error::Error + 'static)) -> bool {
        match self {
            Self::Never => false,
            Self::BrokenGet => is_broken_connection(err),
            Self::Watch => is_broken_connection(err) || is_timeout(err),
        }
    }
}

/// A transport timeout (connecting, the TLS handshake, awaiting the response), as Go's
/// `net.Error.Timeout()`.
pub(crate) fn is_timeout(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(err);
    while let Some(e) = cur {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return io.kind() == std::io::ErrorKind::TimedOut;
        }
        if e.downcast_ref::<hyper::Error>()
            .is_some_and(hyper::Error::is_timeout)
        {
            return true;
        }
        cur = e.source();
    }
    false
}

/// A connection that broke or closed under the request (not one that was refused).
pub(crate) fn is_broken_connection(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(err);
    while let Some(e) = cur {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind as K;
            return matches!(
                io.kind(),
                K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe | K::UnexpectedEof
            );
        }
        if let Some(h) = e.downcast_ref::<hyper::Error>()
            && (h.is_incomplete_message() || h.is_closed() || h.is_canceled())
        {
            return true;
        }
        if e.to_string().contains("GOAWAY") {
            return true;
        }
        cur = e.source();
    }
    false
}

#[cfg(test)]
mod tests;
