//! [`Error`]: the failures a reflector reports to its watch-error handler.

use kinformer_core::StoreError;

/// A failure that ends one list-and-watch round; the reflector backs off and lists again.
///
/// Only these reach the watch-error handler. Errors that end an established watch (expiry, a
/// broken stream, a malformed frame) are logged and lead to a relist, as in client-go.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error<E> {
    /// Listing failed (after the immediate retry at resourceVersion `""` where that applies).
    #[error("list failed")]
    List(#[source] kinformer_pager::Error<E>),
    /// Opening a watch failed with an error that is not retried in place (not 429, not a
    /// transport failure).
    #[error("opening a watch failed")]
    WatchOpen(#[source] E),
    /// The store rejected the listed items.
    #[error("store rejected the list result")]
    Store(#[source] StoreError),
}

impl<E: kinformer_core::ApiError> Error<E> {
    /// True when the underlying API error says the resourceVersion expired.
    pub fn is_expired(&self) -> bool {
        match self {
            Self::List(err) => kinformer_core::ApiError::is_expired(err),
            Self::WatchOpen(err) => err.is_expired(),
            Self::Store(_) => false,
        }
    }
}
