//! The crate's [`Error`].

/// Why a queue operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `pop` on a queue that is closed and empty (client-go's `ErrFIFOClosed`).
    #[error("queue is closed")]
    Closed,
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
