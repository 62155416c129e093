//! `--metrics ADDR`: the informer's and the client's Prometheus metrics over HTTP, at `/metrics`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response, StatusCode, header};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use kinformer::informer::Metrics;
use kinformer_reflector::{Counters, ReflectorMetrics};
use prometheus_client::registry::Registry;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// The text exposition format's content type.
const TEXT_FORMAT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Serves `registry` at `http://ADDR/metrics` until the task is aborted; returns the bound
/// address (port 0 picks a free one) and the task.
pub(crate) async fn serve(
    addr: SocketAddr,
    registry: Arc<Registry>,
) -> std::io::Result<(SocketAddr, JoinHandle<()>)> {
    let listener = TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    let task = tokio::spawn(async move {
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of file descriptors, say: wait, and keep serving.
                    tracing::warn!(%error, "metrics endpoint could not accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let registry = Arc::clone(&registry);
            tokio::spawn(async move {
                let service = service_fn(move |request: Request<Incoming>| {
                    std::future::ready(Ok::<_, Infallible>(respond(&registry, &request)))
                });
                let served = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
                if let Err(error) = served {
                    tracing::debug!(%error, "metrics connection ended");
                }
            });
        }
    });
    Ok((bound, task))
}

fn respond(registry: &Registry, request: &Request<Incoming>) -> Response<Full<Bytes>> {
    if request.uri().path() != "/metrics" {
        return plain(StatusCode::NOT_FOUND, "not found: try /metrics\n".into());
    }
    let mut text = String::new();
    match prometheus_client::encoding::text::encode(&mut text, registry) {
        Ok(()) => {
            let mut ok = plain(StatusCode::OK, text);
            ok.headers_mut().insert(
                header::CONTENT_TYPE,
                header::HeaderValue::from_static(TEXT_FORMAT),
            );
            ok
        }
        Err(error) => plain(StatusCode::INTERNAL_SERVER_ERROR, format!("{error}\n")),
    }
}

fn plain(status: StatusCode, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response
}

/// The mirror's own counters (for its report) and the exported metrics, fed together.
pub(crate) struct Both {
    pub(crate) counters: Arc<Counters>,
    pub(crate) exported: Arc<dyn Metrics>,
}

impl ReflectorMetrics for Both {
    fn list_started(&self, relist: bool) {
        self.counters.list_started(relist);
        self.exported.list_started(relist);
    }
    fn list_done(&self, took: Duration, items: usize) {
        self.exported.list_done(took, items);
    }
    fn watch_started(&self) {
        self.counters.watch_started();
        self.exported.watch_started();
    }
    fn short_watch(&self) {
        self.counters.short_watch();
        self.exported.short_watch();
    }
    fn watch_done(&self, took: Duration, objects: u64) {
        self.exported.watch_done(took, objects);
    }
    fn event(&self) {
        self.counters.event();
        self.exported.event();
    }
    fn last_resource_version(&self, resource_version: &str) {
        self.counters.last_resource_version(resource_version);
        self.exported.last_resource_version(resource_version);
    }
}

impl Metrics for Both {
    fn processed(&self, latency: Duration, queued: usize, stored: usize, resource_version: &str) {
        self.exported
            .processed(latency, queued, stored, resource_version);
    }
}
