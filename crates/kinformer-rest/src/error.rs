//! [`Error`]: one opaque error for everything the REST client can fail at.

use std::fmt;
use std::time::Duration;

use kinformer_core::{ApiError, Status, is_expired_status, is_too_large_resource_version_status};

/// A boxed error cause.
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a REST call, a configuration load or a watch failed.
///
/// The error is opaque: ask it questions with the predicates (`is_not_found`, `is_gone`,
/// `is_transport`, ...), read the server's [`Status`] with [`status`](Self::status), and walk the
/// cause with [`source`](std::error::Error::source). Its `Display` names this level only.
///
/// Credentials never appear in it: messages carry URLs, file paths and status text, never tokens,
/// passwords or key material.
///
/// # Examples
/// ```
/// use kinformer_core::{ApiError, Status};
/// use kinformer_rest::Error;
///
/// let err = Error::from_status(Status {
///     code: Some(410),
///     reason: Some("Expired".into()),
///     message: Some("too old resource version: 1 (5)".into()),
///     ..Status::default()
/// });
/// assert!(err.is_gone() && err.is_resource_expired() && err.is_expired());
/// assert!(!err.is_transport());
/// ```
pub struct Error {
    inner: Box<Inner>,
}

struct Inner {
    kind: Kind,
    status: Option<Status>,
    retry_after: Option<Duration>,
    message: String,
    source: Option<BoxError>,
}

/// What went wrong, privately: the public surface is the predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The server answered with a non-success status (the Status is set).
    Api,
    /// A watch stream carried an `ERROR` event (the Status is set).
    WatchEvent,
    /// No response: connect, TLS or a broken connection.
    Transport,
    /// The client-side request timeout elapsed.
    Timeout,
    /// A response body could not be decoded.
    Decode,
    /// A watch event, list item or list body exceeded its configured maximum size.
    TooLarge,
    /// The request was malformed before it was sent (bad path segment, bad header).
    Request,
    /// Configuration could not be loaded or is invalid.
    Config,
    /// Credentials could not be obtained (token file, exec plugin).
    Auth,
}

impl Error {
    pub(crate) fn new(kind: Kind, message: impl Into<String>) -> Self {
        Self {
            inner: Box::new(Inner {
                kind,
                status: None,
                retry_after: None,
                message: message.into(),
                source: None,
            }),
        }
    }

    pub(crate) fn with_source(mut self, source: impl Into<BoxError>) -> Self {
        self.inner.source = Some(source.into());
        self
    }

    pub(crate) fn with_retry_after(mut self, after: Option<Duration>) -> Self {
        self.inner.retry_after = after;
        self
    }

    pub(crate) fn kind(&self) -> Kind {
        self.inner.kind
    }

