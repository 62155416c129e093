//! [`Probes`]: `/healthz`, `/readyz` and `/metrics` over HTTP (feature `server`).

use std::convert::Infallible;
use std::fmt;
use std::net::SocketAddr;
#[cfg(feature = "prometheus")]
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response, StatusCode, header};
use http_body_util::Full;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::Health;

/// The text exposition format's content type.
#[cfg(feature = "prometheus")]
const TEXT_FORMAT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// What a controller process serves for its kubelet probes and its metrics scraper:
/// `/healthz` (alive: always `ok` while the process serves), `/readyz` (200 once every
/// [`Health`] check is ready, else 503 naming the failing ones; `?verbose` lists them all) and,
/// with feature `prometheus` and [`with_metrics`](Self::with_metrics), `/metrics`.
///
/// ```
/// use kinformer_runtime::{Health, Probes};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let health = Health::new();
/// let caches = health.check("caches");
/// let server = Probes::new(health).serve("127.0.0.1:0".parse()?).await?;
/// // A pod's readinessProbe: GET /readyz on server.local_addr().port()
/// caches.set_ready(true);
/// drop(server); // stops serving
/// # Ok(()) }
/// ```
pub struct Probes {
    health: Health,
    #[cfg(feature = "prometheus")]
    registry: Option<Arc<prometheus_client::registry::Registry>>,
}

impl Probes {
    /// Probes reporting `health`, without metrics.
    pub fn new(health: Health) -> Self {
        Self {
            health,
            #[cfg(feature = "prometheus")]
            registry: None,
        }
    }

    /// Serves `registry` at `/metrics` (the controller's, the work queue's, the informers'
    /// and `rest_client_*` metrics, as registered there).
    #[cfg(feature = "prometheus")]
    #[cfg_attr(docsrs, doc(cfg(feature = "prometheus")))]
    #[must_use]
    pub fn with_metrics(mut self, registry: Arc<prometheus_client::registry::Registry>) -> Self {
        self.registry = Some(registry);
        self
    }

    /// Listens on `addr` (port 0 picks a free one) and serves until the returned
    /// [`ProbeServer`] is dropped.
    ///
    /// # Errors
    /// The address cannot be bound.
    pub async fn serve(self, addr: SocketAddr) -> std::io::Result<ProbeServer> {
        let listener = TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        let probes = std::sync::Arc::new(self);
        let task = tokio::spawn(async move {
            loop {
                let stream = match listener.accept().await {
                    Ok((stream, _)) => stream,
                    Err(error) => {
                        // Out of file descriptors, say: wait, and keep serving.
                        tracing::warn!(%error, "the probe server could not accept a connection");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                let probes = std::sync::Arc::clone(&probes);
                tokio::spawn(async move {
                    let service = service_fn(move |request: Request<hyper::body::Incoming>| {
                        std::future::ready(Ok::<_, Infallible>(probes.respond(&request)))
                    });
                    let served = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                    if let Err(error) = served {
                        tracing::debug!(%error, "a probe connection ended");
                    }
                });
            }
        });
        Ok(ProbeServer { local_addr, task })
    }

    fn respond<B>(&self, request: &Request<B>) -> Response<Full<Bytes>> {
        let verbose = request.uri().query().is_some_and(|q| {
            q.split('&')
                .any(|p| p == "verbose" || p.starts_with("verbose="))
        });
        match request.uri().path() {
            "/healthz" | "/livez" => text(StatusCode::OK, "ok".to_owned()),
            "/readyz" => {
                let ready = self.health.is_ready();
                let report = self.health.report(verbose);
                if ready && !verbose {
                    text(StatusCode::OK, "ok".to_owned())
                } else if ready {
                    text(StatusCode::OK, report)
                } else {
                    text(StatusCode::SERVICE_UNAVAILABLE, report)
                }
            }
            #[cfg(feature = "prometheus")]
            "/metrics" if self.registry.is_some() => self.metrics(),
            _ => text(StatusCode::NOT_FOUND, "404 page not found\n".to_owned()),
        }
    }

    #[cfg(feature = "prometheus")]
    fn metrics(&self) -> Response<Full<Bytes>> {
        let mut out = String::new();
        let encoded = self.registry.as_deref().map_or(Ok(()), |r| {
            prometheus_client::encoding::text::encode(&mut out, r)
        });
        match encoded {
            Ok(()) => {
                let mut response = text(StatusCode::OK, out);
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    header::HeaderValue::from_static(TEXT_FORMAT),
                );
                response
            }
            Err(error) => text(StatusCode::INTERNAL_SERVER_ERROR, format!("{error}\n")),
        }
    }
}

impl fmt::Debug for Probes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Probes")
            .field("health", &self.health)
            .finish_non_exhaustive()
    }
}

fn text(status: StatusCode, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// A running [`Probes`] server; dropping it stops serving.
#[derive(Debug)]
pub struct ProbeServer {
    local_addr: SocketAddr,
    task: JoinHandle<()>,
}

impl ProbeServer {
    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }
}

impl Drop for ProbeServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(probes: &Probes, uri: &str) -> (StatusCode, String) {
        use http_body_util::BodyExt as _;
        let response = probes.respond(&Request::get(uri).body(()).unwrap());
        let status = response.status();
        let body = futures_executor_block_on(response.into_body().collect());
        (
            status,
            String::from_utf8(body.unwrap().to_bytes().to_vec()).unwrap(),
        )
    }

    /// The body is `Full`: it is complete on the first poll.
    fn futures_executor_block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn probes_answer_as_kube_components_do() {
        let health = Health::new();
        let caches = health.check("caches");
        let probes = Probes::new(health);
        assert_eq!(get(&probes, "/healthz"), (StatusCode::OK, "ok".into()));
        assert_eq!(
            get(&probes, "/readyz"),
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "[-]caches failed: not ready\nreadyz check failed\n".into()
            )
        );
        caches.set_ready(true);
        assert_eq!(get(&probes, "/readyz"), (StatusCode::OK, "ok".into()));
        assert_eq!(
            get(&probes, "/readyz?verbose"),
            (StatusCode::OK, "[+]caches ok\nreadyz check passed\n".into())
        );
        assert_eq!(get(&probes, "/nothing").0, StatusCode::NOT_FOUND);
    }
}
