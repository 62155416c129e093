//! What enters a compact cache: objects packed as they are written, and listed objects packed
//! as they arrive ([`Indexer::stage`]), so that a relist is never held decoded all at once.
//!
//! A reflector collects a whole list before the cache's replace. Staged, each listed object is
//! packed the moment it is decoded and the list holds a stand-in in its place: the object's
//! name, namespace, UID and resourceVersion, marked as a stand-in (so in compact mode a custom
//! key function sees only these of a listed object). The replace (or an update of the stand-in, through a
//! delta FIFO) takes the staged bytes; handlers are given the packed object, decoded on
//! delivery ([`Lazy`](crate::Lazy)). A stand-in never reaches a reader or a handler.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError};

use kinformer_core::Object;

use crate::state::{Incoming, IncomingAll};
use crate::{Error, Indexer, Lazy};

/// The mark a stand-in carries in `metadata.selfLink`, a field API servers stopped setting in
/// Kubernetes 1.20.
const STAND_IN: &str = "kinformer:packed";

/// A listed object packed as it arrived, until the cache takes it in.
pub(crate) struct Staged<K> {
    stand_in: Arc<K>,
    bytes: Arc<[u8]>,
    /// Index values computed as it arrived, valid for that index generation.
    values: (u64, Vec<Vec<String>>),
}

/// Staged objects by key.
pub(crate) type Staging<K> = HashMap<Arc<str>, Staged<K>>;

/// `obj`'s stand-in: what keys and versions it (name, namespace, UID, resourceVersion), marked.
/// Nothing more: a whole list of stand-ins is held until the cache takes it in.
pub(crate) fn stand_in_for<K: Object + Default>(obj: &K) -> K {
    let mut stand_in = K::default();
    let meta = stand_in.meta_mut();
    let from = obj.meta();
    meta.name.clone_from(&from.name);
    meta.namespace.clone_from(&from.namespace);
    meta.uid.clone_from(&from.uid);
    meta.resource_version.clone_from(&from.resource_version);
    meta.self_link = Some(STAND_IN.to_owned());
    stand_in
}

/// True for a staged object's stand-in.
pub(crate) fn is_stand_in<K: Object>(obj: &K) -> bool {
    obj.meta().self_link.as_deref() == Some(STAND_IN)
}

impl<K: Object> Indexer<K> {
    /// Takes in one listed object as it arrives. In compact mode it is packed now and a
    /// metadata-only stand-in is returned for the list; the replace that follows stores the
    /// packed bytes. Outside compact mode (or for an object that does not encode or index) it
    /// is returned as it is.
    pub fn stage(&self, obj: Arc<K>) -> Arc<K> {
        let Some(compact) = self.compact else {
            return obj;
        };
        let key: Arc<str> = Arc::from(self.key_func.key(&obj));
        let Some(bytes) = compact.pack(&key, &obj) else {
            return obj;
        };
        let values = {
            let state = self.read();
            match crate::state::values_of(&state.indices, &key, &obj) {
                Ok(values) => (state.generation, values),
                // The replace reports it.
                Err(_) => return obj,
            }
        };
        let stand_in = Arc::new(compact.stand_in(&obj));
        let staged = Staged {
            stand_in: Arc::clone(&stand_in),
            bytes,
            values,
        };
        self.staging().insert(key, staged);
        stand_in
    }

    fn staging(&self) -> std::sync::MutexGuard<'_, Staging<K>> {
        self.staged.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `obj` ready to store: packed in compact mode (its staged bytes when it is a stand-in).
    /// `None` for a stand-in whose bytes the cache took in already (the same revision is
    /// stored; nothing to do).
    pub(crate) fn incoming(&self, key: &str, obj: Arc<K>) -> Result<Option<Incoming<K>>, Error> {
        let Some(compact) = self.compact else {
            return Ok(Some(Incoming::new(obj, None)));
        };
        if let Some(staged) = self.take_staged(key, &obj) {
            return Ok(Some(staged));
        }
        if is_stand_in(&*obj) {
            return match self.held_bytes(key, &obj) {
                Some(_) => Ok(None),
                None => Err(lost(key)),
            };
        }
        let bytes = compact.pack(key, &obj);
        Ok(Some(Incoming::new(obj, bytes)))
    }

    /// A relist's objects ready to store: staged bytes for stand-ins, the cached bytes of an
    /// unchanged revision, else packed now. Staged objects no list holds any more are dropped.
    pub(crate) fn incoming_all(
        &self,
        keyed: impl IntoIterator<Item = (Arc<str>, Arc<K>)>,
    ) -> Result<IncomingAll<K>, Error> {
        let Some(compact) = self.compact else {
            let plain = keyed
                .into_iter()
                .map(|(key, obj)| (key, Incoming::new(obj, None)));
            return Ok(plain.collect());
        };
        let incoming = keyed
            .into_iter()
            .map(|(key, obj)| {
                if let Some(staged) = self.take_staged(&key, &obj) {
                    return Ok((key, staged));
                }
                let bytes = match self.held_bytes(&key, &obj) {
                    Some(bytes) => Some(bytes),
                    None if is_stand_in(&*obj) => return Err(lost(&key)),
                    None => compact.pack(&key, &obj),
                };
                Ok((key, Incoming::new(obj, bytes)))
            })
            .collect();
        self.staging()
            .retain(|_, staged| Arc::strong_count(&staged.stand_in) > 1);
        incoming
    }

    /// The staged bytes of `obj` when it is a staged stand-in, taken out of the staging.
    fn take_staged(&self, key: &str, obj: &Arc<K>) -> Option<Incoming<K>> {
        let mut staging = self.staging();
        let staged = staging.get(key)?;
        if !Arc::ptr_eq(&staged.stand_in, obj) {
            return None;
        }
        let staged = staging.remove(key)?;
        let mut incoming = Incoming::new(staged.stand_in, Some(staged.bytes));
        incoming.values = Some(staged.values);
        Some(incoming)
    }

    /// The packed bytes the cache holds for `key` at `obj`'s resourceVersion.
    fn held_bytes(&self, key: &str, obj: &K) -> Option<Arc<[u8]>> {
        let rv = obj.resource_version().filter(|rv| !rv.is_empty())?;
        match self.read().items.get(key)? {
            crate::compact::Entry::Packed(packed) if *packed.resource_version == *rv => {
                Some(Arc::clone(&packed.bytes))
            }
            _ => None,
        }
    }

    /// `obj` for handing on: the cache's packed bytes when `obj` is a stand-in (call it once
    /// the cache took `obj` in), else `obj` itself.
    pub fn lazy_of(&self, obj: &Arc<K>) -> Option<Lazy<K>> {
        if is_stand_in(&**obj) {
            self.get_lazy(&self.key_func.key(obj))
        } else {
            Some(Lazy::Ready(Arc::clone(obj)))
        }
    }

    /// Every cached object, for handing on without decoding.
    pub fn list_lazy(&self) -> Vec<Lazy<K>> {
        let keys = {
            let state = self.read();
            state.items.keys().cloned().collect::<Vec<_>>()
        };
        keys.iter().filter_map(|key| self.get_lazy(key)).collect()
    }
}

fn lost(key: &str) -> Error {
    Error::Decode {
        key: key.to_owned(),
        message: "a listed object's packed bytes were lost before the cache took it in".into(),
    }
}
