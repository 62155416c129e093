//! [`Client`]: a cheap, cloneable handle on a tower service stack.

use std::fmt;
use std::sync::Arc;

use bytes::Bytes;
use tower::ServiceExt;
use tower::util::BoxCloneSyncService;

use crate::body::{Body, ResponseBody, boxed};
use crate::content_type::ContentType;
use crate::decode::Limits;
use crate::error::{BoxError, Error, Kind, Result};

/// The type-erased service every request goes through.
pub(crate) type HttpService =
    BoxCloneSyncService<http::Request<Body>, http::Response<ResponseBody>, BoxError>;

/// A client for one API server: a shared tower service plus the URL it is rooted at.
///
/// Cloning is cheap and clones share everything (connections, rate limiter, credentials).
/// Build one from a [`Config`](crate::Config) with [`Client::from_config`], or wrap any tower
/// service with [`Client::new`] — which is how tests and the in-process simulator plug in
/// without a socket.
///
/// # Examples
/// ```
/// use bytes::Bytes;
/// use http_body_util::Full;
/// use kinformer_rest::{Body, Client, RestClient};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), kinformer_rest::Error> {
/// let service = tower::service_fn(|req: http::Request<Body>| async move {
///     assert_eq!(req.uri().path(), "/api/v1/namespaces/default/configmaps/cm");
///     let body = Full::new(Bytes::from_static(br#"{"metadata":{"name":"cm"}}"#));
///     Ok::<_, std::convert::Infallible>(http::Response::new(body))
/// });
/// let client = Client::new(service);
/// let cm: k8s_openapi::api::core::v1::ConfigMap = RestClient::new(client, "", "v1")
///     .get()
///     .namespace("default")
///     .resource("configmaps")
///     .name("cm")
///     .into()
///     .await?;
/// assert_eq!(cm.metadata.name.as_deref(), Some("cm"));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    service: HttpService,
    /// `scheme://authority/prefix` without a trailing slash; empty for path-only URIs.
    base_url: String,
    default_namespace: String,
    limits: Limits,
    default_timeout: Option<std::time::Duration>,
    content_type: ContentType,
}

impl Client {
    /// Wraps any tower service taking `http::Request<Body>`; requests carry path-only URIs
    /// (`/api/v1/pods?...`) unless [`with_base_url`](Self::with_base_url) is set.
    ///
    /// The service is used as it is: no auth, rate limiting or retries are added. To get the
    /// full stack over a custom transport, use [`Client::from_config_with_transport`].
    pub fn new<S, B>(service: S) -> Self
    where
        S: tower::Service<http::Request<Body>, Response = http::Response<B>>
            + Clone
            + Send
            + Sync
            + 'static,
        S::Future: Send + 'static,
        S::Error: Into<BoxError>,
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        let service = service
            .map_response(|resp: http::Response<B>| resp.map(boxed))
            .map_err(Into::into);
        Self::from_http_service(BoxCloneSyncService::new(service), String::new())
    }

    pub(crate) fn from_http_service(service: HttpService, base_url: String) -> Self {
        Self {
            inner: Arc::new(Inner {
                service,
                base_url,
                default_namespace: "default".to_owned(),
                limits: Limits::default(),
                default_timeout: None,
                content_type: ContentType::Protobuf,
            }),
        }
    }

    fn map_inner(self, f: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = Inner {
            service: self.inner.service.clone(),
            base_url: self.inner.base_url.clone(),
            default_namespace: self.inner.default_namespace.clone(),
            limits: self.inner.limits,
            default_timeout: self.inner.default_timeout,
            content_type: self.inner.content_type,
        };
        f(&mut inner);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// Prefixes every request URI with `base_url` (`http://127.0.0.1:6443`, optionally with a
    /// path prefix). A trailing slash is ignored.
    #[must_use]
    pub fn with_base_url(self, base_url: impl Into<String>) -> Self {
        let base = base_url.into().trim_end_matches('/').to_owned();
        self.map_inner(|i| i.base_url = base)
    }

    /// Sets the namespace [`default_namespace`](Self::default_namespace) reports.
    #[must_use]
    pub fn with_default_namespace(self, namespace: impl Into<String>) -> Self {
        let ns = namespace.into();
        self.map_inner(|i| i.default_namespace = ns)
    }

    /// Sets the size limits of its responses (checked by [`Config`](crate::Config)'s setters;
    /// one request overrides them with [`Request::max_watch_frame`](crate::Request::max_watch_frame)
    /// and its siblings).
    pub(crate) fn with_limits(self, limits: Limits) -> Self {
        self.map_inner(|i| i.limits = limits)
    }

    /// Sets the timeout of requests that set none (not applied to watches and streams).
    #[must_use]
    pub fn with_default_timeout(self, timeout: std::time::Duration) -> Self {
        self.map_inner(|i| i.default_timeout = Some(timeout))
    }

    /// Sets the encoding this client prefers for reads (default [`ContentType::Protobuf`]); see
    /// [`Config::with_content_type`](crate::Config::with_content_type).
    #[must_use]
    pub fn with_content_type(self, content_type: ContentType) -> Self {
        self.map_inner(|i| i.content_type = content_type)
    }

    /// The encoding this client prefers for reads.
    pub fn content_type(&self) -> ContentType {
        self.inner.content_type
    }

    pub(crate) fn default_timeout(&self) -> Option<std::time::Duration> {
        self.inner.default_timeout
    }

    /// The namespace of the kubeconfig context (or the service account), `default` otherwise.
    pub fn default_namespace(&self) -> &str {
        &self.inner.default_namespace
    }

    /// The URL prefix of every request; empty for path-only requests.
    pub fn base_url(&self) -> &str {
        &self.inner.base_url
    }

    pub(crate) fn limits(&self) -> Limits {
        self.inner.limits
    }

    /// Sends one request through the stack.
    pub(crate) async fn send(
        &self,
        request: http::Request<Body>,
    ) -> Result<http::Response<ResponseBody>> {
        let service = self.inner.service.clone();
        // Path only: query strings may carry selectors, never worth leaking into logs.
        let what = format!("{} {}", request.method(), request.uri().path());
        service
            .oneshot(request)
            .await
            .map_err(|e| match e.downcast::<Error>() {
                Ok(err) => *err,
                Err(err) => Error::new(Kind::Transport, format!("{what} failed")).with_source(err),
            })
    }
}

/// Turns a service error into ours, keeping an [`Error`] a layer raised as it is.
pub(crate) fn error_from_service(err: BoxError) -> Error {
    match err.downcast::<Error>() {
        Ok(err) => *err,
        Err(err) => Error::new(Kind::Transport, "request failed").with_source(err),
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.inner.base_url)
            .field("default_namespace", &self.inner.default_namespace)
            .field("content_type", &self.inner.content_type)
            .finish_non_exhaustive()
    }
}
