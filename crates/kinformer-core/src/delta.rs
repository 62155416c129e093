//! [`Delta`] and [`DeletedState`]: changes as a delta queue hands them to an informer.

use std::sync::Arc;

use crate::Cached;

/// What is known about a deleted object.
///
/// client-go passes either the object or a `DeletedFinalStateUnknown` tombstone as an untyped value;
/// here it is an enum, so no consumer can forget the tombstone case.
#[derive(Debug)]
#[non_exhaustive]
pub enum DeletedState<K> {
    /// The delete was observed: this is the object's final state.
    Known(Arc<K>),
    /// The delete was missed (found by a relist): `last` is the last state the cache knew.
    #[doc(alias = "DeletedFinalStateUnknown")]
    Unknown {
        /// The object's key.
        key: String,
        /// The last known state, possibly stale.
        last: Arc<K>,
    },
}

impl<K> DeletedState<K> {
    /// The last known object, whichever way the delete was learned.
    pub fn object(&self) -> &Arc<K> {
        match self {
            Self::Known(obj) | Self::Unknown { last: obj, .. } => obj,
        }
    }

    /// True for a tombstone (`Unknown`).
    pub fn is_tombstone(&self) -> bool {
        matches!(self, Self::Unknown { .. })
    }
}

impl<K> Clone for DeletedState<K> {
    fn clone(&self) -> Self {
        match self {
            Self::Known(obj) => Self::Known(Arc::clone(obj)),
            Self::Unknown { key, last } => Self::Unknown {
                key: key.clone(),
                last: Arc::clone(last),
            },
        }
    }
}

/// One change to one object, as queued by a delta FIFO.
///
/// Exhaustive on purpose: these are client-go's five delta types, and a consumer must handle
/// each of them; a new kind would be a breaking change, never a delta dropped at run time.
///
/// Objects are [`Cached`]: what a watch event brought is decoded, a listed or resynced object
/// is as its cache holds it (packed, for a cache that packs). A delete carries its final state
/// decoded, as handlers receive it.
#[derive(Debug)]
pub enum Delta<K> {
    /// The object was added.
    Added(Cached<K>),
    /// The object changed.
    Updated(Cached<K>),
    /// The object was deleted.
    Deleted(DeletedState<K>),
    /// The object was part of a relist (only with the "emit Replaced" option).
    Replaced(Cached<K>),
    /// A periodic resync re-delivered the object unchanged.
    Sync(Cached<K>),
}

impl<K> Delta<K> {
    /// The object this delta carries (the last known state for deletes), shared.
    pub fn object(&self) -> Cached<K> {
        match self {
            Self::Added(o) | Self::Updated(o) | Self::Replaced(o) | Self::Sync(o) => o.clone(),
            Self::Deleted(state) => Cached::from(Arc::clone(state.object())),
        }
    }

    /// True for `Deleted`.
    pub fn is_deleted(&self) -> bool {
        matches!(self, Self::Deleted(_))
    }
}

impl<K> Clone for Delta<K> {
    fn clone(&self) -> Self {
        match self {
            Self::Added(o) => Self::Added(o.clone()),
            Self::Updated(o) => Self::Updated(o.clone()),
            Self::Deleted(s) => Self::Deleted(s.clone()),
            Self::Replaced(o) => Self::Replaced(o.clone()),
            Self::Sync(o) => Self::Sync(o.clone()),
        }
    }
}
