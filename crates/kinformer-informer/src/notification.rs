//! [`Notification`]: one call owed to one handler.

use std::sync::Arc;

use kinformer_core::DeletedState;
use kinformer_indexer::Lazy;

use super::handler::EventHandler;

/// A handler call waiting in a listener's buffer. Cloning shares the objects; an object from a
/// compact cache stays packed until it is delivered.
#[derive(Debug)]
pub(crate) enum Notification<K> {
    Add { obj: Lazy<K>, initial: bool },
    Update { old: Lazy<K>, new: Lazy<K> },
    Delete(DeletedState<K>),
}

impl<K: 'static> Notification<K> {
    /// True for an add of the initial list, which a registration's `has_synced` waits for.
    pub(crate) fn is_initial_add(&self) -> bool {
        matches!(self, Self::Add { initial: true, .. })
    }

    /// Calls the matching handler method, with packed objects decoded now. An object that
    /// fails to decode (logged; only a serde bug could cause it) skips the call.
    pub(crate) fn deliver(&self, handler: &dyn EventHandler<K>) {
        match self {
            Self::Add { obj, initial } => {
                if let Some(obj) = obj.load() {
                    handler.on_add(&obj, *initial);
                }
            }
            Self::Update { old, new } => {
                let Some(loaded) = new.load() else { return };
                // A resync of a packed object decodes it once for both sides.
                let old = if old.same_as(new) {
                    Some(Arc::clone(&loaded))
                } else {
                    old.load()
                };
                if let Some(old) = old {
                    handler.on_update(&old, &loaded);
                }
            }
            Self::Delete(state) => handler.on_delete(state),
        }
    }
}

impl<K> Clone for Notification<K> {
    fn clone(&self) -> Self {
        match self {
            Self::Add { obj, initial } => Self::Add {
                obj: obj.clone(),
                initial: *initial,
            },
            Self::Update { old, new } => Self::Update {
                old: old.clone(),
                new: new.clone(),
            },
            Self::Delete(state) => Self::Delete(state.clone()),
        }
    }
}
