//! The indexer's reads: by key, by index, and every object; in compact mode each object read
//! is decoded after the lock is released.

use std::collections::BTreeSet;
use std::sync::Arc;

use kinformer_core::{Object, StoreRead};

use crate::compact::Entry;
use crate::state::State;
use crate::{Error, Indexer, Lazy};

impl<K: Object> Indexer<K> {
    /// The objects that share at least one `name` index value with `obj`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::{Object, Store};
    /// use kinformer_indexer::{Indexer, NAMESPACE_INDEX};
    ///
    /// let indexer: Indexer<Pod> = Indexer::default();
    /// for (ns, name) in [("a", "p1"), ("a", "p2"), ("b", "p3")] {
    ///     let mut pod = Pod::default();
    ///     pod.metadata.namespace = Some(ns.into());
    ///     pod.metadata.name = Some(name.into());
    ///     indexer.add(Arc::new(pod))?;
    /// }
    /// let p1 = indexer.by_index(NAMESPACE_INDEX, "a")?[0].clone();
    /// let same_namespace: Vec<_> = indexer.index(NAMESPACE_INDEX, &p1)?.iter().map(|p| p.name().to_owned()).collect();
    /// assert_eq!(same_namespace, ["p1", "p2"]);
    /// assert_eq!(indexer.list_index_func_values(NAMESPACE_INDEX), ["a", "b"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::UnknownIndex`], or [`Error::IndexFunc`] when `obj` cannot be indexed.
    pub fn index(&self, name: &str, obj: &K) -> Result<Vec<Arc<K>>, Error> {
        let state = self.read();
        let index = state.index(name)?;
        let values = index.func.values(obj).map_err(|message| Error::IndexFunc {
            index: name.to_owned(),
            key: self.key_func.key(obj),
            message,
        })?;
        let keys: BTreeSet<&Arc<str>> = values
            .iter()
            .filter_map(|value| index.values.get(value.as_str()))
            .flatten()
            .collect();
        let held = self.held_of(&state, keys);
        drop(state);
        Ok(load_all(held))
    }

    /// The keys indexed under `value` in index `name`, sorted.
    ///
    /// # Errors
    /// [`Error::UnknownIndex`].
    pub fn index_keys(&self, name: &str, value: &str) -> Result<Vec<String>, Error> {
        let state = self.read();
        let index = state.index(name)?;
        Ok(index
            .values
            .get(value)
            .map(|keys| keys.iter().map(|key| key.to_string()).collect())
            .unwrap_or_default())
    }

    /// The objects indexed under `value` in index `name`, in key order.
    ///
    /// # Errors
    /// [`Error::UnknownIndex`].
    pub fn by_index(&self, name: &str, value: &str) -> Result<Vec<Arc<K>>, Error> {
        let state = self.read();
        let index = state.index(name)?;
        let held = index
            .values
            .get(value)
            .map(|keys| self.held_of(&state, keys))
            .unwrap_or_default();
        drop(state);
        Ok(load_all(held))
    }

    /// Every value index `name` currently holds (empty for an unknown index), sorted.
    pub fn list_index_func_values(&self, name: &str) -> Vec<String> {
        let state = self.read();
        let mut values: Vec<String> = state
            .index(name)
            .map(|index| index.values.keys().map(|v| v.to_string()).collect())
            .unwrap_or_default();
        values.sort_unstable();
        values
    }

    /// The cached object with `obj`'s key, without decoding: `None` when it is held packed
    /// (compact mode) as when it is absent. Outside compact mode it is [`get`](Self::get).
    pub fn get_shared(&self, obj: &K) -> Option<Arc<K>> {
        let key = self.key_func.key(obj);
        self.read().items.get(key.as_str())?.object().cloned()
    }

    /// The cached object with `obj`'s key, to hand on as an update's old object without
    /// decoding, and whether it is `obj`'s own revision (same resourceVersion: a resync).
    pub fn previous_lazy(&self, obj: &K) -> Option<(Lazy<K>, bool)> {
        let key = self.key_func.key(obj);
        let state = self.read();
        let (key, entry) = state.items.get_key_value(key.as_str())?;
        let rv = obj.resource_version();
        let same = match entry {
            Entry::Object(held) => held.resource_version() == rv,
            Entry::Packed(packed) => rv.is_some_and(|rv| *packed.resource_version == *rv),
        };
        Some((entry.lazy(key, self.compact)?, same))
    }

    /// What the cache holds under `key`, for handing on without decoding.
    pub fn get_lazy(&self, key: &str) -> Option<Lazy<K>> {
        let state = self.read();
        let (key, entry) = state.items.get_key_value(key)?;
        entry.lazy(key, self.compact)
    }

    /// What to load for each of `keys`, taken under the lock.
    fn held_of<'a>(
        &self,
        state: &State<K>,
        keys: impl IntoIterator<Item = &'a Arc<str>>,
    ) -> Vec<Lazy<K>> {
        keys.into_iter()
            .filter_map(|key| state.items.get(key)?.lazy(key, self.compact))
            .collect()
    }
}

/// Decodes what was taken out from under the lock, in order (a packed object that fails to
/// decode, which only a serde bug could cause, is logged and read as absent).
fn load_all<K>(held: Vec<Lazy<K>>) -> Vec<Arc<K>> {
    held.iter().filter_map(Lazy::load).collect()
}

impl<K: Object> StoreRead<K> for Indexer<K> {
    fn get_by_key(&self, key: &str) -> Option<Arc<K>> {
        let held = self.get_lazy(key)?;
        held.load()
    }

    fn list(&self) -> Vec<Arc<K>> {
        let state = self.read();
        let held = self.held_of(&state, state.items.keys());
        drop(state);
        load_all(held)
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