    /// An API error carrying a server `Status` (as from an error response).
    pub fn from_status(status: Status) -> Self {
        let message = status
            .message
            .clone()
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| format!("the server returned status {}", status.code.unwrap_or(0)));
        let mut err = Self::new(Kind::Api, message);
        err.inner.status = Some(status);
        err
    }

    /// The error of a watch `ERROR` event carrying `status`.
    pub fn from_watch_status(status: Status) -> Self {
        let mut err = Self::from_status(status);
        err.inner.kind = Kind::WatchEvent;
        err
    }

    /// The server's `Status`, when the error carries one.
    pub fn status(&self) -> Option<&Status> {
        self.inner.status.as_ref()
    }

    /// The HTTP status code (from the response or the Status body).
    pub fn status_code(&self) -> Option<u16> {
        self.status()
            .and_then(|s| s.code)
            .and_then(|c| u16::try_from(c).ok())
    }

    fn reason(&self) -> Option<&str> {
        self.status().and_then(|s| s.reason.as_deref())
    }

    /// client-go's rule: a known reason decides; an unknown or empty reason falls back to the code.
    fn reason_or_code(&self, reason: &str, code: u16) -> bool {
        match self.reason() {
            Some(r) if r == reason => true,
            Some(r) if !r.is_empty() && is_known_reason(r) => false,
            _ => self.status_code() == Some(code),
        }
    }

    /// 404 or reason `NotFound`.
    pub fn is_not_found(&self) -> bool {
        self.reason_or_code("NotFound", 404)
    }

    /// 409 or reason `Conflict`.
    pub fn is_conflict(&self) -> bool {
        self.reason_or_code("Conflict", 409)
    }

    /// Reason `AlreadyExists`.
    pub fn is_already_exists(&self) -> bool {
        self.reason() == Some("AlreadyExists")
    }

    /// 403 or reason `Forbidden`.
    pub fn is_forbidden(&self) -> bool {
        self.reason_or_code("Forbidden", 403)
    }

    /// 401 or reason `Unauthorized`.
    pub fn is_unauthorized(&self) -> bool {
        self.reason_or_code("Unauthorized", 401)
    }

    /// 410 or reason `Gone` (client-go `IsGone`), or reason `Expired` (`IsResourceExpired`).
    pub fn is_gone(&self) -> bool {
        self.status().is_some_and(is_expired_status)
    }

    /// Reason `Expired` (client-go `IsResourceExpired`).
    pub fn is_resource_expired(&self) -> bool {
        self.reason() == Some("Expired")
            || (self.reason().is_none_or(str::is_empty) && self.status_code() == Some(410))
    }

    /// The requested resourceVersion is newer than the server has (any of the three forms).
    pub fn is_too_large_resource_version(&self) -> bool {
        self.status()
            .is_some_and(is_too_large_resource_version_status)
    }

    /// 429 or reason `TooManyRequests`.
    pub fn is_too_many_requests(&self) -> bool {
        self.status_code() == Some(429) || self.reason() == Some("TooManyRequests")
    }

    /// The client-side timeout elapsed, or the server answered 504 / reason `Timeout`.
    pub fn is_timeout(&self) -> bool {
        self.kind() == Kind::Timeout || self.reason_or_code("Timeout", 504)
    }

    /// 500 or reason `InternalError`.
    pub fn is_internal_error(&self) -> bool {
        self.reason_or_code("InternalError", 500)
    }

    /// 503 or reason `ServiceUnavailable`.
    pub fn is_service_unavailable(&self) -> bool {
        self.reason_or_code("ServiceUnavailable", 503)
    }

    /// No response was received: connect, TLS handshake or a broken connection.
    pub fn is_transport(&self) -> bool {
        self.kind() == Kind::Transport
    }

    /// The TLS handshake failed: the server's certificate is not trusted (an unknown
    /// authority, expired, issued for another host name) or the server refused ours. Such an
    /// error is also [`is_transport`](Self::is_transport); the `rustls::Error` in its
    /// [`source`](std::error::Error::source) chain says which check failed.
    pub fn is_tls(&self) -> bool {
        let mut cause = std::error::Error::source(self);
        while let Some(err) = cause {
            // `io::Error::source` skips the error it wraps, so look inside explicitly.
            let wrapped = err
                .downcast_ref::<std::io::Error>()
                .and_then(std::io::Error::get_ref)
                .is_some_and(|inner| inner.is::<rustls::Error>());
            if wrapped || err.is::<rustls::Error>() {
                return true;
            }
            cause = err.source();
        }
        false
    }

    /// A response body or watch frame could not be decoded.
    pub fn is_decode(&self) -> bool {
        matches!(self.kind(), Kind::Decode | Kind::TooLarge)
    }

    /// A watch event, list item or list body exceeded its configured maximum size
    /// ([`Config::max_watch_frame`](crate::Config::max_watch_frame),
    /// [`max_list_item`](crate::Config::max_list_item),
    /// [`max_list_body`](crate::Config::max_list_body)); the decoder stopped buffering at the limit.
    pub fn is_response_too_large(&self) -> bool {
        self.kind() == Kind::TooLarge
    }

    /// The error came from a watch `ERROR` event (the stream itself worked).
    pub fn is_watch_error_event(&self) -> bool {
        self.kind() == Kind::WatchEvent
    }

    /// Configuration could not be loaded (kubeconfig, in-cluster environment, TLS material).
    pub fn is_config(&self) -> bool {
        self.kind() == Kind::Config
    }

    /// Credentials could not be obtained (token file, exec plugin).
    pub fn is_auth(&self) -> bool {
        self.kind() == Kind::Auth
    }

    /// The request was invalid before sending (bad path segment or header).
    pub fn is_invalid_request(&self) -> bool {
        self.kind() == Kind::Request
    }

    /// How long the server asked the client to wait: `Retry-After` or `details.retryAfterSeconds`.
    pub fn retry_after(&self) -> Option<Duration> {
        self.inner.retry_after.or_else(|| {
            self.status()
                .and_then(|s| s.details.as_ref())
                .and_then(|d| d.retry_after_seconds)
                .and_then(|s| u64::try_from(s).ok())
                .filter(|s| *s > 0)
                .map(Duration::from_secs)
        })
    }
}

/// Reasons client-go's `reasonForError` recognises; an unknown reason lets the code decide.
fn is_known_reason(reason: &str) -> bool {
    matches!(
        reason,
        "Unauthorized"
            | "Forbidden"
            | "NotFound"
            | "AlreadyExists"
            | "Conflict"
            | "Gone"
            | "Invalid"
            | "ServerTimeout"
            | "StoreReadError"
            | "Timeout"
            | "TooManyRequests"
            | "BadRequest"
            | "MethodNotAllowed"
            | "NotAcceptable"
            | "RequestEntityTooLarge"
            | "UnsupportedMediaType"
            | "InternalError"
            | "Expired"
            | "ServiceUnavailable"
    )
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind() {
            Kind::Api => "api error",
            Kind::WatchEvent => "watch error event",
            Kind::Transport => "transport error",
            Kind::Timeout => "timeout",
            Kind::Decode => "decode error",
            Kind::TooLarge => "response too large",
            Kind::Request => "invalid request",
            Kind::Config => "configuration error",
            Kind::Auth => "authentication error",
        };
        match self.status_code() {
            Some(code) => write!(f, "{what} ({code}): {}", self.inner.message),
            None => write!(f, "{what}: {}", self.inner.message),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Error");
        d.field("kind", &self.kind())
            .field("message", &self.inner.message);
        if let Some(status) = self.status() {
            d.field("code", &status.code)
                .field("reason", &status.reason);
        }
        if let Some(source) = &self.inner.source {
            d.field("source", source);
        }
        d.finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner
            .source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl ApiError for Error {
    fn status(&self) -> Option<&Status> {
        Self::status(self)
    }

    fn retry_after(&self) -> Option<Duration> {
        Self::retry_after(self)
    }

    fn is_transport(&self) -> bool {
        Self::is_transport(self)
    }
}

#[cfg(test)]
mod tests;
