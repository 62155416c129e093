//! Sets `User-Agent` on requests that have none.

use http::HeaderValue;
use http::header::USER_AGENT;
use tower::ServiceExt;

use super::{LayerFuture, StackService, layer_service, take_ready};
use crate::body::Body;

/// `kinformer/<version> (<os>/<arch>)`, in client-go's shape.
pub fn default_user_agent() -> String {
    format!(
        "kinformer/{} ({}/{})",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}

/// Adds a `User-Agent` header unless the request already has one.
#[derive(Clone, Debug)]
pub struct UserAgentLayer {
    value: HeaderValue,
}

impl UserAgentLayer {
    /// A layer sending `user_agent` (invalid header characters fall back to the default).
    pub fn new(user_agent: &str) -> Self {
        let value = HeaderValue::try_from(user_agent)
            .or_else(|_| HeaderValue::try_from(default_user_agent()))
            .unwrap_or(HeaderValue::from_static("kinformer"));
        Self { value }
    }
}

impl<S> tower::Layer<S> for UserAgentLayer {
    type Service = UserAgentService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        UserAgentService {
            inner,
            value: self.value.clone(),
        }
    }
}

/// The service of [`UserAgentLayer`].
#[derive(Clone, Debug)]
pub struct UserAgentService<S> {
    inner: S,
    value: HeaderValue,
}

impl<S: StackService> UserAgentService<S> {
    fn run(&mut self, mut req: http::Request<Body>) -> LayerFuture {
        let inner = take_ready(&mut self.inner);
        req.headers_mut()
            .entry(USER_AGENT)
            .or_insert_with(|| self.value.clone());
        Box::pin(inner.oneshot(req))
    }
}

layer_service!(UserAgentService);
