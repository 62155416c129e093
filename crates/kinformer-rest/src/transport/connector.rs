//! [`Connector`]: TCP (hyper-util's `HttpConnector`), through a proxy when one applies, plus
//! rustls for `https://`.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioIo;
use rustls_pki_types::ServerName;
use tokio_rustls::TlsConnector;

use super::pool::Capacity;
use super::proxy::{Link, ProxyDialer, Target};
use super::single_h2::SingleH2;
use super::stream::{H2Tap, Stream, Tapped};
use crate::error::{BoxError, Error, Kind};

/// TLS handshakes that take longer than this fail (client-go's `TLSHandshakeTimeout`).
const TLS_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Clone)]
pub(crate) struct Connector {
    http: HttpConnector,
    tls: TlsConnector,
    server_name: Option<ServerName<'static>>,
    proxy: ProxyDialer,
    /// Set when ALPN offers `h2`: TLS dials then take turns (see [`SingleH2`]).
    single_h2: Option<Arc<SingleH2>>,
    /// Cleartext connections speak HTTP/2 (prior knowledge).
    plain_h2: bool,
    /// Where each connection reports how many concurrent requests it takes.
    capacity: Arc<Capacity>,
}

impl Connector {
    pub(crate) fn new(
        connect_timeout: Duration,
        tls: Arc<rustls::ClientConfig>,
        server_name: Option<ServerName<'static>>,
        proxy: ProxyDialer,
        plain_h2: bool,
        capacity: Arc<Capacity>,
    ) -> Self {
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_connect_timeout(Some(connect_timeout));
        http.set_keepalive(Some(Duration::from_secs(30)));
        http.set_nodelay(true);
        let offers_h2 = tls.alpn_protocols.iter().any(|p| p == b"h2");
        Self {
            http,
            single_h2: offers_h2.then(Arc::default),
            tls: TlsConnector::from(tls),
            server_name,
            proxy,
            plain_h2,
            capacity,
        }
    }
}

impl tower::Service<http::Uri> for Connector {
    type Response = Stream;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Stream, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        tower::Service::<http::Uri>::poll_ready(&mut self.http, cx).map_err(Into::into)
    }

    fn call(&mut self, uri: http::Uri) -> Self::Future {
        let https = uri.scheme() == Some(&http::uri::Scheme::HTTPS);
        let name = match (&self.server_name, uri.host()) {
            (Some(n), _) => Ok(n.clone()),
            (None, Some(host)) => super::tls::server_name(host),
            (None, None) => Err(Error::new(Kind::Config, "the server URL has no host")),
        };
        let tls = self.tls.clone();
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let host = uri
            .host()
            .map(|h| h.trim_start_matches('[').trim_end_matches(']').to_owned());
        let target = host
            .as_deref()
            .map(|host| super::proxy::host_port(host, port));
        let dialer = self.proxy.clone();
        let route = host
            .as_deref()
            .and_then(|host| dialer.route(&Target { host, port, https }));
        let dial = route
            .as_ref()
            .map_or_else(|| uri.clone(), |p| p.dial.clone());
        // Dialled inside the future, after this dial's turn; `HttpConnector` is always ready.
        let mut http = self.http.clone();
        let single_h2 = self.single_h2.clone().filter(|_| https);
        let capacity = Arc::clone(&self.capacity);
        let plain_h2 = self.plain_h2;
        Box::pin(async move {
            let turn = match &single_h2 {
                Some(gate) => Some(gate.turn().await?),
                None => None,
            };
            let tcp = tower::Service::<http::Uri>::call(&mut http, dial)
                .await?
                .into_inner();
            let (link, forwarded) = match (&route, host.as_deref()) {
                (Some(proxy), Some(host)) => {
                    let target = Target { host, port, https };
                    dialer.open(proxy, tcp, &target).await?
                }
                _ => (Link::Tcp(tcp), false),
            };
            if !https {
                let tap = if plain_h2 {
                    Some(H2Tap::new(capacity, None))
                } else {
                    capacity.http1();
                    None
                };
                let link = Tapped::new(link, tap);
                return Ok(Stream::Plain(TokioIo::new(link), forwarded));
            }
            let name = name?;
            let handshake = tls.connect(name, link);
            let stream = tokio::time::timeout(TLS_HANDSHAKE_TIMEOUT, handshake)
                .await
                .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "TLS handshake timed out"))?
                .map_err(|e| handshake_error(e, target.as_deref()))?;
            let tap = if stream.get_ref().1.alpn_protocol() == Some(b"h2") {
                Some(H2Tap::new(capacity, single_h2.map(|gate| gate.alive())))
            } else {
                capacity.http1();
                None
            };
            drop(turn);
            Ok(Stream::Tls(Box::new(TokioIo::new(Tapped::new(
                stream, tap,
            )))))
        })
    }
}

/// A failed handshake, named as one: a certificate problem (unknown authority, expired, issued
/// for another name) carries the `rustls::Error`, so [`Error::is_tls`] sees it.
fn handshake_error(err: io::Error, target: Option<&str>) -> BoxError {
    let message = format!(
        "TLS handshake with {} failed",
        target.unwrap_or("the server")
    );
    let err: BoxError = if err.get_ref().is_some_and(|e| e.is::<rustls::Error>()) {
        err.into_inner().unwrap_or_else(|| message.clone().into())
    } else {
        err.into()
    };
    Error::new(Kind::Transport, message).with_source(err).into()
}
