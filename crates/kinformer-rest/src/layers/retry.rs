//! Retries on `Retry-After` responses and on broken connections (client-go `withRetry`).

use std::time::Duration;

use tower::ServiceExt;

use super::{Attempt, LayerFuture, StackService, UrlBackoff, layer_service, take_ready};
use crate::body::Body;
use crate::request::{MaxRetries, NoTransportRetry};
use crate::response::retry_after;

/// client-go's default ceiling: at most 11 attempts.
pub(crate) const DEFAULT_MAX_RETRIES: u32 = 10;

/// Retries a request when the server answers 429 or 5xx with an integer `Retry-After` (waiting
/// that long), and a GET whose connection broke (after 1 s; never for a refused connection, and
/// never for `stream()` requests). Optionally sleeps a [`UrlBackoff`] delay before each attempt.
#[derive(Clone, Debug)]
pub struct RetryLayer {
    max_retries: u32,
    backoff: Option<UrlBackoff>,
}

impl RetryLayer {
    /// At most `max_retries` retries, with an optional per-host backoff.
    pub fn new(max_retries: u32, backoff: Option<UrlBackoff>) -> Self {
        Self {
            max_retries,
            backoff,
        }
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
            let transport_retry = parts.method == http::Method::GET
                && parts.extensions.get::<NoTransportRetry>().is_none();
            let host = parts
                .uri
                .authority()
                .map(ToString::to_string)
                .unwrap_or_default();
            let mut attempt = 0;
            loop {
                let mut delay = Duration::ZERO;
                if let Some(b) = &layer.backoff {
                    tokio::time::sleep(b.delay(&host)).await;
                }
                let mut req = http::Request::new(body.clone());
                *req.method_mut() = parts.method.clone();
                *req.uri_mut() = parts.uri.clone();
                *req.version_mut() = parts.version;
                *req.headers_mut() = parts.headers.clone();
                *req.extensions_mut() = parts.extensions.clone();
                req.extensions_mut().insert(Attempt(attempt));
                let result = inner.clone().oneshot(req).await;
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
                        delay = Duration::from_secs(1);
                        transport_retry && is_broken_connection(e.as_ref())
                    }
                };
                if !retry || attempt >= max {
                    return result;
                }
                let backoff = layer
                    .backoff
                    .as_ref()
                    .map_or(Duration::ZERO, |b| b.delay(&host));
                tracing::debug!(attempt, ?delay, uri = %parts.uri.path(), "retrying request");
                tokio::time::sleep(delay.max(backoff)).await;
                attempt += 1;
            }
        })
    }
}

layer_service!(RetryService);

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
        if let Some(h) = e.downcast_ref::<hyper::Error>() {
            if h.is_incomplete_message() || h.is_closed() || h.is_canceled() {
                return true;
            }
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
