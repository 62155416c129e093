//! [`Error`]: why a paged list failed.

use kinformer_core::{ApiError, Status};

/// A `Result` whose error is the pager's [`Error`].
pub type Result<T, E> = std::result::Result<T, Error<E>>;

/// A paged list failed. `E` is the lister's error, available through `source()` and
/// [`api_error`](Self::api_error); the pager's error is itself an [`ApiError`] that forwards the
/// classification of the lister's error, so callers can test `is_expired()` directly.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error<E> {
    /// The request for page `page` (0 is the first page) failed.
    #[error("list request for page {page} failed")]
    Page {
        /// Index of the failed page; 0 is the first request.
        page: usize,
        /// True when at least one continue token had been followed before the failure.
        paginated: bool,
        /// The lister's error.
        #[source]
        source: E,
    },
    /// A continuation page expired and the full unpaginated list tried instead failed too.
    #[error("full list after an expired continue token failed")]
    FullList {
        /// The lister's error for the full list.
        #[source]
        source: E,
    },
    /// The server returned the continue token it was just sent, which would page forever.
    #[error("server repeated the continue token of page {page}")]
    RepeatedContinueToken {
        /// Index of the page whose token came back unchanged.
        page: usize,
    },
}

impl<E> Error<E> {
    /// The lister's error, when the failure came from a request.
    pub fn api_error(&self) -> Option<&E> {
        match self {
            Self::Page { source, .. } | Self::FullList { source } => Some(source),
            Self::RepeatedContinueToken { .. } => None,
        }
    }

    /// True when at least one continue token had been followed before the failure.
    pub fn paginated(&self) -> bool {
        match self {
            Self::Page { paginated, .. } => *paginated,
            Self::FullList { .. } | Self::RepeatedContinueToken { .. } => true,
        }
    }
}

impl<E: ApiError> ApiError for Error<E> {
    fn status(&self) -> Option<&Status> {
        self.api_error().and_then(ApiError::status)
    }

    fn retry_after(&self) -> Option<std::time::Duration> {
        self.api_error().and_then(ApiError::retry_after)
    }

    fn is_transport(&self) -> bool {
        self.api_error().is_some_and(ApiError::is_transport)
    }

    fn is_expired(&self) -> bool {
        self.api_error().is_some_and(ApiError::is_expired)
    }

    fn is_too_large_resource_version(&self) -> bool {
        self.api_error()
            .is_some_and(ApiError::is_too_large_resource_version)
    }

    fn is_too_many_requests(&self) -> bool {
        self.api_error().is_some_and(ApiError::is_too_many_requests)
    }

    fn is_invalid(&self) -> bool {
        self.api_error().is_some_and(ApiError::is_invalid)
    }
}

/// client-go's `IsResourceExpired`: reason `Expired` exactly. `Gone` and a bare 410 do not qualify
/// for the full-list fallback, as in client-go's pager.
pub(crate) fn is_resource_expired<E: ApiError>(err: &E) -> bool {
    err.status()
        .is_some_and(|s| s.reason.as_deref() == Some("Expired"))
}
