//! The in-process transport: a `tower_service::Service` that serves requests without a socket.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use http::{Request, Response};
use http_body::Body;
use http_body_util::BodyExt;

use crate::body::SimBody;
use crate::shared::Shared;
use crate::{Error, Result};

/// Serves API and control requests in-process, exactly as the network server would, so a REST
/// client built on `tower::Service<http::Request<B>>` can talk to the simulator without a socket.
///
/// Request URIs may be absolute (`http://sim/api/v1/pods`) or just a path; only the path and query
/// matter. Authentication applies as over the network: send `Authorization: Bearer <token>` when the
/// simulator was started with a token. Watch responses stream: poll the [`SimBody`] for frames.
///
/// # Examples
/// ```
/// use http_body_util::BodyExt;
/// use tower_service::Service;
///
/// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let sim = kinformer_sim::Sim::builder().pods(3).start().await?;
/// let mut svc = sim.service();
/// let req = http::Request::get("/api/v1/pods").body(http_body_util::Empty::<bytes::Bytes>::new())?;
/// let resp = svc.call(req).await?;
/// assert_eq!(resp.status(), 200);
/// let body = resp.into_body().collect().await?.to_bytes();
/// let list: serde_json::Value = serde_json::from_slice(&body)?;
/// assert_eq!(list["items"].as_array().map(Vec::len), Some(3));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct SimService {
    shared: Arc<Shared>,
}

impl SimService {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        Self { shared }
    }
}

impl<B> tower_service::Service<Request<B>> for SimService
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<SimBody>;
    type Error = Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response<SimBody>>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let shared = self.shared.clone();
        Box::pin(async move {
            let (parts, body) = req.into_parts();
            let bytes = body
                .collect()
                .await
                .map_err(|e| Error::Body(e.into()))?
                .to_bytes();
            Ok(crate::http::handle(shared, Request::from_parts(parts, bytes)).await)
        })
    }
}
