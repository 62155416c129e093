//! Request metrics: the [`RequestMetrics`] hooks (client-go's `tools/metrics`) and the layer that
//! times each request and measures its response.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{Method, StatusCode, Uri};
use http_body::{Frame, SizeHint};
use tokio::time::Instant;
use tower::ServiceExt;

use super::{LayerFuture, StackService, layer_service, take_ready};
use crate::body::{Body, ResponseBody, boxed};
use crate::error::BoxError;
use crate::request::{NoTransportRetry, WatchRequest};

#[cfg(feature = "prometheus")]
mod prometheus;
#[cfg(test)]
mod tests;

#[cfg(feature = "prometheus")]
pub use prometheus::RestClientMetrics;

/// Hooks a client reports its requests to (client-go's `tools/metrics` adapters). Every method
/// has a no-op default; nothing is measured unless hooks are set with
/// [`Config::metrics`](crate::Config::metrics).
///
/// `method` is the HTTP method (client-go's `verb`); `host` is the server's `host:port` (`none`
/// for a client without a base URL); `code` is `None` when an attempt got no response.
/// `RestClientMetrics` (feature `prometheus`) exports them under client-go's names.
pub trait RequestMetrics: Send + Sync + 'static {
    /// An attempt ended, a retry included (`rest_client_requests_total`).
    fn request_result(&self, _method: &Method, _host: &str, _code: Option<StatusCode>) {}

    /// An attempt that was a retry ended (`rest_client_request_retries_total`); it is reported
    /// to [`request_result`](Self::request_result) as well.
    fn request_retry(&self, _method: &Method, _host: &str, _code: Option<StatusCode>) {}

    /// A request took `latency`, from before its first wait on the rate limiter to the end of its
    /// response body, every retry included; a watch is timed to its response headers
    /// (`rest_client_request_duration_seconds`). Streams (`Request::stream`) are not timed, as
    /// in client-go.
    fn request_latency(&self, _method: &Method, _host: &str, _latency: Duration) {}

    /// An attempt waited `latency` on the client-side rate limiter
    /// (`rest_client_rate_limiter_duration_seconds`).
    fn rate_limiter_latency(&self, _method: &Method, _host: &str, _latency: Duration) {}

    /// An attempt sent a body of `bytes` (`rest_client_request_size_bytes`); not reported for
    /// watches and streams, as in client-go.
    fn request_size(&self, _method: &Method, _host: &str, _bytes: u64) {}

    /// A response body of `bytes`, after decompression, was read to its end or dropped
    /// (`rest_client_response_size_bytes`); not reported for watches and streams.
    fn response_size(&self, _method: &Method, _host: &str, _bytes: u64) {}
}

/// The hooks a layer reports to, if any.
#[derive(Clone, Default)]
pub(crate) struct Hooks(Option<Arc<dyn RequestMetrics>>);

impl Hooks {
    pub(crate) fn new(metrics: Option<Arc<dyn RequestMetrics>>) -> Self {
        Self(metrics)
    }

    pub(crate) fn get(&self) -> Option<&Arc<dyn RequestMetrics>> {
        self.0.as_ref()
    }
}

impl fmt::Debug for Hooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() { "Hooks" } else { "NoHooks" })
    }
}

/// The `host` label of a request: its authority, or `none` (client-go's value without a base).
pub(crate) fn host_of(uri: &Uri) -> &str {
    uri.authority().map_or("none", http::uri::Authority::as_str)
}

/// How client-go measures a call of each kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CallKind {
    /// `Do`/`DoRaw`: timed to the end of the body, sizes reported.
    Call,
    /// `Watch`: timed to the response headers.
    Watch,
    /// `Stream`: not timed.
    Stream,
}

impl CallKind {
    pub(crate) fn of(extensions: &http::Extensions) -> Self {
        if extensions.get::<WatchRequest>().is_some() {
            Self::Watch
        } else if extensions.get::<NoTransportRetry>().is_some() {
            Self::Stream
        } else {
            Self::Call
        }
    }
}

/// Times each request and measures its response body for [`RequestMetrics`]; place it outside
/// the retry and rate limit layers (as [`Client::from_config`](crate::Client::from_config)
/// does), so a request's latency covers its waits and retries as client-go's does. `None`
/// passes requests through.
#[derive(Clone, Debug, Default)]
pub struct MetricsLayer {
    hooks: Hooks,
}

impl MetricsLayer {
    /// A layer reporting to `metrics`, or passing requests through when `None`.
    pub fn new(metrics: Option<Arc<dyn RequestMetrics>>) -> Self {
        Self {
            hooks: Hooks::new(metrics),
        }
    }
}

impl<S> tower::Layer<S> for MetricsLayer {
    type Service = MetricsService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        MetricsService {
            inner,
            hooks: self.hooks.clone(),
        }
    }
}

/// The service of [`MetricsLayer`].
#[derive(Clone, Debug)]
pub struct MetricsService<S> {
    inner: S,
    hooks: Hooks,
}

impl<S: StackService> MetricsService<S> {
    fn run(&mut self, req: http::Request<Body>) -> LayerFuture {
        let inner = take_ready(&mut self.inner);
        let kind = CallKind::of(req.extensions());
        let Some(metrics) = self.hooks.get().filter(|_| kind != CallKind::Stream) else {
            return Box::pin(inner.oneshot(req));
        };
        let report = Report {
            metrics: Arc::clone(metrics),
            method: req.method().clone(),
            host: host_of(req.uri()).to_owned(),
            start: Instant::now(),
        };
        Box::pin(async move {
            match inner.oneshot(req).await {
                Ok(resp) if kind == CallKind::Call => {
                    let success = resp.status().is_success();
                    Ok(resp.map(|body| {
                        boxed(Measured {
                            inner: body,
                            bytes: 0,
                            success,
                            report: Some(report),
                        })
                    }))
                }
                result => {
                    report.latency();
                    result
                }
            }
        })
    }
}

layer_service!(MetricsService);

/// What a finished request reports.
struct Report {
    metrics: Arc<dyn RequestMetrics>,
    method: Method,
    host: String,
    start: Instant,
}

impl Report {
    fn latency(&self) {
        self.metrics
            .request_latency(&self.method, &self.host, self.start.elapsed());
    }
}

/// A response body that reports the request's latency and the body's size once it has been
/// read to its end, has failed, or is dropped.
struct Measured {
    inner: ResponseBody,
    bytes: u64,
    /// A 2xx status: its size is reported even when empty (client-go skips empty error bodies).
    success: bool,
    report: Option<Report>,
}

impl Measured {
    fn finish(&mut self) {
        if let Some(report) = self.report.take() {
            report.latency();
            if self.success || self.bytes > 0 {
                report
                    .metrics
                    .response_size(&report.method, &report.host, self.bytes);
            }
        }
    }
}

impl http_body::Body for Measured {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    self.bytes += data.len() as u64;
                }
                if self.inner.is_end_stream() {
                    self.finish();
                }
            }
            Poll::Ready(_) => self.finish(),
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Measured {
    fn drop(&mut self) {
        self.finish();
    }
}
