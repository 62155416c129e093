//! The network front: a plain TCP listener serving HTTP/1.1 and h2c (prior knowledge) on one port,
//! or TLS with ALPN `h2`/`http/1.1`.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use http::{Request, Response};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use rustls::ServerConfig;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;

use crate::body::SimBody;
use crate::shared::{OpenConnection, Shared};
use crate::status::ApiError;

/// Accepts connections until the task is aborted; aborting it drops every connection.
pub(crate) async fn serve(
    listener: TcpListener,
    shared: Arc<Shared>,
    tls: Option<Arc<ServerConfig>>,
) {
    let acceptor = tls.map(TlsAcceptor::from);
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    conns.spawn(connection(stream, shared.clone(), acceptor.clone()));
                }
                // Out of file descriptors and the like: back off briefly rather than spin.
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            },
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
}

async fn connection(stream: TcpStream, shared: Arc<Shared>, tls: Option<TlsAcceptor>) {
    let _open = OpenConnection::new(shared.clone());
    match tls {
        Some(acceptor) => {
            if let Ok(stream) = acceptor.accept(stream).await {
                serve_connection(TokioIo::new(stream), shared).await;
            }
        }
        None => serve_connection(TokioIo::new(stream), shared).await,
    }
}

/// Serves one connection to its end. A GOAWAY request ([`Shared::goaway`]) shuts it down
/// gracefully: HTTP/2 sends GOAWAY and lets the streams in flight finish; HTTP/1.1 closes after
/// the response in flight.
async fn serve_connection<I>(io: I, shared: Arc<Shared>)
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let mut goaway = shared.goaway.subscribe();
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http2()
        .initial_stream_window_size(4 << 20)
        .initial_connection_window_size(8 << 20)
        .max_concurrent_streams(shared.config.max_concurrent_streams);
    let service = service_fn(move |req: Request<Incoming>| {
        let shared = shared.clone();
        async move { Ok::<_, Infallible>(handle_incoming(shared, req).await) }
    });
    // A connection's errors (a client hanging up mid-stream) concern only that connection.
    let conn = builder.serve_connection(io, service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        changed = goaway.changed() => {
            if changed.is_ok() {
                conn.as_mut().graceful_shutdown();
            }
        }
    }
    let _ = conn.await;
}

async fn handle_incoming(shared: Arc<Shared>, req: Request<Incoming>) -> Response<SimBody> {
    let (parts, body) = req.into_parts();
    match body.collect().await {
        Ok(collected) => {
            crate::http::handle(shared, Request::from_parts(parts, collected.to_bytes())).await
        }
        Err(_) => ApiError::bad_request("could not read the request body").into_response(),
    }
}
