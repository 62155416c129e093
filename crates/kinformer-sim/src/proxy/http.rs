//! An HTTP proxy: `CONNECT` tunnels and absolute-form forwarding, optionally over TLS and
//! behind `Proxy-Authorization`.

use std::sync::Arc;

use base64::Engine as _;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::timeout;
use tokio_rustls::TlsAcceptor;

use super::{HANDSHAKE_TIMEOUT, ProxyHandle, Seen, connect_upstream, relay, spawn_listener};
use crate::Result;

/// Request heads longer than this are refused (a real client's are a few hundred bytes).
const MAX_HEAD: usize = 64 * 1024;

/// Headers about the hop to the proxy, not passed on to the server (RFC 9110 §7.6.1).
/// `Transfer-Encoding` stays: the body is relayed as the client framed it.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "upgrade",
];

/// Builds an HTTP proxy; [`start`](Self::start) runs it.
#[derive(Debug, Clone, Default)]
pub struct HttpProxy {
    tls: bool,
    authorization: Option<String>,
}

impl HttpProxy {
    /// A plain `http://` proxy that asks for no credentials.
    pub fn new() -> Self {
        Self::default()
    }

    /// Serve TLS (an `https://` proxy), with a certificate for `127.0.0.1` and `localhost` signed
    /// by a CA generated for this proxy alone ([`ProxyHandle::ca_pem`]). It offers only
    /// HTTP/1.1 by ALPN: a proxy's own protocol is HTTP/1.1 whatever the tunnel carries.
    pub fn tls(mut self, tls: bool) -> Self {
        self.tls = tls;
        self
    }

    /// Answer `407 Proxy Authentication Required` unless the request carries
    /// `Proxy-Authorization: Basic base64(user:password)`.
    pub fn credentials(mut self, user: &str, password: &str) -> Self {
        let encoded =
            base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
        self.authorization = Some(format!("Basic {encoded}"));
        self
    }

    /// Listens on `127.0.0.1` and a free port and serves until the handle is dropped.
    ///
    /// `CONNECT host:port` opens a tunnel. An absolute-form request (`GET http://host/path`) is
    /// passed on in origin form, without the proxy's own headers, as the only request of its
    /// connection (`Connection: close`, so the client opens another for the next).
    ///
    /// # Errors
    /// [`Error::Bind`](crate::Error::Bind) if the port cannot be bound,
    /// [`Error::Tls`](crate::Error::Tls) if the certificates cannot be generated.
    pub async fn start(self) -> Result<ProxyHandle> {
        let (acceptor, ca_pem) = if self.tls {
            let material = crate::tls::generate()?;
            let mut config = (*material.config).clone();
            config.alpn_protocols = vec![b"http/1.1".to_vec()];
            (
                Some(TlsAcceptor::from(Arc::new(config))),
                Some(material.ca_pem),
            )
        } else {
            (None, None)
        };
        let scheme = if self.tls { "https" } else { "http" };
        let authorization: Arc<Option<String>> = Arc::new(self.authorization);
        spawn_listener(scheme, ca_pem, move |client, seen| {
            let acceptor = acceptor.clone();
            let authorization = Arc::clone(&authorization);
            async move {
                match acceptor {
                    Some(acceptor) => {
                        if let Ok(Ok(tls)) =
                            timeout(HANDSHAKE_TIMEOUT, acceptor.accept(client)).await
                        {
                            serve(tls, &seen, authorization.as_deref()).await;
                        }
                    }
                    None => serve(client, &seen, authorization.as_deref()).await,
                }
            }
        })
        .await
    }
}

/// Serves one client connection: the handshake within [`HANDSHAKE_TIMEOUT`], then the relay.
async fn serve<S>(mut client: S, seen: &Seen, authorization: Option<&str>)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let handshake = timeout(
        HANDSHAKE_TIMEOUT,
        handshake(&mut client, seen, authorization),
    );
    if let Ok(Some(upstream)) = handshake.await {
        relay(client, upstream, seen).await;
    }
}

/// What a request head asks the proxy to do.
#[derive(Debug, PartialEq, Eq)]
enum Route {
    /// `CONNECT`: a tunnel to this `host:port`, as the client named it.
    Tunnel(String),
    /// An absolute-form request: send `head` (rewritten in origin form) to `authority`.
    Forward { authority: String, head: String },
}

