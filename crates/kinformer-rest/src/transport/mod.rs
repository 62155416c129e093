//! The HTTP transport (lanes of hyper-util clients over [`connector::Connector`], as many as the
//! server's stream limit needs: [`pool`]) and the full layer stack a [`Config`] describes.

mod connector;
mod h2_settings;
mod pool;
mod proxy;
mod single_h2;
mod stream;
mod tls;

pub use proxy::ProxyEnv;
pub(crate) use tls::parse_certs;

use std::sync::Arc;

use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use tower::ServiceExt;
use tower::util::BoxCloneSyncService;

use crate::auth::{Auth, AuthLayer, CertSlot};
use crate::body::{Body, boxed};
use crate::client::{Client, HttpService};
use crate::config::Config;
use crate::decode::Limits;
use crate::error::{BoxError, Result};
use crate::layers::{
    DecompressionLayer, HeadersLayer, RateLimitLayer, RetryLayer, TraceLayer, UserAgentLayer,
    WarningLayer,
};

/// client-go's `MaxIdleConnsPerHost`.
const MAX_IDLE_PER_HOST: usize = 25;

/// The client's transport for `config`: a [`pool::Pool`] of hyper-util clients.
fn hyper_service(config: &Config, cert_slot: Option<Arc<CertSlot>>) -> Result<HttpService> {
    let tls = Arc::new(tls::client_config(&tls::TlsSettings {
        root_ca: config.root_ca(),
        identity: config.identity().map(|i| (i.cert_pem(), i.key_pem())),
        accept_invalid_certs: config.danger_accept_invalid_certs(),
        http2: config.http2(),
        cert_slot,
    })?);
    let server_name = config.tls_server_name().map(tls::server_name).transpose()?;
    // The process environment is read here, once per client, unless the config carries one.
    let proxies = proxy::Proxies::new(config.proxy_url(), || {
        config
            .proxy_env()
            .cloned()
            .unwrap_or_else(ProxyEnv::from_process)
    })?;
    let forwarding_authorization = forwarding_authorization(config, &proxies)?;
    let dialer = proxy::ProxyDialer::new(proxies, &tls);
    // Prior knowledge is for cleartext only; over TLS, ALPN decides.
    let plain_h2 =
        config.http2_prior_knowledge() && config.cluster_url().scheme_str() == Some("http");
    let connect_timeout = config.connect_timeout();
    let keep_alive = (
        config.http2_keepalive_interval(),
        config.http2_keepalive_timeout(),
    );
    let pool = pool::Pool::new(move |capacity| {
        let connector = connector::Connector::new(
            connect_timeout,
            Arc::clone(&tls),
            server_name.clone(),
            dialer.clone(),
            plain_h2,
            capacity,
        );
        lane_client(connector, plain_h2, keep_alive)
    });
    let service = pool.into_service();
    Ok(match forwarding_authorization {
        Some(value) => BoxCloneSyncService::new(service.map_request(
            move |mut request: http::Request<Body>| {
                request
                    .headers_mut()
                    .insert(http::header::PROXY_AUTHORIZATION, value.clone());
                request
            },
        )),
        None => service,
    })
}

/// `Proxy-Authorization` for every request when the server is `http://` and its proxy an HTTP
/// one with credentials (requests then go to the proxy in absolute form).
fn forwarding_authorization(
    config: &Config,
    proxies: &proxy::Proxies,
) -> Result<Option<http::HeaderValue>> {
    let url = config.cluster_url();
    if url.scheme_str() != Some("http") {
        return Ok(None);
    }
    let host = url
        .host()
        .unwrap_or_default()
        .trim_start_matches('[')
        .trim_end_matches(']');
    let Some(value) = proxies.forwarding_authorization(host, url.port_u16().unwrap_or(80)) else {
        return Ok(None);
    };
    let mut value = http::HeaderValue::try_from(value).map_err(|e| {
        crate::error::Error::new(
            crate::error::Kind::Config,
            "proxy credentials are not a valid header value",
        )
        .with_source(e)
    })?;
    value.set_sensitive(true);
    Ok(Some(value))
}

/// Checks a `proxy-url` as the kubeconfig is loaded (client-go's `parseProxyURL`).
pub(crate) fn check_proxy_url(url: &str) -> Result<()> {
    proxy::ProxyUrl::parse_setting(url).map(drop)
}

/// Fails for a TLS server name that is neither a DNS name nor an IP address.
pub(crate) fn check_server_name(name: &str) -> Result<()> {
    tls::server_name(name).map(drop)
}

