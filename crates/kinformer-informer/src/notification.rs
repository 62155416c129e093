//! [`Notification`]: one call owed to one handler.

use std::sync::Arc;

use kinformer_core::DeletedState;

use super::handler::EventHandler;

/// A handler call waiting in a listener's buffer. Cloning shares the objects.
#[derive(Debug)]
pub(crate) enum Notification<K> {
    Add { obj: Arc<K>, initial: bool },
    Update { old: Arc<K>, new: Arc<K> },
    Delete(DeletedState<K>),
}

impl<K: 'static> Notification<K> {
    /// True for an add of the initial list, which a registration's `has_synced` waits for.
    pub(crate) fn is_initial_add(&self) -> bool {
        matches!(self, Self::Add { initial: true, .. })
    }

    /// Calls the matching handler method.
    pub(crate) fn deliver(&self, handler: &dyn EventHandler<K>) {
        match self {
            Self::Add { obj, initial } => handler.on_add(obj, *initial),
            Self::Update { old, new } => handler.on_update(old, new),
            Self::Delete(state) => handler.on_delete(state),
        }
    }
}

impl<K> Clone for Notification<K> {
    fn clone(&self) -> Self {
        match self {
            Self::Add { obj, initial } => Self::Add {
                obj: Arc::clone(obj),
                initial: *initial,
            },
            Self::Update { old, new } => Self::Update {
                old: Arc::clone(old),
                new: Arc::clone(new),
            },
            Self::Delete(state) => Self::Delete(state.clone()),
        }
    }
}