/// Reads the request head, checks the credentials, and connects to the target; `None` when the
/// client was refused (the answer is written) or went away.
async fn handshake<S>(client: &mut S, seen: &Seen, authorization: Option<&str>) -> Option<TcpStream>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let head = read_head(client).await?;
    let text = String::from_utf8_lossy(&head).into_owned();
    seen.request(text.clone());
    if authorization.is_some() && header(&text, "Proxy-Authorization") != authorization {
        refuse(client, "407 Proxy Authentication Required").await;
        return None;
    }
    let route = match route(&text) {
        Ok(route) => route,
        Err(status) => {
            refuse(client, status).await;
            return None;
        }
    };
    match route {
        Route::Tunnel(target) => {
            seen.connect(target.clone());
            let Ok(upstream) = connect_upstream(&target).await else {
                refuse(client, "502 Bad Gateway").await;
                return None;
            };
            client
                .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                .await
                .ok()?;
            Some(upstream)
        }
        Route::Forward { authority, head } => {
            let Ok(mut upstream) = connect_upstream(&authority).await else {
                refuse(client, "502 Bad Gateway").await;
                return None;
            };
            upstream.write_all(head.as_bytes()).await.ok()?;
            Some(upstream)
        }
    }
}

/// Answers `status` (for example `400 Bad Request`) with no body and closes.
async fn refuse<S: AsyncWrite + Unpin>(client: &mut S, status: &str) {
    let answer = format!("HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    let _ = client.write_all(answer.as_bytes()).await;
    let _ = client.shutdown().await;
}

/// Reads one request head (through the blank line) without reading past it: whatever follows
/// belongs to the tunnel or the forwarded request.
async fn read_head<S: AsyncRead + Unpin>(client: &mut S) -> Option<Vec<u8>> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() >= MAX_HEAD || client.read(&mut byte).await.ok()? == 0 {
            return None;
        }
        head.push(byte[0]);
    }
    Some(head)
}

/// The value of the first header `name` (any case) in `head`, trimmed.
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().skip(1).find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

