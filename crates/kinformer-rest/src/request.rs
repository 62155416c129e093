//! [`Request`]: client-go's chainable request builder and its terminal calls.

use std::time::Duration;

use http::header::{HeaderName, HeaderValue};
use http::{HeaderMap, Method};
use kinformer_core::{Fields, ListOptions};

use crate::body::Body;
use crate::client::Client;
use crate::decode::Limits;
use crate::error::{Error, Kind, Result};

mod send;
mod url;

use url::{encode_query_component, format_go_duration, validate_segment};

/// Marks a request whose transport errors must never be retried (client-go `Stream()`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NoTransportRetry;

/// Marks a watch: its first attempt skips the client-side rate limiter, and its transport
/// failures are retried as client-go's `Watch` retries them (any method, EOF or timeout).
#[derive(Clone, Copy, Debug)]
pub(crate) struct WatchRequest;

/// Caps the retries of one request (default: the client's).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MaxRetries(pub(crate) u32);

/// One API request, built step by step (client-go `rest.Request`).
///
/// The first invalid builder call (a bad path segment, a part set twice) is remembered and every
/// later call becomes a no-op; the terminal call ([`do_raw`](Self::do_raw),
/// [`into`](Self::into), [`list`](Self::list), [`watch`](Self::watch), [`stream`](Self::stream))
/// returns it. Building does no IO.
///
/// The URL is `<base>/<group-version>[/namespaces/<ns>]/<resource>[/<name>][/<subresource>]`.
///
/// # Examples
/// ```
/// use kinformer_core::ListOptions;
/// use kinformer_rest::{Client, RestClient};
///
/// let client = Client::new(tower::service_fn(|_req: http::Request<kinformer_rest::Body>| async {
///     Ok::<_, std::convert::Infallible>(http::Response::new(kinformer_rest::Body::empty()))
/// }));
/// let request = RestClient::new(client, "apps", "v1")
///     .get()
///     .namespace("prod")
///     .resource("deployments")
///     .versioned_params(&ListOptions::default().labels("app=web").limit(500));
/// assert_eq!(
///     request.url()?,
///     "/apis/apps/v1/namespaces/prod/deployments?labelSelector=app%3Dweb&limit=500"
/// );
/// # Ok::<(), kinformer_rest::Error>(())
/// ```
#[must_use = "a request does nothing until a terminal call such as `into` or `watch`"]
pub struct Request {
    pub(crate) client: Client,
    base_path: String,
    method: Method,
    namespace: Option<String>,
    resource: Option<String>,
    name: Option<String>,
    sub_resource: Option<String>,
    params: Vec<(String, String)>,
    headers: HeaderMap,
    body: Body,
    timeout: Option<Duration>,
    max_retries: Option<u32>,
    limits: Limits,
    /// What a list or watch decodes of each object.
    fields: Fields,
    /// The first builder error's message.
    error: Option<String>,
}

