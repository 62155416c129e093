//! The crate's [`Error`].

use kinformer_core::StoreError;

/// Why an indexer or lister call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A query named an index that does not exist.
    #[error("index with name {name:?} does not exist")]
    UnknownIndex {
        /// The index name.
        name: String,
    },
    /// `add_indexers` named indexes that already exist; nothing was added.
    #[error("indexer conflict: {names:?}")]
    IndexConflict {
        /// The names that already exist.
        names: Vec<String>,
    },
    /// An index function failed; nothing was applied.
    #[error("index {index:?} failed for object {key:?}: {message}")]
    IndexFunc {
        /// The index name.
        index: String,
        /// The object's key.
        key: String,
        /// What the index function reported.
        message: String,
    },
    /// A compact-mode object could not be decoded to index it under a new index; nothing was
    /// added.
    #[error("cached object {key:?} failed to decode: {message}")]
    Decode {
        /// The object's key.
        key: String,
        /// What the decoder reported.
        message: String,
    },
    /// A setting was given a value it does not take.
    #[error("invalid {setting}: {reason}")]
    InvalidSetting {
        /// The setting.
        setting: &'static str,
        /// Why the value is refused.
        reason: String,
    },
    /// A lister found no object of that name.
    #[error("{resource} {name:?} not found")]
    NotFound {
        /// The resource (plural), as given to the lister.
        resource: String,
        /// The object name (without namespace).
        name: String,
    },
}

impl Error {
    /// True for [`Error::NotFound`].
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::NotFound { .. })
    }
}

impl From<Error> for StoreError {
    fn from(error: Error) -> Self {
        match error {
            Error::IndexFunc {
                index,
                key,
                message,
            } => Self::Index {
                index,
                key,
                message,
            },
            other => Self::Index {
                index: String::new(),
                key: String::new(),
                message: other.to_string(),
            },
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