/// Where the request in `head` goes, or the status refusing it.
fn route(head: &str) -> std::result::Result<Route, &'static str> {
    const BAD: &str = "400 Bad Request";
    let request_line = head.lines().next().ok_or(BAD)?;
    let mut words = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return Err(BAD);
    };
    if !version.starts_with("HTTP/1.") {
        return Err("505 HTTP Version Not Supported");
    }
    if method == "CONNECT" {
        // authority-form: host and port, nothing else.
        let authority = target.parse::<http::uri::Authority>().map_err(|_| BAD)?;
        if authority.port_u16().is_none() || target.contains('@') {
            return Err(BAD);
        }
        return Ok(Route::Tunnel(target.to_owned()));
    }
    let uri = target.parse::<http::Uri>().map_err(|_| BAD)?;
    // Only plain HTTP is forwarded: an `https://` server is reached through `CONNECT`.
    if uri.scheme_str() != Some("http") {
        return Err(BAD);
    }
    let host = uri.host().ok_or(BAD)?;
    let authority = format!("{host}:{}", uri.port_u16().unwrap_or(80));
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    let mut forwarded = format!("{method} {path} {version}\r\n");
    for line in head.split("\r\n").skip(1).take_while(|l| !l.is_empty()) {
        let name = line.split_once(':').map_or(line, |(name, _)| name).trim();
        if !HOP_BY_HOP.iter().any(|h| h.eq_ignore_ascii_case(name)) {
            forwarded.push_str(line);
            forwarded.push_str("\r\n");
        }
    }
    forwarded.push_str("Connection: close\r\n\r\n");
    Ok(Route::Forward {
        authority,
        head: forwarded,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_names_match_in_any_case() {
        let head = "CONNECT a:1 HTTP/1.1\r\nproxy-authorization:  Basic eA==\r\n\r\n";
        assert_eq!(header(head, "Proxy-Authorization"), Some("Basic eA=="));
        assert_eq!(header(head, "Host"), None);
    }

    #[test]
    fn connect_names_a_host_and_port() {
        assert_eq!(
            route("CONNECT sim.test:6443 HTTP/1.1\r\nHost: sim.test:6443\r\n\r\n"),
            Ok(Route::Tunnel("sim.test:6443".to_owned()))
        );
        assert_eq!(
            route("CONNECT [::1]:443 HTTP/1.1\r\n\r\n"),
            Ok(Route::Tunnel("[::1]:443".to_owned()))
        );
        for bad in [
            "CONNECT sim.test HTTP/1.1\r\n\r\n",
            "CONNECT http://sim.test:1/ HTTP/1.1\r\n\r\n",
            "CONNECT u@sim.test:1 HTTP/1.1\r\n\r\n",
            "CONNECT sim.test:99999 HTTP/1.1\r\n\r\n",
            "CONNECT sim.test:1\r\n\r\n",
            "CONNECT  sim.test:1 HTTP/1.1\r\n\r\n",
            "\r\n\r\n",
            "",
        ] {
            assert_eq!(route(bad), Err("400 Bad Request"), "{bad:?}");
        }
        assert_eq!(
            route("CONNECT a:1 HTTP/2\r\n\r\n"),
            Err("505 HTTP Version Not Supported")
        );
    }

    #[test]
    fn absolute_form_is_forwarded_in_origin_form_without_proxy_headers() {
        let head = "GET http://127.0.0.1:8080/api/v1/pods?limit=5 HTTP/1.1\r\n\
                    Host: 127.0.0.1:8080\r\nProxy-Authorization: Basic eA==\r\n\
                    proxy-connection: keep-alive\r\nConnection: keep-alive\r\n\
                    Accept: application/json\r\n\r\n";
        assert_eq!(
            route(head),
            Ok(Route::Forward {
                authority: "127.0.0.1:8080".to_owned(),
                head: "GET /api/v1/pods?limit=5 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\
                       Accept: application/json\r\nConnection: close\r\n\r\n"
                    .to_owned(),
            })
        );
        let Ok(Route::Forward { authority, head }) = route("GET http://sim.test HTTP/1.0\r\n\r\n")
        else {
            panic!("a URL without a port or path is forwarded");
        };
        assert_eq!(authority, "sim.test:80");
        assert_eq!(head, "GET / HTTP/1.0\r\nConnection: close\r\n\r\n");
    }

    #[test]
    fn only_plain_http_urls_are_forwarded() {
        for bad in [
            "GET https://sim.test/ HTTP/1.1\r\n\r\n",
            "GET /relative HTTP/1.1\r\n\r\n",
            "GET ftp://sim.test/ HTTP/1.1\r\n\r\n",
            "GET http:// HTTP/1.1\r\n\r\n",
        ] {
            assert_eq!(route(bad), Err("400 Bad Request"), "{bad:?}");
        }
    }

    async fn exchange(proxy: &ProxyHandle, request: &str) -> String {
        let mut client = TcpStream::connect(proxy.addr()).await.unwrap();
        client.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        client.read_to_string(&mut answer).await.unwrap();
        answer
    }

    #[tokio::test]
    async fn bad_requests_are_answered_and_closed() {
        let proxy = HttpProxy::new().start().await.unwrap();
        let answer = exchange(&proxy, "CONNECT nowhere HTTP/1.1\r\n\r\n").await;
        assert!(
            answer.starts_with("HTTP/1.1 400 Bad Request\r\n"),
            "{answer}"
        );

        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let target = closed.local_addr().unwrap().to_string();
        drop(closed);
        let answer = exchange(&proxy, &format!("CONNECT {target} HTTP/1.1\r\n\r\n")).await;
        assert!(
            answer.starts_with("HTTP/1.1 502 Bad Gateway\r\n"),
            "{answer}"
        );
        assert_eq!(proxy.connects(), [target]);
        assert_eq!(proxy.requests().len(), 2);
        assert_eq!(proxy.bytes(), 0);
    }

    #[tokio::test]
    async fn wrong_credentials_are_407() {
        let proxy = HttpProxy::new()
            .credentials("a", "b")
            .start()
            .await
            .unwrap();
        let answer = exchange(
            &proxy,
            "CONNECT sim.test:1 HTTP/1.1\r\nProxy-Authorization: Basic YTpj\r\n\r\n",
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 407 "), "{answer}");
        assert!(proxy.connects().is_empty());
    }
}
