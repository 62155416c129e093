//! [`Config`]: everything needed to reach and authenticate to one API server.

mod identity;
mod impersonate;
mod incluster;
mod kubeconfig;
mod load;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

pub use identity::Identity;
pub use impersonate::Impersonate;
pub use kubeconfig::{Kubeconfig, KubeconfigOptions};
pub(crate) use load::certificate_problem;

use crate::auth::Auth;
use crate::content_type::ContentType;
use crate::decode::{DEFAULT_MAX_LIST_ITEM, DEFAULT_MAX_WATCH_FRAME};
use crate::error::{Error, Kind, Result};
use crate::layers::{
    ClientRateLimiter, DedupWarningLogger, RequestMetrics, UrlBackoff, WarningHandler,
    default_user_agent,
};
use crate::transport::ProxyEnv;

/// client-go's `DefaultQPS`.
pub const DEFAULT_QPS: f32 = 5.0;
/// client-go's `DefaultBurst`.
pub const DEFAULT_BURST: u32 = 10;

/// How to reach and authenticate to an API server, and how the client behaves (client-go
/// `rest.Config`).
///
/// Load it from a kubeconfig ([`Config::from_kubeconfig`]), the pod environment
/// ([`Config::incluster`]) or whichever is available ([`Config::infer`]); or build it with
/// [`Config::new`] and set fields. `Debug` never shows credentials.
///
/// # Examples
/// ```
/// use kinformer_rest::Config;
/// use kinformer_rest::auth::{Auth, Secret};
///
/// let mut config = Config::new("https://127.0.0.1:6443".parse()?);
/// config.auth = Auth::Bearer(Secret::new("t0ken"));
/// config.qps = 50.0;
/// assert!(!format!("{config:?}").contains("t0ken"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct Config {
    /// The server URL; a path becomes a prefix of every request.
    pub cluster_url: http::Uri,
    /// The namespace of the context (or the service account); `default` otherwise.
    pub default_namespace: String,
    /// PEM certificate authorities: the only roots trusted when set (else the system's).
    pub root_ca: Option<Vec<u8>>,
    /// The name to verify the server certificate against, instead of the URL's host.
    pub tls_server_name: Option<String>,
    /// A client certificate and key.
    pub identity: Option<Identity>,
    /// Request credentials.
    pub auth: Auth,
    /// Act as another user (`Impersonate-*` headers).
    pub impersonate: Option<Impersonate>,
    /// The proxy for every request (the kubeconfig's `proxy-url`, client-go's `Proxy`):
    /// `http://[user:password@]host[:port]` (`CONNECT` tunnels to `https://` servers,
    /// absolute-form requests to `http://` ones, credentials as `Proxy-Authorization`),
    /// `https://...` (the same inside TLS to the proxy, verified with this configuration's
    /// certificate authorities) or `socks5://[user:password@]host[:port]` (RFC 1928; RFC 1929
    /// username/password when given; host names resolved by the proxy). Unset, the
    /// environment's `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` apply (see [`ProxyEnv`]). Another
    /// scheme or a malformed URL fails the client's construction with a config error naming
    /// `proxy-url`.
    pub proxy_url: Option<String>,
    /// Requests per second of the client-side rate limiter: 0 means 5, negative disables it.
    pub qps: f32,
    /// Burst of the rate limiter: 0 means 10.
    pub burst: u32,
    /// A limiter to share between clients; overrides `qps`/`burst`.
    pub rate_limiter: Option<ClientRateLimiter>,
    /// Default timeout of non-watch requests (also sent as the `timeout` parameter).
    pub timeout: Option<Duration>,
    /// TCP connect timeout (client-go: 30 s).
    pub connect_timeout: Duration,
    /// The `User-Agent` header.
    pub user_agent: String,
    /// Retries on `Retry-After` responses and broken GET connections (client-go: 10).
    pub max_retries: u32,
    /// Optional per-host exponential backoff (client-go's `URLBackoff`, from
    /// `KUBE_CLIENT_BACKOFF_BASE`/`_DURATION` when both are set).
    pub url_backoff: Option<UrlBackoff>,
    /// Offer HTTP/2 over TLS (ALPN `h2`, then `http/1.1`).
    pub http2: bool,
    /// Speak HTTP/2 without TLS from the first byte (h2c "prior knowledge") on `http://`.
    pub http2_prior_knowledge: bool,
    /// Ping an HTTP/2 connection after this long without reading a frame (client-go: 30 s,
    /// `HTTP2_READ_IDLE_TIMEOUT_SECONDS`; `None` disables).
    pub http2_keepalive_interval: Option<Duration>,
    /// Close the connection when a ping gets no answer within this (client-go: 15 s).
    pub http2_keepalive_timeout: Duration,
    /// Do not ask for gzip responses.
    pub disable_compression: bool,
    /// The largest accepted watch event, in bytes (default [`DEFAULT_MAX_WATCH_FRAME`], 16 MiB).
    /// A larger event ends the watch with an error for which
    /// [`Error::is_response_too_large`] is true; the decoder never buffers more than this plus
    /// one chunk.
    pub max_watch_frame: usize,
    /// The largest accepted list item, in bytes (default [`DEFAULT_MAX_LIST_ITEM`], 16 MiB):
    /// lists are decoded item by item, so this bounds what the decoder buffers. It also bounds
    /// how much of an error response (a `Status`) is read.
    pub max_list_item: usize,
    /// The largest accepted list body, in bytes. `None` (the default) accepts any size: a
    /// legitimate list of 150 000 pods is about 750 MB, the decoder holds only one item of it
    /// as bytes, and the decoded items are the result itself; paginate with `limit` instead.
    pub max_list_body: Option<usize>,
    /// Receives `Warning` headers; the default logs each distinct warning once.
    pub warning_handler: Arc<dyn WarningHandler>,
    accept_invalid_certs: bool,
    /// Set with [`proxy_env`](Self::proxy_env); `None` reads the process environment.
    pub(crate) proxy_env: Option<ProxyEnv>,
    /// Set with [`metrics`](Self::metrics); read by the stack.
    pub(crate) request_metrics: Option<Arc<dyn RequestMetrics>>,
    /// Set with [`with_content_type`](Self::with_content_type).
    content_type: ContentType,
}

