//! The settings of a [`Config`] that say how its clients behave: limits, timeouts, retries,
//! the protocol, encodings and what is reported.

use std::sync::Arc;
use std::time::Duration;

use http::HeaderValue;

use super::{Config, RateLimit};
use crate::content_type::ContentType;
use crate::error::{Error, Kind, Result};
use crate::layers::{RequestMetrics, UrlBackoff, WarningHandler};

/// The error of a setting that must not be zero.
fn zero(setting: &str) -> Error {
    Error::new(Kind::Config, format!("{setting} must be greater than zero"))
}

impl Config {
    /// Sets [`rate_limit`](Self::rate_limit).
    #[must_use]
    pub fn with_rate_limit(mut self, rate_limit: RateLimit) -> Self {
        self.rate_limit = rate_limit;
        self
    }

    /// The client-side rate limit (default: client-go's 5 requests per second, bursts of 10,
    /// a bucket for each client).
    pub fn rate_limit(&self) -> &RateLimit {
        &self.rate_limit
    }

    /// Sets [`timeout`](Self::timeout).
    ///
    /// # Errors
    /// A zero timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Result<Self> {
        if timeout.is_zero() {
            return Err(zero("timeout"));
        }
        self.timeout = Some(timeout);
        Ok(self)
    }

    /// The default timeout of non-watch requests (also sent as the `timeout` parameter);
    /// `None` (the default): none.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Sets [`connect_timeout`](Self::connect_timeout).
    ///
    /// # Errors
    /// A zero timeout.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Result<Self> {
        if timeout.is_zero() {
            return Err(zero("connect_timeout"));
        }
        self.connect_timeout = timeout;
        Ok(self)
    }

    /// How long a TCP connection may take to open (client-go: 30 s).
    pub fn connect_timeout(&self) -> Duration {
        self.connect_timeout
    }

    /// Sets [`user_agent`](Self::user_agent).
    ///
    /// # Errors
    /// An empty value, or one that cannot be a header value.
    pub fn with_user_agent(mut self, user_agent: impl Into<String>) -> Result<Self> {
        let user_agent = user_agent.into();
        if user_agent.is_empty() || HeaderValue::try_from(user_agent.as_str()).is_err() {
            return Err(Error::new(
                Kind::Config,
                format!("user_agent {user_agent:?} is not a valid User-Agent header value"),
            ));
        }
        self.user_agent = user_agent;
        Ok(self)
    }

    /// The `User-Agent` header (default: client-go's form, `binary/version (os/arch) kinformer`).
    pub fn user_agent(&self) -> &str {
        &self.user_agent
    }

    /// Sets [`max_retries`](Self::max_retries); 0 turns retries off.
    #[must_use]
    pub fn with_max_retries(mut self, max_retries: u32) -> Self {
        self.max_retries = max_retries;
        self
    }

    /// Retries on `Retry-After` responses and broken GET connections (client-go: 10).
    pub fn max_retries(&self) -> u32 {
        self.max_retries
    }

    /// Sets [`url_backoff`](Self::url_backoff); `None` turns it off.
    #[must_use]
    pub fn with_url_backoff(mut self, backoff: Option<UrlBackoff>) -> Self {
        self.url_backoff = backoff;
        self
    }

    /// The per-host exponential backoff (client-go's `URLBackoff`), by default from
    /// `KUBE_CLIENT_BACKOFF_BASE`/`_DURATION` when both are set, else none.
    pub fn url_backoff(&self) -> Option<&UrlBackoff> {
        self.url_backoff.as_ref()
    }

    /// Sets [`http2`](Self::http2).
    #[must_use]
    pub fn with_http2(mut self, http2: bool) -> Self {
        self.http2 = http2;
        self
    }

    /// Offer HTTP/2 over TLS (ALPN `h2`, then `http/1.1`); on by default.
    pub fn http2(&self) -> bool {
        self.http2
    }

    /// Sets [`http2_prior_knowledge`](Self::http2_prior_knowledge).
    #[must_use]
    pub fn with_http2_prior_knowledge(mut self, prior_knowledge: bool) -> Self {
        self.http2_prior_knowledge = prior_knowledge;
        self
    }

    /// Speak HTTP/2 without TLS from the first byte (h2c "prior knowledge") to an `http://`
    /// server; off by default.
    pub fn http2_prior_knowledge(&self) -> bool {
        self.http2_prior_knowledge
    }

    /// Sets [`http2_keepalive_interval`](Self::http2_keepalive_interval); `None` turns pings
    /// off.
    ///
    /// # Errors
    /// A zero interval.
    pub fn with_http2_keepalive_interval(mut self, interval: Option<Duration>) -> Result<Self> {
        if interval.is_some_and(|i| i.is_zero()) {
            return Err(zero("http2_keepalive_interval"));
        }
        self.http2_keepalive_interval = interval;
        Ok(self)
    }

    /// Ping an HTTP/2 connection after this long without reading a frame (client-go: 30 s,
    /// `HTTP2_READ_IDLE_TIMEOUT_SECONDS`, where 0 turns pings off).
    pub fn http2_keepalive_interval(&self) -> Option<Duration> {
        self.http2_keepalive_interval
    }

    /// Sets [`http2_keepalive_timeout`](Self::http2_keepalive_timeout).
    ///
    /// # Errors
    /// A zero timeout.
    pub fn with_http2_keepalive_timeout(mut self, timeout: Duration) -> Result<Self> {
        if timeout.is_zero() {
            return Err(zero("http2_keepalive_timeout"));
        }
        self.http2_keepalive_timeout = timeout;
        Ok(self)
    }

    /// Close the connection when a ping gets no answer within this (client-go: 15 s,
    /// `HTTP2_PING_TIMEOUT_SECONDS`).
    pub fn http2_keepalive_timeout(&self) -> Duration {
        self.http2_keepalive_timeout
    }

    /// Sets [`compression`](Self::compression).
    #[must_use]
    pub fn with_compression(mut self, compression: bool) -> Self {
        self.compression = compression;
        self
    }

    /// Ask for gzip responses (on by default; the kubeconfig's `disable-compression` turns it
    /// off).
    pub fn compression(&self) -> bool {
        self.compression
    }

    /// Sets [`max_watch_frame`](Self::max_watch_frame).
    ///
    /// # Errors
    /// Zero bytes.
    pub fn with_max_watch_frame(mut self, bytes: usize) -> Result<Self> {
        if bytes == 0 {
            return Err(zero("max_watch_frame"));
        }
        self.max_watch_frame = bytes;
        Ok(self)
    }

    /// The largest accepted watch event, in bytes (default
    /// [`DEFAULT_MAX_WATCH_FRAME`](crate::decoders::DEFAULT_MAX_WATCH_FRAME), 16 MiB). A larger
    /// event ends the watch with an error for which [`Error::is_response_too_large`] is true;
    /// the decoder never buffers more than this plus one chunk.
    pub fn max_watch_frame(&self) -> usize {
        self.max_watch_frame
    }

    /// Sets [`max_list_item`](Self::max_list_item).
    ///
    /// # Errors
    /// Zero bytes.
    pub fn with_max_list_item(mut self, bytes: usize) -> Result<Self> {
        if bytes == 0 {
            return Err(zero("max_list_item"));
        }
        self.max_list_item = bytes;
        Ok(self)
    }

    /// The largest accepted list item, in bytes (default
    /// [`DEFAULT_MAX_LIST_ITEM`](crate::decoders::DEFAULT_MAX_LIST_ITEM), 16 MiB): lists are
    /// decoded item by item, so this bounds what the decoder buffers. It also bounds how much
    /// of an error response (a `Status`) is read.
    pub fn max_list_item(&self) -> usize {
        self.max_list_item
    }

    /// Sets [`max_list_body`](Self::max_list_body); `None` accepts any size.
    ///
    /// # Errors
    /// Zero bytes.
    pub fn with_max_list_body(mut self, bytes: Option<usize>) -> Result<Self> {
        if bytes == Some(0) {
            return Err(zero("max_list_body"));
        }
        self.max_list_body = bytes;
        Ok(self)
    }

    /// The largest accepted list body, in bytes. `None` (the default) accepts any size: a
    /// legitimate list of 150 000 pods is about 750 MB, the decoder holds only one item of it
    /// as bytes, and the decoded items are the result itself; paginate with `limit` instead.
    pub fn max_list_body(&self) -> Option<usize> {
        self.max_list_body
    }

    /// Sets [`warning_handler`](Self::warning_handler).
    #[must_use]
    pub fn with_warning_handler(mut self, handler: Arc<dyn WarningHandler>) -> Self {
        self.warning_handler = handler;
        self
    }

    /// Receives `Warning` headers; the default logs each distinct warning once.
    pub fn warning_handler(&self) -> &Arc<dyn WarningHandler> {
        &self.warning_handler
    }

    /// Sets [`metrics`](Self::metrics).
    #[must_use]
    pub fn with_metrics(mut self, metrics: Arc<dyn RequestMetrics>) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// Where the clients built from this configuration report every request: each attempt's
    /// status, retries, latency, rate limiter waits and body sizes (for example
    /// `RestClientMetrics` with feature `prometheus`, under client-go's `rest_client_*`
    /// names). `None` (the default): nothing is measured.
    pub fn metrics(&self) -> Option<&Arc<dyn RequestMetrics>> {
        self.metrics.as_ref()
    }

    /// Sets [`content_type`](Self::content_type).
    #[must_use]
    pub fn with_content_type(mut self, content_type: ContentType) -> Self {
        self.content_type = content_type;
        self
    }

    /// The encoding the clients built from this configuration prefer for reads (client-go's
    /// `ContentType`; default [`ContentType::Protobuf`]). With [`ContentType::Protobuf`], lists,
    /// watches and typed gets of built-in types ask for protobuf first; see [`ContentType`].
    pub fn content_type(&self) -> ContentType {
        self.content_type
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        Config::new("https://127.0.0.1:6443".parse().unwrap())
    }

    #[test]
    fn zero_is_refused_with_the_setting_named() {
        let cases = [
            config().with_timeout(Duration::ZERO).err(),
            config().with_connect_timeout(Duration::ZERO).err(),
            config()
                .with_http2_keepalive_interval(Some(Duration::ZERO))
                .err(),
            config().with_http2_keepalive_timeout(Duration::ZERO).err(),
            config().with_max_watch_frame(0).err(),
            config().with_max_list_item(0).err(),
            config().with_max_list_body(Some(0)).err(),
        ];
        let names = [
            "timeout",
            "connect_timeout",
            "http2_keepalive_interval",
            "http2_keepalive_timeout",
            "max_watch_frame",
            "max_list_item",
            "max_list_body",
        ];
        for (err, name) in cases.into_iter().zip(names) {
            let err = err.expect(name);
            assert!(err.to_string().contains(&format!(": {name} must")), "{err}");
        }
        let err = config().with_user_agent("bad\nagent").unwrap_err();
        assert!(err.to_string().contains("user_agent"), "{err}");
    }

    #[test]
    fn defaults_are_client_gos() {
        let config = config();
        assert_eq!(config.rate_limit(), &RateLimit::default());
        assert_eq!(config.max_retries(), 10);
        assert_eq!(config.connect_timeout(), Duration::from_secs(30));
        assert!(config.compression() && config.http2() && !config.http2_prior_knowledge());
        assert_eq!(config.timeout(), None);
        assert_eq!(config.content_type(), ContentType::Protobuf);
        let off = config
            .with_compression(false)
            .with_max_retries(0)
            .with_http2_keepalive_interval(None)
            .unwrap();
        assert!(!off.compression());
        assert_eq!(off.max_retries(), 0);
        assert_eq!(off.http2_keepalive_interval(), None);
    }
}
