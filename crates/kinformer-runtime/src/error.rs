//! The crate's error type.

use crate::ObjectRef;

/// What a controller reports for one object, or for itself.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error<E> {
    /// The reconcile of `object` failed; the controller retries it as its error policy says.
    /// The reconcile's error is any `Debug + Display` type (an `anyhow::Error` too), so it is
    /// carried and shown, not chained as a `source`.
    #[error("reconciling {object} failed: {error}")]
    Reconcile {
        /// The object.
        object: ObjectRef,
        /// What the reconcile returned.
        error: E,
    },
    /// An informer the controller reads stopped before its cache synced; nothing was
    /// reconciled.
    #[error("an informer stopped before its cache synced")]
    NotSynced(#[source] kinformer_informer::Error),
    /// A handler could not be added to an informer (it had stopped).
    #[error("the controller could not watch an informer")]
    Informer(#[source] kinformer_informer::Error),
    /// `finalizer` could not add (`adding`) or remove its finalizer on
    /// `object`: a conflict (the object changed since the cache read it; the next reconcile
    /// sees the change) or another API error.
    #[cfg(feature = "rest")]
    #[cfg_attr(docsrs, doc(cfg(feature = "rest")))]
    #[error(
        "could not {} finalizer {finalizer:?} {} {object}",
        if *.adding { "add" } else { "remove" },
        if *.adding { "to" } else { "from" }
    )]
    Finalizer {
        /// The object.
        object: ObjectRef,
        /// The finalizer.
        finalizer: String,
        /// True when adding it, false when removing it.
        adding: bool,
        /// The API server's answer.
        #[source]
        source: kinformer_api::Error,
    },
    /// A finalizer name the API server would refuse (it must be a qualified name such as
    /// `example.com/cleanup`).
    #[cfg(feature = "rest")]
    #[cfg_attr(docsrs, doc(cfg(feature = "rest")))]
    #[error("invalid finalizer name {finalizer:?}")]
    InvalidFinalizer {
        /// The name.
        finalizer: String,
        /// Why it is invalid.
        #[source]
        source: kinformer_selector::Error,
    },
}