fn env_secs(key: &str) -> Option<u64> {
    std::env::var(key).ok()?.trim().parse().ok()
}

impl Config {
    /// A configuration for `cluster_url` with client-go's defaults and no credentials.
    pub fn new(cluster_url: http::Uri) -> Self {
        let keepalive = match env_secs("HTTP2_READ_IDLE_TIMEOUT_SECONDS") {
            Some(0) => None,
            Some(s) => Some(Duration::from_secs(s)),
            None => Some(Duration::from_secs(30)),
        };
        let ping = env_secs("HTTP2_PING_TIMEOUT_SECONDS")
            .filter(|s| *s > 0)
            .unwrap_or(15);
        Self {
            cluster_url,
            default_namespace: "default".to_owned(),
            root_ca: None,
            tls_server_name: None,
            identity: None,
            auth: Auth::None,
            impersonate: None,
            proxy_url: None,
            qps: DEFAULT_QPS,
            burst: DEFAULT_BURST,
            rate_limiter: None,
            timeout: None,
            connect_timeout: Duration::from_secs(30),
            user_agent: default_user_agent(),
            max_retries: crate::layers::DEFAULT_MAX_RETRIES,
            url_backoff: UrlBackoff::from_env(),
            http2: true,
            http2_prior_knowledge: false,
            http2_keepalive_interval: keepalive,
            http2_keepalive_timeout: Duration::from_secs(ping),
            disable_compression: false,
            max_watch_frame: DEFAULT_MAX_WATCH_FRAME,
            max_list_item: DEFAULT_MAX_LIST_ITEM,
            max_list_body: None,
            warning_handler: Arc::new(DedupWarningLogger::default()),
            accept_invalid_certs: false,
            proxy_env: None,
            request_metrics: None,
            content_type: ContentType::Protobuf,
        }
    }

    /// DANGER: accept any server certificate (kubeconfig `insecure-skip-tls-verify`). Anyone on
    /// the network path can then read and change the traffic, credentials included.
    #[must_use]
    pub fn danger_accept_invalid_certs(mut self, accept: bool) -> Self {
        self.accept_invalid_certs = accept;
        self
    }

    /// True when server certificates are not verified.
    pub fn accepts_invalid_certs(&self) -> bool {
        self.accept_invalid_certs
    }

