//! The indexer's reads: by key, by index, and every object; in compact mode each object read
//! is decoded after the lock is released.

use std::sync::Arc;

use kinformer_core::{Cached, Object, StoreRead};

use crate::Indexer;
use crate::packed::PackedObject;
use crate::state::State;

impl<K: Object> Indexer<K> {
    /// What to load for each of `keys`, taken under the lock.
    pub(crate) fn held_of<'a>(
        &self,
        state: &State<K>,
        keys: impl IntoIterator<Item = &'a Arc<str>>,
    ) -> Vec<Cached<K>> {
        keys.into_iter()
            .filter_map(|key| state.items.get(key)?.cached(key, self.compact.as_ref()))
            .collect()
    }

    /// What to load for the objects indexed under `value` in index `name`, in key order.
    pub(crate) fn held_by_index(
        &self,
        name: &str,
        value: &str,
    ) -> Result<Vec<Cached<K>>, crate::Error> {
        let state = self.read();
        let index = state.index(name)?;
        Ok(index
            .values
            .get(value)
            .map(|keys| self.held_of(&state, keys))
            .unwrap_or_default())
    }
}

impl<K: Object> Indexer<K> {
    /// The object of `obj` as a read hands it out: decoded now when packed, unless it is hot;
    /// `remember` makes a decoded object hot (point and index reads; a whole-cache read does
    /// not, so a scan keeps the working set).
    pub(crate) fn load_read(&self, obj: &Cached<K>, remember: bool) -> Option<Arc<K>> {
        // Without a hot set (plain compact mode) nothing is looked up.
        let Some((hot, packed)) = self
            .hot
            .as_ref()
            .and_then(|hot| Some((hot, PackedObject::of(obj)?)))
        else {
            return load_logged(obj);
        };
        let key = obj.key(&self.key_func);
        if let Some(object) = hot.get(&key, &packed.bytes) {
            return Some(object);
        }
        let object = load_logged(obj)?;
        if remember {
            hot.insert(
                Arc::from(&*key),
                Arc::clone(&packed.bytes),
                Arc::clone(&object),
            );
        }
        Some(object)
    }

    /// [`load_read`](Self::load_read) of each of `held`, in order.
    pub(crate) fn load_reads(&self, held: Vec<Cached<K>>, remember: bool) -> Vec<Arc<K>> {
        held.iter()
            .filter_map(|obj| self.load_read(obj, remember))
            .collect()
    }
}

/// The object of `obj`, decoded now when packed; `None` (logged) when it fails to decode,
/// which only a type whose serde implementations do not round-trip could cause.
pub(crate) fn load_logged<K: 'static>(obj: &Cached<K>) -> Option<Arc<K>> {
    obj.load()
        .inspect_err(|error| tracing::error!(%error, "a packed object failed to decode"))
        .ok()
}

impl<K: Object> StoreRead<K> for Indexer<K> {
    fn get_by_key(&self, key: &str) -> Option<Arc<K>> {
        self.load_read(&self.get_cached(key)?, true)
    }

    /// Every object, decoded at once in compact mode: [`IndexRead::iter`](crate::IndexRead::iter) reads them one at a
    /// time.
    fn list(&self) -> Vec<Arc<K>> {
        self.load_reads(self.list_cached(), false)
    }

    fn get_cached(&self, key: &str) -> Option<Cached<K>> {
        let state = self.read();
        let (key, entry) = state.items.get_key_value(key)?;
        entry.cached(key, self.compact.as_ref())
    }

    fn list_cached(&self) -> Vec<Cached<K>> {
        let state = self.read();
        self.held_of(&state, state.items.keys())
    }

    fn list_keys(&self) -> Vec<String> {
        self.read()
            .items
            .keys()
            .map(|key| key.to_string())
            .collect()
    }

    fn len(&self) -> usize {
        self.read().items.len()
    }
}