/// Header values, parameter values and the body are left out: any of them may carry a credential
/// (an `Authorization` header set by hand, a Secret being created).
impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let params: Vec<&str> = self.params.iter().map(|(k, _)| k.as_str()).collect();
        let headers: Vec<&str> = self.headers.keys().map(HeaderName::as_str).collect();
        f.debug_struct("Request")
            .field("client", &self.client)
            .field("method", &self.method)
            .field("base_path", &self.base_path)
            .field("namespace", &self.namespace)
            .field("resource", &self.resource)
            .field("name", &self.name)
            .field("sub_resource", &self.sub_resource)
            .field("params", &params)
            .field("headers", &headers)
            .field("body", &self.body)
            .field("timeout", &self.timeout)
            .field("fields", &self.fields)
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl Request {
    /// A request on `client` under `base_path` (a group-version path such as `/api/v1`).
    pub fn new(client: Client, method: Method, base_path: impl Into<String>) -> Self {
        let timeout = client.default_timeout();
        let limits = client.limits();
        Self {
            client,
            base_path: base_path.into(),
            method,
            namespace: None,
            resource: None,
            name: None,
            sub_resource: None,
            params: Vec::new(),
            headers: HeaderMap::new(),
            body: Body::empty(),
            timeout,
            max_retries: None,
            limits,
            fields: Fields::All,
            error: None,
        }
    }

    fn fail(mut self, message: String) -> Self {
        if self.error.is_none() {
            self.error = Some(message);
        }
        self
    }

    fn set_part(
        mut self,
        what: &str,
        slot: fn(&mut Self) -> &mut Option<String>,
        value: &str,
    ) -> Self {
        if self.error.is_some() {
            return self;
        }
        if slot(&mut self).is_some() {
            return self.fail(format!("{what} already set"));
        }
        if let Err(reason) = validate_segment(value) {
            return self.fail(format!("invalid {what} {value:?}: {reason}"));
        }
        *slot(&mut self) = Some(value.to_owned());
        self
    }

    /// The HTTP method.
    pub fn verb(mut self, method: Method) -> Self {
        self.method = method;
        self
    }

    /// Scopes the request to a namespace. A request without one reaches every namespace (or a
    /// cluster-scoped resource); an empty name is a builder error, not "all namespaces".
    pub fn namespace(self, namespace: &str) -> Self {
        if namespace.is_empty() {
            return self.fail(
                "empty namespace: leave the namespace unset to reach every namespace".to_owned(),
            );
        }
        self.set_part("namespace", |r| &mut r.namespace, namespace)
    }

    /// The resource (plural, lower-cased in the URL).
    pub fn resource(self, resource: &str) -> Self {
        self.set_part(
            "resource",
            |r| &mut r.resource,
            &resource.to_ascii_lowercase(),
        )
    }

    /// The object name; must not be empty.
    pub fn name(self, name: &str) -> Self {
        if name.is_empty() {
            return self.fail("resource name may not be empty".to_owned());
        }
        self.set_part("name", |r| &mut r.name, name)
    }

    /// The subresource, such as `status` or `scale`; several parts may be joined with `/`.
    pub fn sub_resource(mut self, sub_resource: &str) -> Self {
        if self.error.is_some() {
            return self;
        }
        if self.sub_resource.is_some() {
            return self.fail("subresource already set".to_owned());
        }
        for part in sub_resource.split('/') {
            if let Err(reason) = validate_segment(part) {
                return self.fail(format!("invalid subresource {sub_resource:?}: {reason}"));
            }
        }
        self.sub_resource = Some(sub_resource.to_owned());
        self
    }

    /// Appends a query parameter (parameters may repeat).
    pub fn param(mut self, key: &str, value: &str) -> Self {
        self.params.push((key.to_owned(), value.to_owned()));
        self
    }

    /// Appends the parameters of `options`, omitting unset ones (`resourceVersion=""` is not sent,
    /// `"0"` is).
    pub fn versioned_params(mut self, options: &ListOptions) -> Self {
        self.params.extend(
            options
                .query_pairs()
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v)),
        );
        self
    }

    /// Sets a header, replacing any previous value.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        match (HeaderName::try_from(name), HeaderValue::try_from(value)) {
            (Ok(n), Ok(v)) => {
                self.headers.insert(n, v);
                self
            }
            _ => self.fail(format!("invalid header {name:?}")),
        }
    }

    /// The request body (sent as `application/json` unless a content type was set).
    pub fn body(mut self, body: impl Into<Body>) -> Self {
        self.body = body.into();
        self
    }

    /// Serialises `value` as the JSON body.
    pub fn json_body<T: serde::Serialize + ?Sized>(self, value: &T) -> Self {
        match serde_json::to_vec(value) {
            Ok(bytes) => self.body(bytes),
            Err(e) => self.fail(format!("cannot encode the request body: {e}")),
        }
    }

    /// A client-side deadline: sent as the `timeout` query parameter, and enforced on
    /// `do_raw`/`into`/`list` (not on watches or streams, which the server ends).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Caps the retries of this request (default 10).
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = Some(retries);
        self
    }

    /// The largest watch event accepted by [`watch`](Self::watch), in bytes (default: the
    /// client's, 16 MiB).
    pub fn max_watch_frame(mut self, bytes: usize) -> Self {
        if bytes == 0 {
            return self.fail("max_watch_frame must be greater than zero".to_owned());
        }
        self.limits.watch_frame = bytes;
        self
    }

    /// The largest item accepted by [`list`](Self::list), in bytes (default: the client's,
    /// 16 MiB).
    pub fn max_list_item(mut self, bytes: usize) -> Self {
        if bytes == 0 {
            return self.fail("max_list_item must be greater than zero".to_owned());
        }
        self.limits.list_item = bytes;
        self
    }

    /// The largest body accepted by [`list`](Self::list), in bytes (default: the client's,
    /// unbounded).
    pub fn max_list_body(mut self, bytes: Option<usize>) -> Self {
        if bytes == Some(0) {
            return self.fail("max_list_body must be greater than zero".to_owned());
        }
        self.limits.list_body = bytes;
        self
    }

    /// The fields [`list`](Self::list) and [`watch`](Self::watch) decode of each object
    /// ([`Fields::All`] by default): the others are scanned past by the parser, never built.
    /// Protobuf objects of k8s-openapi's types are decoded by generated code for
    /// [`Fields::All`] and [`Fields::WithoutManagedFields`], through serde and the projection for
    /// [`Fields::Projected`].
    ///
    /// # Examples
    /// ```
    /// use k8s_openapi::api::core::v1::ConfigMap;
    /// use kinformer_core::Fields;
    /// use kinformer_rest::{Client, RestClient};
    ///
    /// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let sim = kinformer_sim::Sim::builder().configmaps(3).seed(1).start().await?;
    /// let rest = RestClient::new(Client::new(sim.service()), "", "v1");
    /// let request = rest.get().resource("configmaps");
    /// let lean = request.fields(Fields::WithoutManagedFields).list::<ConfigMap>().await?;
    /// assert_eq!(lean.items.len(), 3);
    /// assert!(lean.items.iter().all(|cm| cm.metadata.managed_fields.is_none()));
    /// # Ok(()) }
    /// ```
    pub fn fields(mut self, fields: Fields) -> Self {
        self.fields = fields;
        self
    }

    /// The request URL (prefixed with the client's base URL, if any).
    ///
    /// # Errors
    /// The first error a builder call met.
    pub fn url(&self) -> Result<String> {
        if let Some(message) = &self.error {
            return Err(Error::new(Kind::Request, message.clone()));
        }
        Ok(self.build_url())
    }

    fn build_url(&self) -> String {
        let mut url = String::with_capacity(128);
        url.push_str(self.client.base_url());
        let base = self.base_path.trim_end_matches('/');
        if !base.is_empty() && !base.starts_with('/') {
            url.push('/');
        }
        url.push_str(base);
        if let Some(ns) = &self.namespace {
            url.push_str("/namespaces/");
            url.push_str(ns);
        }
        for part in [&self.resource, &self.name, &self.sub_resource]
            .into_iter()
            .flatten()
        {
            url.push('/');
            url.push_str(part);
        }
        let mut params: Vec<(&str, String)> = self
            .params
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        if let Some(t) = self.timeout {
            params.push(("timeout", format_go_duration(t)));
        }
        for (i, (k, v)) in params.iter().enumerate() {
            url.push(if i == 0 { '?' } else { '&' });
            encode_query_component(&mut url, k);
            url.push('=');
            encode_query_component(&mut url, v);
        }
        url
    }
}

#[cfg(test)]
mod tests;
