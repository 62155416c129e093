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
}
