//! [`Error`]: what can go wrong in the informer layer.

/// An informer-layer error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The informer has stopped: handlers can no longer be added, nor can it run again.
    #[error("the informer has stopped")]
    Stopped,
    /// An event handler was removed before it had handled the initial list.
    #[error("the event handler was removed before it synced")]
    HandlerRemoved,
    /// Informers of a factory stopped before their caches synced.
    #[error("informers stopped before their caches synced: {}", informers.join(", "))]
    NotSynced {
        /// Each one's name (`v1/pods`, `apps/v1/deployments`, ...).
        informers: Vec<String>,
    },
    /// The informer has already started: transforms and watch-error handlers must be set before.
    #[error("the informer has already started")]
    AlreadyStarted,
    /// The informer's cache refused an index change (name conflict, failing index function).
    #[error("the informer's indexes could not be changed")]
    Indexer(#[source] kinformer_indexer::Error),
    /// A handler call could not be made because a compact cache's copy of the object failed to
    /// decode; the handler receives this through
    /// [`EventHandler::on_decode_error`](crate::EventHandler::on_decode_error) in its place.
    #[error("the {missed} of {key:?} could not be delivered: its cached copy failed to decode")]
    Decode {
        /// The key of the object whose notification was lost.
        key: String,
        /// The call the handler would have received.
        missed: Missed,
        /// The decoder's error ([`StoreError::Decode`](kinformer_core::StoreError::Decode)).
        #[source]
        source: kinformer_core::StoreError,
    },
    /// The source cannot decode the fields of the informer's shape; the informer was not
    /// built.
    #[error("the informer's source cannot decode its shape's fields")]
    Fields(#[from] kinformer_core::FieldsError),
    /// An informer's or a factory's per-resource options cannot be applied (see [`Conflict`]);
    /// nothing was set or created.
    #[error("options for {resource}: {conflict}")]
    Options {
        /// The resource (`v1/pods`, `example.com/v1/widgets`).
        resource: String,
        /// What stands in the way.
        conflict: Conflict,
    },
    /// A namespace that is not a DNS-1123 label, the empty string included (every namespace
    /// is what a factory watches with none set); nothing was set.
    #[error(
        "invalid namespace {namespace:?}: a namespace is a DNS-1123 label; every namespace is \
         what a factory watches when none is set"
    )]
    InvalidNamespace {
        /// The refused value.
        namespace: String,
    },
}

/// Why options were refused ([`Error::Options`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Conflict {
    /// Two indexes of one name (the built-in namespace index included).
    DuplicateIndex(String),
    /// The factory holds an informer of this resource and object type already, built with
    /// other options; forget it first (the factory's `forget`).
    AlreadyCreated,
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::DuplicateIndex(name) => write!(f, "index {name:?} is defined twice"),
            Self::AlreadyCreated => f.write_str("the informer exists already"),
        }
    }
}

/// The handler call an [`Error::Decode`] stands in for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Missed {
    /// `on_add`.
    Add,
    /// `on_update`.
    Update,
    /// `on_delete`.
    Delete,
}

impl std::fmt::Display for Missed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Add => "add",
            Self::Update => "update",
            Self::Delete => "delete",
        })
    }
}

/// A result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
