//! Fixed extra headers on every request (impersonation).

use std::sync::Arc;

use http::{HeaderName, HeaderValue};
use tower::ServiceExt;

use super::{LayerFuture, StackService, layer_service, take_ready};
use crate::body::Body;

/// Adds fixed headers (repeated names allowed) to requests that do not set them already.
#[derive(Clone, Debug)]
pub(crate) struct HeadersLayer {
    headers: Arc<[(HeaderName, HeaderValue)]>,
}

impl HeadersLayer {
    pub(crate) fn new(headers: Vec<(HeaderName, HeaderValue)>) -> Self {
        Self {
            headers: headers.into(),
        }
    }
}

impl<S> tower::Layer<S> for HeadersLayer {
    type Service = HeadersService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        HeadersService {
            inner,
            headers: Arc::clone(&self.headers),
        }
    }
}

/// The service of [`HeadersLayer`].
#[derive(Clone, Debug)]
pub(crate) struct HeadersService<S> {
    inner: S,
    headers: Arc<[(HeaderName, HeaderValue)]>,
}

impl<S: StackService> HeadersService<S> {
    fn run(&mut self, mut req: http::Request<Body>) -> LayerFuture {
        let inner = take_ready(&mut self.inner);
        let preset: Vec<HeaderName> = self
            .headers
            .iter()
            .map(|(k, _)| k)
            .filter(|k| req.headers().contains_key(*k))
            .cloned()
            .collect();
        for (name, value) in self.headers.iter().filter(|(k, _)| !preset.contains(k)) {
            req.headers_mut().append(name.clone(), value.clone());
        }
        Box::pin(inner.oneshot(req))
    }
}

layer_service!(HeadersService);
