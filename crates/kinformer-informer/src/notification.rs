//! [`Notification`]: one call owed to one handler.

use std::sync::Arc;

use kinformer_core::{Cached, DeletedState};

use super::handler::EventHandler;
use crate::error::{Error, Missed};

/// A handler call waiting in a listener's buffer. Cloning shares the objects; an object from a
/// compact cache stays packed until it is delivered.
#[derive(Debug)]
pub(crate) enum Notification<K> {
    Add {
        obj: Cached<K>,
        initial: bool,
    },
    Update {
        old: Cached<K>,
        new: Cached<K>,
    },
    Delete(DeletedState<K>),
    /// A delete inferred from a relist, with the cached object as its last known state
    /// (a [`DeletedState::Unknown`] once decoded).
    Vanished {
        key: Arc<str>,
        last: Cached<K>,
    },
}

impl<K: 'static> Notification<K> {
    /// True for an add of the initial list, which a registration's `has_synced` waits for.
    pub(crate) fn is_initial_add(&self) -> bool {
        matches!(self, Self::Add { initial: true, .. })
    }

    /// Calls the matching handler method, with packed objects decoded now.
    ///
    /// # Errors
    /// [`Error::Decode`] when a packed object fails to decode: the call is not made, and the
    /// caller reports the error to the handler in its place.
    pub(crate) fn deliver(&self, handler: &dyn EventHandler<K>) -> Result<(), Error> {
        match self {
            Self::Add { obj, initial } => {
                let obj = load(obj, Missed::Add)?;
                handler.on_add(&obj, *initial);
            }
            Self::Update { old, new } => {
                let loaded = load(new, Missed::Update)?;
                // A resync of a packed object decodes it once for both sides.
                let old = if old.same_as(new) {
                    Arc::clone(&loaded)
                } else {
                    load(old, Missed::Update)?
                };
                handler.on_update(&old, &loaded);
            }
            Self::Delete(state) => handler.on_delete(state),
            Self::Vanished { key, last } => {
                let last = last.load().map_err(|source| Error::Decode {
                    key: key.to_string(),
                    missed: Missed::Delete,
                    source,
                })?;
                handler.on_delete(&DeletedState::Unknown {
                    key: key.to_string(),
                    last,
                });
            }
        }
        Ok(())
    }
}

/// `obj` decoded, or the error standing in for the `missed` call. Only a packed object can
/// fail, and it knows its key.
fn load<K: 'static>(obj: &Cached<K>, missed: Missed) -> Result<Arc<K>, Error> {
    obj.load().map_err(|source| Error::Decode {
        key: decode_key(&source),
        missed,
        source,
    })
}

/// The key a decode failure names.
fn decode_key(error: &kinformer_core::StoreError) -> String {
    match error {
        kinformer_core::StoreError::Decode { key, .. } => key.clone(),
        _ => String::new(),
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
            Self::Vanished { key, last } => Self::Vanished {
                key: Arc::clone(key),
                last: last.clone(),
            },
        }
    }
}
