//! Forwarding proxies on loopback, for testing and benchmarking clients that reach the API
//! server through a proxy, as a kubeconfig's `proxy-url` or `HTTPS_PROXY` asks them to.
//!
//! - [`HttpProxy`]: an HTTP proxy: `CONNECT` tunnels and absolute-form requests (`GET
//!   http://host/path`), optionally over TLS (an `https://` proxy with its own generated CA) and
//!   requiring `Proxy-Authorization` credentials.
//! - [`Socks5Proxy`]: a SOCKS5 proxy (RFC 1928, `CONNECT` only), optionally requiring RFC 1929
//!   username/password authentication.
//!
//! Both listen on `127.0.0.1`, resolve [`PROXY_ONLY_HOST`] (`sim.test`) to `127.0.0.1` (a server
//! name only the proxy can resolve shows that a client left name resolution to the proxy), and
//! record what they saw in the [`ProxyHandle`] they return: the request heads, the tunnels asked
//! for, and the bytes relayed. Dropping the handle stops accepting; open tunnels live on until
//! either side closes.
//!
//! Bad input is answered, never a panic: a malformed request is `400`, missing or wrong
//! credentials `407` (SOCKS5: the method or authentication is refused), an unreachable target
//! `502` (SOCKS5: a failure reply), and the connection is closed. Each handshake (TLS to an
//! `https://` proxy, the request head or SOCKS5 negotiation, and the connection to the target)
//! must finish within [`HANDSHAKE_TIMEOUT`]; a request head may be at most 64 KiB; each list a
//! handle keeps holds at most [`MAX_RECORDED`] entries.
//!
//! # Examples
//! A `CONNECT` tunnel to the sim, by hand:
//! ```
//! use kinformer_sim::Sim;
//! use kinformer_sim::proxy::HttpProxy;
//! use tokio::io::{AsyncReadExt, AsyncWriteExt};
//!
//! # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let sim = Sim::builder().start().await?;
//! let proxy = HttpProxy::new().credentials("alice", "s3cret").start().await?;
//! let mut tunnel = tokio::net::TcpStream::connect(proxy.addr()).await?;
//! let target = sim.addr();
//! tunnel
//!     .write_all(
//!         format!(
//!             "CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\
//!              Proxy-Authorization: Basic YWxpY2U6czNjcmV0\r\n\r\n\
//!              GET /version HTTP/1.1\r\nHost: {target}\r\nConnection: close\r\n\r\n"
//!         )
//!         .as_bytes(),
//!     )
//!     .await?;
//! let mut answer = String::new();
//! tunnel.read_to_string(&mut answer).await?;
//! assert!(answer.starts_with("HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.1 200 OK"));
//! assert_eq!(proxy.connects(), [target.to_string()]);
//! assert!(proxy.bytes() > 0);
//! # Ok(()) }
//! ```

mod counted;
mod http;
mod socks5;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::task::AbortHandle;

pub use http::HttpProxy;
pub use socks5::Socks5Proxy;

use crate::{Error, Result};

/// The host name only these proxies resolve (to `127.0.0.1`).
pub const PROXY_ONLY_HOST: &str = "sim.test";

/// How long a client has to finish its handshake, and the proxy to reach the target, before the
/// connection is closed (a client that connects and says nothing must not hold a task forever).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// Entries kept in each of [`ProxyHandle::requests`] and [`ProxyHandle::connects`]; later ones
/// are counted in [`ProxyHandle::bytes`] but not listed, so a long run's memory stays bounded.
pub const MAX_RECORDED: usize = 10_000;

/// The pause after a failed `accept` (out of file descriptors, a connection reset before it was
/// accepted) before accepting again.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

/// A running proxy and what it saw; dropping it stops accepting new connections.
#[derive(Debug)]
pub struct ProxyHandle {
    url: String,
    addr: SocketAddr,
    ca_pem: Option<String>,
    seen: Arc<Seen>,
    accept: AbortHandle,
}

/// What a proxy saw, shared by its connections.
#[derive(Debug, Default)]
struct Seen {
    requests: Mutex<Vec<String>>,
    connects: Mutex<Vec<String>>,
    bytes: AtomicU64,
}

impl Seen {
    fn request(&self, head: String) {
        push(&self.requests, head);
    }

    fn connect(&self, target: String) {
        push(&self.connects, target);
    }
}

fn push(list: &Mutex<Vec<String>>, item: String) {
    // A panic while holding the lock cannot leave a Vec half-pushed; keep recording.
    let mut list = list.lock().unwrap_or_else(PoisonError::into_inner);
    if list.len() < MAX_RECORDED {
        list.push(item);
    }
}

fn snapshot(list: &Mutex<Vec<String>>) -> Vec<String> {
    list.lock().unwrap_or_else(PoisonError::into_inner).clone()
}

