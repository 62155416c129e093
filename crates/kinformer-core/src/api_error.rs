//! [`ApiError`]: what a reflector needs to know about a failed request, whatever the client.

use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;

/// An error from a list or watch call, classified the way client-go's `apierrors` helpers do.
///
/// Implementors provide the Kubernetes [`Status`] when there is one; the predicates follow from it.
pub trait ApiError: std::error::Error + Send + Sync + 'static {
    /// The server's `Status`, when the error carries one (HTTP error body or watch `ERROR` event).
    fn status(&self) -> Option<&Status>;

    /// How long the server asked the client to wait (`Retry-After` or `details.retryAfterSeconds`).
    fn retry_after(&self) -> Option<Duration> {
        self.status()
            .and_then(|s| s.details.as_ref())
            .and_then(|d| d.retry_after_seconds)
            .filter(|s| *s > 0)
            .map(|s| Duration::from_secs(u64::try_from(s).unwrap_or(0)))
    }

    /// True when the connection could not be made or broke (no response from the server).
    fn is_transport(&self) -> bool {
        false
    }

    /// HTTP 410 or reason `Expired`/`Gone`: the requested resourceVersion is no longer available.
    fn is_expired(&self) -> bool {
        self.status().is_some_and(is_expired_status)
    }

    /// The requested resourceVersion is newer than the server has (all three historical forms).
    fn is_too_large_resource_version(&self) -> bool {
        self.status()
            .is_some_and(is_too_large_resource_version_status)
    }

    /// HTTP 429 or reason `TooManyRequests`.
    fn is_too_many_requests(&self) -> bool {
        self.status()
            .is_some_and(|s| s.code == Some(429) || s.reason.as_deref() == Some("TooManyRequests"))
    }

    /// HTTP 5xx: the server failed (overloaded, restarting, a proxy in front of it) but said
    /// nothing about the request itself, so the same request may succeed later.
    fn is_server_error(&self) -> bool {
        self.status()
            .and_then(|s| s.code)
            .is_some_and(|code| (500..600).contains(&code))
    }

    /// The request was rejected as invalid (400 or 422): a feature the server does not support.
    fn is_invalid(&self) -> bool {
        self.status().is_some_and(|s| {
            matches!(s.reason.as_deref(), Some("Invalid" | "BadRequest"))
                || matches!(s.code, Some(400 | 422))
        })
    }
}

/// True for a `Status` that means "resourceVersion expired": reason `Expired` or `Gone`, or code 410
/// with a reason that is not otherwise known.
///
/// ```
/// use kinformer_core::{Status, is_expired_status};
///
/// let status = Status { code: Some(410), reason: Some("Expired".into()), ..Status::default() };
/// assert!(is_expired_status(&status));
/// ```
pub fn is_expired_status(status: &Status) -> bool {
    match status.reason.as_deref() {
        Some("Expired" | "Gone") => true,
        Some("") | None => status.code == Some(410),
        Some(_) => false,
    }
}

/// True for a `Status` that means "resourceVersion too large", in any of its three historical forms:
/// a cause `ResourceVersionTooLarge`; a `Timeout` with a cause message "Too large resource version";
/// a `Timeout` whose message contains it.
///
/// ```
/// use kinformer_core::{Status, is_too_large_resource_version_status};
///
/// let status = Status {
///     code: Some(504),
///     reason: Some("Timeout".into()),
///     message: Some("Timeout: Too large resource version: 12, current: 7".into()),
///     ..Status::default()
/// };
/// assert!(is_too_large_resource_version_status(&status));
/// ```
pub fn is_too_large_resource_version_status(status: &Status) -> bool {
    const TOO_LARGE: &str = "Too large resource version";
    let causes = status.details.as_ref().and_then(|d| d.causes.as_ref());
    if causes.is_some_and(|cs| {
        cs.iter()
            .any(|c| c.reason.as_deref() == Some("ResourceVersionTooLarge"))
    }) {
        return true;
    }
    let is_timeout = status.reason.as_deref() == Some("Timeout") || status.code == Some(504);
    if !is_timeout {
        return false;
    }
    causes.is_some_and(|cs| {
        cs.iter()
            .any(|c| c.message.as_deref().is_some_and(|m| m.contains(TOO_LARGE)))
    }) || status
        .message
        .as_deref()
        .is_some_and(|m| m.contains(TOO_LARGE))
}
