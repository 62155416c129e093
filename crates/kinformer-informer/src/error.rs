//! [`Error`]: what can go wrong in the informer layer.

/// An informer-layer error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The informer has stopped: handlers can no longer be added, nor can it run again.
    #[error("the informer has stopped")]
    Stopped,
    /// The informer has already started: transforms and watch-error handlers must be set before.
    #[error("the informer has already started")]
    AlreadyStarted,
    /// The informer's cache refused an index change (name conflict, failing index function).
    #[error("the informer's indexes could not be changed")]
    Indexer(#[source] kinformer_indexer::Error),
}

/// A result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
