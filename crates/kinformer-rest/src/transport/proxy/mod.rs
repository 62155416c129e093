//! Proxies as client-go reads them: a kubeconfig `proxy-url` (`http://`, `https://`,
//! `socks5://`) for every request, otherwise `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY`
//! ([`ProxyEnv`]).
//!
//! An `http(s)://` proxy carries `https://` servers in a `CONNECT` tunnel and `http://` ones as
//! absolute-form requests; a SOCKS5 proxy carries both. The server's TLS (and its ALPN `h2`)
//! runs inside the tunnel, end to end.

mod connect;
mod env;
mod link;
mod socks5;
mod url;

use std::sync::Arc;
use std::time::Duration;

use rustls_pki_types::ServerName;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

pub use env::ProxyEnv;
pub(crate) use link::Link;
pub(crate) use url::{ProxyUrl, host_port};

use env::EnvProxies;
use url::ProxyScheme;

use crate::error::{Error, Kind, Result};

/// Go's bound on a proxy `CONNECT` when the request sets none; here on every proxy handshake.
const PROXY_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(60);

/// Which proxy, if any, a connection goes through.
#[derive(Clone, Debug)]
pub(crate) enum Proxies {
    /// The kubeconfig's `proxy-url`: every request, whatever `NO_PROXY` says (client-go's
    /// `http.ProxyURL`).
    Fixed(Arc<ProxyUrl>),
    /// The environment's.
    Env(Arc<EnvProxies>),
}

impl Proxies {
    /// `proxy_url` when set; else the environment `env` returns (read only then).
    pub(crate) fn new(proxy_url: Option<&str>, env: impl FnOnce() -> ProxyEnv) -> Result<Self> {
        Ok(match proxy_url.filter(|u| !u.is_empty()) {
            Some(url) => Self::Fixed(Arc::new(ProxyUrl::parse_setting(url)?)),
            None => Self::Env(Arc::new(env().resolve())),
        })
    }

    /// The proxy for a server at `host` (no brackets) and `port`.
    pub(crate) fn for_target(&self, https: bool, host: &str, port: u16) -> Option<&ProxyUrl> {
        match self {
            Self::Fixed(proxy) => Some(proxy.as_ref()),
            Self::Env(env) => env.for_target(https, host, port),
        }
    }

    /// The `Proxy-Authorization` header absolute-form requests to an `http://` server at `host`
    /// and `port` carry (Go sets it on each request sent to an HTTP proxy).
    pub(crate) fn forwarding_authorization(&self, host: &str, port: u16) -> Option<String> {
        let proxy = self.for_target(false, host, port)?;
        if proxy.scheme == ProxyScheme::Socks5 {
            return None;
        }
        proxy.credentials.as_ref().map(connect::basic_authorization)
    }
}

/// Opens connections through proxies.
#[derive(Clone)]
pub(crate) struct ProxyDialer {
    proxies: Proxies,
    /// For `https://` proxies: the cluster's TLS settings (roots, client certificate,
    /// verification), as Go clones the transport's for the proxy, offering HTTP/1.1 only.
    tls: TlsConnector,
}

/// Where a connection goes in the end.
pub(crate) struct Target<'a> {
    /// No brackets around an IPv6 address.
    pub(crate) host: &'a str,
    pub(crate) port: u16,
    pub(crate) https: bool,
}

impl ProxyDialer {
    pub(crate) fn new(proxies: Proxies, cluster_tls: &rustls::ClientConfig) -> Self {
        let mut tls = cluster_tls.clone();
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        Self {
            proxies,
            tls: TlsConnector::from(Arc::new(tls)),
        }
    }

    /// The proxy a connection to `target` goes through, if any.
    pub(crate) fn route(&self, target: &Target<'_>) -> Option<ProxyUrl> {
        self.proxies
            .for_target(target.https, target.host, target.port)
            .cloned()
    }

    /// Turns `tcp`, a connection to `proxy`, into a link to `target`; `true` when requests are
    /// to be sent to the proxy in absolute form (an `http://` server behind an HTTP proxy).
    pub(crate) async fn open(
        &self,
        proxy: &ProxyUrl,
        tcp: TcpStream,
        target: &Target<'_>,
    ) -> Result<(Link, bool)> {
        tokio::time::timeout(PROXY_HANDSHAKE_TIMEOUT, self.handshake(proxy, tcp, target))
            .await
            .map_err(|_| {
                Error::new(
                    Kind::Transport,
                    format!("the handshake with the proxy {proxy} timed out"),
                )
                .with_source(std::io::Error::from(std::io::ErrorKind::TimedOut))
            })?
    }

    async fn handshake(
        &self,
        proxy: &ProxyUrl,
        mut tcp: TcpStream,
        target: &Target<'_>,
    ) -> Result<(Link, bool)> {
        let mut link = match proxy.scheme {
            ProxyScheme::Socks5 => {
                socks5::connect(&mut tcp, proxy, target.host, target.port).await?;
                return Ok((Link::Tcp(tcp), false));
            }
            ProxyScheme::Http => Link::Tcp(tcp),
            ProxyScheme::Https => {
                let name = proxy_server_name(&proxy.host)?;
                let tls = self.tls.connect(name, tcp).await.map_err(|e| {
                    Error::new(
                        Kind::Transport,
                        format!("TLS handshake with the proxy {proxy} failed"),
                    )
                    .with_source(e)
                })?;
                Link::ProxyTls(Box::new(tls))
            }
        };
        if !target.https {
            return Ok((link, true));
        }
        let authority = url::host_port(target.host, target.port);
        connect::tunnel(&mut link, proxy, &authority).await?;
        Ok((link, false))
    }
}

fn proxy_server_name(host: &str) -> Result<ServerName<'static>> {
    super::tls::server_name(host).map_err(|e| {
        Error::new(
            Kind::Config,
            format!("proxy-url host {host:?} is not a valid TLS server name"),
        )
        .with_source(e)
    })
}
