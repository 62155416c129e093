//! [`Config`]: everything needed to reach and authenticate to one API server.

mod behaviour;
mod identity;
mod impersonate;
mod incluster;
mod kubeconfig;
mod load;
mod rate_limit;
mod server;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

pub use identity::Identity;
pub use impersonate::Impersonate;
pub use kubeconfig::{Kubeconfig, KubeconfigOptions};
pub(crate) use load::{certificate_problem, check_roots};
pub use rate_limit::{DEFAULT_BURST, DEFAULT_QPS, RateLimit, TokenBucket};

use crate::auth::Auth;
use crate::content_type::ContentType;
use crate::decode::{DEFAULT_MAX_LIST_ITEM, DEFAULT_MAX_WATCH_FRAME};
use crate::error::{Error, Kind, Result};
use crate::layers::{
    DedupWarningLogger, RequestMetrics, UrlBackoff, WarningHandler, default_user_agent,
};
use crate::transport::ProxyEnv;

/// How to reach and authenticate to an API server, and how the client behaves (client-go
/// `rest.Config`).
///
/// Load it from a kubeconfig ([`Config::from_kubeconfig`]), the pod environment
/// ([`Config::incluster`]) or whichever is available ([`Config::infer`]); or build it with
/// [`Config::new`] and the `with_` setters, which refuse what cannot work (each names the
/// setting and the cause). Each setting has a getter of the same name. `Debug` never shows
/// credentials.
///
/// # Examples
/// ```
/// use kinformer_rest::Config;
/// use kinformer_rest::auth::{Auth, Secret};
/// use kinformer_rest::{RateLimit, TokenBucket};
///
/// let config = Config::new("https://127.0.0.1:6443".parse()?)
///     .with_auth(Auth::Bearer(Secret::new("t0ken")))
///     .with_rate_limit(RateLimit::TokenBucket(TokenBucket::new(50.0, 100)?));
/// assert!(!format!("{config:?}").contains("t0ken"));
/// assert_eq!(config.rate_limit(), &RateLimit::TokenBucket(TokenBucket::new(50.0, 100)?));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Config {
    cluster_url: http::Uri,
    default_namespace: String,
    root_ca: Option<Vec<u8>>,
    tls_server_name: Option<String>,
    identity: Option<Identity>,
    auth: Auth,
    impersonate: Option<Impersonate>,
    proxy_url: Option<String>,
    proxy_env: Option<ProxyEnv>,
    accept_invalid_certs: bool,
    rate_limit: RateLimit,
    timeout: Option<Duration>,
    connect_timeout: Duration,
    user_agent: String,
    max_retries: u32,
    url_backoff: Option<UrlBackoff>,
    http2: bool,
    http2_prior_knowledge: bool,
    http2_keepalive_interval: Option<Duration>,
    http2_keepalive_timeout: Duration,
    compression: bool,
    max_watch_frame: usize,
    max_list_item: usize,
    max_list_body: Option<usize>,
    warning_handler: Arc<dyn WarningHandler>,
    metrics: Option<Arc<dyn RequestMetrics>>,
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
            rate_limit: RateLimit::default(),
            timeout: None,
            connect_timeout: Duration::from_secs(30),
            user_agent: default_user_agent(),
            max_retries: crate::layers::DEFAULT_MAX_RETRIES,
            url_backoff: UrlBackoff::from_env(),
            http2: true,
            http2_prior_knowledge: false,
            http2_keepalive_interval: keepalive,
            http2_keepalive_timeout: Duration::from_secs(ping),
            compression: true,
            max_watch_frame: DEFAULT_MAX_WATCH_FRAME,
            max_list_item: DEFAULT_MAX_LIST_ITEM,
            max_list_body: None,
            warning_handler: Arc::new(DedupWarningLogger::default()),
            accept_invalid_certs: false,
            proxy_env: None,
            metrics: None,
            content_type: ContentType::Protobuf,
        }
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
            .field("rate_limit", &self.rate_limit)
            .field("timeout", &self.timeout)
            .field("http2", &self.http2)
            .field("accept_invalid_certs", &self.accept_invalid_certs)
            .field("metrics", &self.metrics.is_some())
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
