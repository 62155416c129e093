//! A `tracing` span per request attempt.

use tokio::time::Instant;
use tower::ServiceExt;
use tracing::Instrument;

use super::{LayerFuture, StackService, layer_service, take_ready};
use crate::body::Body;

/// Wraps each request in a `debug` span `http` (method, path) and logs its status and latency.
/// The query string is left out, so selectors and tokens in URLs never reach logs.
#[derive(Clone, Copy, Debug, Default)]
pub struct TraceLayer;

impl<S> tower::Layer<S> for TraceLayer {
    type Service = TraceService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        TraceService { inner }
    }
}

/// The service of [`TraceLayer`].
#[derive(Clone, Debug)]
pub struct TraceService<S> {
    inner: S,
}

impl<S: StackService> TraceService<S> {
    fn run(&mut self, req: http::Request<Body>) -> LayerFuture {
        let inner = take_ready(&mut self.inner);
        let span = tracing::debug_span!("http", method = %req.method(), path = req.uri().path());
        Box::pin(
            async move {
                let start = Instant::now();
                let result = inner.oneshot(req).await;
                match &result {
                    Ok(resp) => tracing::debug!(status = resp.status().as_u16(), elapsed = ?start.elapsed(), "response"),
                    Err(e) => tracing::debug!(error = %e, elapsed = ?start.elapsed(), "request failed"),
                }
                result
            }
            .instrument(span),
        )
    }
}

layer_service!(TraceService);