/// One lane's hyper-util client: one HTTP/2 connection at a time, or pooled HTTP/1.1 ones.
fn lane_client(
    connector: connector::Connector,
    http2_only: bool,
    (keep_alive_interval, keep_alive_timeout): (Option<std::time::Duration>, std::time::Duration),
) -> HttpService {
    let mut builder = HyperClient::builder(TokioExecutor::new());
    builder
        .timer(TokioTimer::new())
        .pool_timer(TokioTimer::new())
        .pool_max_idle_per_host(MAX_IDLE_PER_HOST)
        .http2_only(http2_only)
        .http2_keep_alive_interval(keep_alive_interval)
        .http2_keep_alive_timeout(keep_alive_timeout)
        .http2_keep_alive_while_idle(true)
        // Large lists over one multiplexed connection need more than the 64 KiB default window
        // (client-go's transport uses 4 MiB per stream). Adaptive windows are avoided: with many
        // concurrent watches their BDP pings stalled streams in tests.
        .http2_initial_stream_window_size(4 << 20)
        .http2_initial_connection_window_size(16 << 20);
    let client: HyperClient<_, Body> = builder.build(connector);
    let service = client
        .map_response(|resp| resp.map(boxed))
        .map_err(BoxError::from);
    BoxCloneSyncService::new(service)
}

/// Wraps `transport` in the layers `config` asks for.
fn stack(
    config: &Config,
    transport: HttpService,
    cert_slot: Option<Arc<CertSlot>>,
) -> Result<HttpService> {
    let auth = AuthLayer::with_cert_slot(config.auth(), cert_slot)?;
    let headers = match config.impersonate() {
        Some(who) => who.headers()?,
        None => Vec::new(),
    };
    let metrics = config.metrics().cloned();
    let builder = tower::ServiceBuilder::new()
        .layer(TraceLayer)
        .layer(crate::layers::MetricsLayer::new(metrics.clone()))
        .layer(
            RetryLayer::new(config.max_retries(), config.url_backoff().cloned())
                .metrics(metrics.clone()),
        )
        .layer(RateLimitLayer::new(config.rate_limit().limiter()).metrics(metrics))
        .layer(UserAgentLayer::new(config.user_agent()))
        .layer(WarningLayer::new(Arc::clone(config.warning_handler())))
        .layer(HeadersLayer::new(headers))
        .layer(auth);
    Ok(if !config.compression() {
        BoxCloneSyncService::new(builder.service(transport))
    } else {
        BoxCloneSyncService::new(builder.layer(DecompressionLayer).service(transport))
    })
}

impl Client {
    /// A client for `config`: hyper-util over rustls (HTTP/2 when the server offers it), with
    /// auth, user agent, warnings, rate limiting, retries, gzip and tracing layers.
    ///
    /// Requests must run inside a tokio runtime (connections are driven by spawned tasks).
    ///
    /// # Examples
    /// ```
    /// use kinformer_rest::{Client, Config, RestClient};
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let sim = kinformer_sim::Sim::builder().configmaps(2).start().await?;
    /// let client = Client::from_config(&Config::new(sim.url().parse()?))?;
    /// let list = RestClient::new(client, "", "v1")
    ///     .get()
    ///     .resource("configmaps")
    ///     .list::<k8s_openapi::api::core::v1::ConfigMap>()
    ///     .await?;
    /// assert_eq!(list.items.len(), 2);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// Invalid TLS material or credentials.
    pub fn from_config(config: &Config) -> Result<Self> {
        // An exec plugin may answer with a client certificate: new connections present it.
        let slot = matches!(config.auth(), Auth::Exec(_)).then(|| Arc::new(CertSlot::default()));
        let transport = hyper_service(config, slot.clone())?;
        Self::with_stack(config, stack(config, transport, slot)?)
    }

    /// Like [`from_config`](Self::from_config) but over a custom transport: any tower service
    /// taking `http::Request<Body>` with absolute URIs (a recording mock, the simulator).
    ///
    /// # Errors
    /// Invalid credentials.
    pub fn from_config_with_transport<S, B>(config: &Config, transport: S) -> Result<Self>
    where
        S: tower::Service<http::Request<Body>, Response = http::Response<B>>
            + Clone
            + Send
            + Sync
            + 'static,
        S::Future: Send + 'static,
        S::Error: Into<BoxError>,
        B: http_body::Body<Data = bytes::Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        let transport = BoxCloneSyncService::new(
            transport
                .map_response(|resp: http::Response<B>| resp.map(boxed))
                .map_err(Into::into),
        );
        Self::with_stack(config, stack(config, transport, None)?)
    }

    fn with_stack(config: &Config, service: HttpService) -> Result<Self> {
        let base = config
            .cluster_url()
            .to_string()
            .trim_end_matches('/')
            .to_owned();
        let client = Self::from_http_service(service, base)
            .with_default_namespace(config.default_namespace())
            .with_limits(Limits {
                watch_frame: config.max_watch_frame(),
                list_item: config.max_list_item(),
                list_body: config.max_list_body(),
            })
            .with_content_type(config.content_type());
        Ok(match config.timeout() {
            Some(t) => client.with_default_timeout(t),
            None => client,
        })
    }
}