    /// The proxy variables clients built from this configuration read when
    /// [`proxy_url`](Self::proxy_url) is unset, instead of the process environment's (read
    /// when each client is built). `ProxyEnv::default()` turns environment proxies off.
    ///
    /// ```
    /// use kinformer_rest::Config;
    /// use kinformer_rest::stack::ProxyEnv;
    ///
    /// let config = Config::new("https://10.0.0.1:6443".parse()?)
    ///     .proxy_env(ProxyEnv::from_vars([("HTTPS_PROXY", "socks5://127.0.0.1:1080")]));
    /// # let _ = config;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn proxy_env(mut self, env: ProxyEnv) -> Self {
        self.proxy_env = Some(env);
        self
    }

    /// Reports every request of the clients built from this configuration to `metrics`: each
    /// attempt's status, retries, latency, rate limiter waits and body sizes (for example
    /// `RestClientMetrics` with feature `prometheus`, under client-go's `rest_client_*`
    /// names). Without it nothing is measured.
    #[must_use]
    pub fn metrics(mut self, metrics: Arc<dyn RequestMetrics>) -> Self {
        self.request_metrics = Some(metrics);
        self
    }

    /// The encoding the clients built from this configuration prefer for reads (client-go's
    /// `ContentType`; default [`ContentType::Protobuf`]). With [`ContentType::Protobuf`], lists,
    /// watches and typed gets of built-in types ask for protobuf first; see [`ContentType`].
    #[must_use]
    pub fn with_content_type(mut self, content_type: ContentType) -> Self {
        self.content_type = content_type;
        self
    }

    /// The encoding the clients built from this configuration prefer for reads.
    pub fn content_type(&self) -> ContentType {
        self.content_type
    }

    /// The rate limiter this configuration asks for (`None` when disabled).
    pub fn effective_rate_limiter(&self) -> Option<ClientRateLimiter> {
        if let Some(limiter) = &self.rate_limiter {
            return Some(limiter.clone());
        }
        let qps = if self.qps == 0.0 {
            DEFAULT_QPS
        } else {
            self.qps
        };
        let burst = if self.burst == 0 {
            DEFAULT_BURST
        } else {
            self.burst
        };
        (qps > 0.0).then(|| ClientRateLimiter::new(qps, burst))
    }

    /// Loads the kubeconfig as kubectl does (`$KUBECONFIG` merged, else `~/.kube/config`) and
    /// selects the current context, or the one in `options`.
    ///
    /// # Errors
    /// No kubeconfig, a malformed one, a missing context/cluster/user, unreadable files or an
    /// unsupported auth method (`auth-provider`).
    pub fn from_kubeconfig(options: &KubeconfigOptions) -> Result<Self> {
        let kubeconfig = Kubeconfig::read()?.ok_or_else(|| {
            Error::new(
                Kind::Config,
                format!("no kubeconfig found ({})", Kubeconfig::searched()),
            )
        })?;
        Self::from_custom_kubeconfig(kubeconfig, options)
    }

    /// Builds a configuration from an already loaded kubeconfig.
    ///
    /// # Errors
    /// As [`from_kubeconfig`](Self::from_kubeconfig), without the loading.
    pub fn from_custom_kubeconfig(
        kubeconfig: Kubeconfig,
        options: &KubeconfigOptions,
    ) -> Result<Self> {
        load::from_kubeconfig(&kubeconfig, options)
    }

    /// The in-cluster configuration: `KUBERNETES_SERVICE_HOST`/`_PORT`, the service account
    /// token (re-read, so rotation is picked up), its `ca.crt` and namespace.
    ///
    /// # Errors
    /// Not running in a pod (the variables are unset) or an unreadable token.
    pub fn incluster() -> Result<Self> {
        incluster::from_env(std::path::Path::new(incluster::SERVICE_ACCOUNT_DIR))
    }

    /// A kubeconfig when one exists, else the in-cluster configuration; the error names both
    /// attempts.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), kinformer_rest::Error> {
    /// let config = kinformer_rest::Config::infer()?;
    /// let _client = kinformer_rest::Client::from_config(&config)?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// Neither is available, or the one found is invalid.
    pub fn infer() -> Result<Self> {
        if let Some(kubeconfig) = Kubeconfig::read()? {
            return Self::from_custom_kubeconfig(kubeconfig, &KubeconfigOptions::default());
        }
        Self::incluster().map_err(|incluster| {
            Error::new(
                Kind::Config,
                format!(
                    "no configuration found: no kubeconfig ({}), and not in a cluster ({incluster})",
                    Kubeconfig::searched()
                ),
            )
        })
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("cluster_url", &self.cluster_url)
            .field("default_namespace", &self.default_namespace)
            .field(
                "root_ca",
                &self.root_ca.as_ref().map(|c| format!("{} bytes", c.len())),
            )
            .field("tls_server_name", &self.tls_server_name)
            .field("identity", &self.identity)
            .field("auth", &self.auth)
            .field("impersonate", &self.impersonate)
            .field(
                "proxy_url",
                &self.proxy_url.as_deref().map(without_userinfo),
            )
            .field("proxy_env", &self.proxy_env)
            .field("qps", &self.qps)
            .field("burst", &self.burst)
            .field("timeout", &self.timeout)
            .field("http2", &self.http2)
            .field("accept_invalid_certs", &self.accept_invalid_certs)
            .field("metrics", &self.request_metrics.is_some())
            .field("content_type", &self.content_type)
            .finish_non_exhaustive()
    }
}

/// A URL with its `user:password@` part replaced, for `Debug` output.
pub(crate) fn without_userinfo(url: &str) -> String {
    let scheme_end = url.find("://").map_or(0, |i| i + 3);
    let authority_end = url[scheme_end..]
        .find('/')
        .map_or(url.len(), |i| scheme_end + i);
    match url[scheme_end..authority_end].rfind('@') {
        Some(at) => format!(
            "{}<redacted>@{}",
            &url[..scheme_end],
            &url[scheme_end + at + 1..]
        ),
        None => url.to_owned(),
    }
}
