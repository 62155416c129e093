//! How the reflector sorts failures: client-go's `isExpiredError`, `isTooLargeResourceVersionError`
//! and `isWatchErrorRetriable`, applied alike to API errors and to watch `ERROR` events.
//!
//! One deliberate difference: a server error (5xx) is retriable. client-go relists after one,
//! but a failing server says nothing about the resourceVersion, which stays valid until the
//! server answers 410; relisting every informer after an API server restart is the storm this
//! avoids. A watch retried at a resourceVersion that did expire meanwhile gets its 410 and relists.

use kinformer_core::{ApiError, Status, is_expired_status, is_too_large_resource_version_status};

/// What a failure means for the reflector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// HTTP 410, or reason `Expired`/`Gone`: the resourceVersion left the server's history.
    Expired,
    /// The resourceVersion is newer than the server has seen.
    TooLarge,
    /// 429, 5xx, or no connection: retry the same request after a delay.
    Retriable,
    /// Anything else.
    Other,
}

impl Failure {
    pub(crate) fn of_error<E: ApiError>(err: &E) -> Self {
        if err.is_expired() {
            Self::Expired
        } else if err.is_too_large_resource_version() {
            Self::TooLarge
        } else if err.is_too_many_requests() || err.is_transport() || err.is_server_error() {
            Self::Retriable
        } else {
            Self::Other
        }
    }

    pub(crate) fn of_status(status: &Status) -> Self {
        if is_expired_status(status) {
            Self::Expired
        } else if is_too_large_resource_version_status(status) {
            Self::TooLarge
        } else if status.code == Some(429)
            || status.reason.as_deref() == Some("TooManyRequests")
            || status.code.is_some_and(|code| (500..600).contains(&code))
        {
            Self::Retriable
        } else {
            Self::Other
        }
    }
}