impl ProxyHandle {
    /// The address the proxy listens on (`127.0.0.1` and a free port).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The proxy's URL without credentials: `http://`, `https://` or `socks5://` and
    /// [`addr`](Self::addr), as a kubeconfig's `proxy-url` names it.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The PEM certificate of the CA that signed an `https://` proxy's certificate (for
    /// `127.0.0.1` and `localhost`); `None` for a plain proxy.
    pub fn ca_pem(&self) -> Option<&str> {
        self.ca_pem.as_deref()
    }

    /// Each request head an HTTP proxy read, in order, as the client sent it (a `CONNECT` or an
    /// absolute-form request, with its headers), including those refused for bad credentials.
    /// Empty for a SOCKS5 proxy. At most [`MAX_RECORDED`], the first ones.
    pub fn requests(&self) -> Vec<String> {
        snapshot(&self.seen.requests)
    }

    /// The `host:port` of each tunnel an authenticated client asked for, in order, as it named
    /// it (a name is not resolved first): HTTP `CONNECT`s and SOCKS5 `CONNECT`s, whether or not
    /// the target could be reached. At most [`MAX_RECORDED`], the first ones.
    pub fn connects(&self) -> Vec<String> {
        snapshot(&self.seen.connects)
    }

    /// Bytes relayed so far, both directions together (request heads and handshakes excluded;
    /// through an `https://` proxy, the bytes inside its TLS).
    pub fn bytes(&self) -> u64 {
        self.seen.bytes.load(Ordering::Relaxed)
    }
}

impl Drop for ProxyHandle {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// Where a proxy connects for `target` (`host:port`): [`PROXY_ONLY_HOST`] is `127.0.0.1`.
fn resolve(target: &str) -> String {
    match target.rsplit_once(':') {
        Some((host, port)) if host.eq_ignore_ascii_case(PROXY_ONLY_HOST) => {
            format!("127.0.0.1:{port}")
        }
        _ => target.to_owned(),
    }
}

/// Binds `127.0.0.1:0` and serves each accepted connection with `serve` on its own task.
async fn spawn_listener<F, Fut>(
    scheme: &str,
    ca_pem: Option<String>,
    serve: F,
) -> Result<ProxyHandle>
where
    F: Fn(tokio::net::TcpStream, Arc<Seen>) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(Error::Bind)?;
    let addr = listener.local_addr().map_err(Error::Bind)?;
    let seen = Arc::new(Seen::default());
    let shared = Arc::clone(&seen);
    let accept = tokio::spawn(async move {
        loop {
            match listener.accept().await {
                Ok((client, _)) => {
                    // Small writes (handshakes, HTTP/2 frames) must not wait for Nagle.
                    let _ = client.set_nodelay(true);
                    tokio::spawn(serve(client, Arc::clone(&shared)));
                }
                // Accept errors are about one connection or a passing shortage: keep serving.
                Err(_) => tokio::time::sleep(ACCEPT_RETRY).await,
            }
        }
    })
    .abort_handle();
    Ok(ProxyHandle {
        url: format!("{scheme}://{addr}"),
        addr,
        ca_pem,
        seen,
        accept,
    })
}

/// Relays between `client` and `upstream` until both directions end, counting the bytes.
async fn relay<C, U>(client: C, upstream: U, seen: &Seen)
where
    C: AsyncRead + AsyncWrite + Unpin,
    U: AsyncRead + AsyncWrite + Unpin,
{
    let mut client = counted::Counted::new(client, &seen.bytes);
    let mut upstream = counted::Counted::new(upstream, &seen.bytes);
    const BUFFER: usize = 64 * 1024;
    let _ =
        tokio::io::copy_bidirectional_with_sizes(&mut client, &mut upstream, BUFFER, BUFFER).await;
}

/// Connects to `target` as the proxy resolves it, without Nagle.
async fn connect_upstream(target: &str) -> std::io::Result<tokio::net::TcpStream> {
    let upstream = tokio::net::TcpStream::connect(resolve(target)).await?;
    upstream.set_nodelay(true)?;
    Ok(upstream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_lists_stop_growing_at_the_cap() {
        let list = Mutex::new(Vec::new());
        for i in 0..MAX_RECORDED + 5 {
            push(&list, i.to_string());
        }
        let kept = snapshot(&list);
        assert_eq!(kept.len(), MAX_RECORDED);
        assert_eq!(kept[0], "0");
    }

    #[test]
    fn only_the_proxy_only_host_is_rewritten() {
        assert_eq!(resolve("sim.test:6443"), "127.0.0.1:6443");
        assert_eq!(resolve("SIM.test:1"), "127.0.0.1:1");
        assert_eq!(resolve("example.com:443"), "example.com:443");
        assert_eq!(resolve("[::1]:443"), "[::1]:443");
    }
}
