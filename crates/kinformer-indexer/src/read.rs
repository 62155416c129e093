//! The indexer's reads: by key, by index, and every object; in compact mode each object read
//! is decoded after the lock is released.

use std::collections::BTreeSet;
use std::sync::Arc;

use kinformer_core::{Cached, Object, StoreRead};

use crate::state::State;
use crate::{Error, Indexer, Iter};

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

    /// Every cached object, each decoded (in compact mode) only as the iteration reaches it
    /// and dropped when the caller drops it: reading a whole compact cache never holds it
    /// decoded. The objects are those cached when `iter` was called, in no particular order.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::{Object, Store};
    /// use kinformer_indexer::{Compact, Config, Indexer};
    ///
    /// let indexer: Indexer<Pod> = Indexer::new(Config::default().with_compact(Compact::json()));
    /// for name in ["a", "b", "c"] {
    ///     let mut pod = Pod::default();
    ///     pod.metadata.name = Some(name.into());
    ///     indexer.add(Arc::new(pod))?;
    /// }
    /// let mut names: Vec<String> = indexer.iter().map(|pod| pod.name().to_owned()).collect();
    /// names.sort();
    /// assert_eq!(names, ["a", "b", "c"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn iter(&self) -> Iter<K> {
        Iter::new(self.list_cached())
    }

    /// The objects indexed under `value` in index `name`, in key order, each decoded only as
    /// the iteration reaches it (see [`iter`](Self::iter)).
    ///
    /// # Errors
    /// [`Error::UnknownIndex`].
    pub fn iter_by_index(&self, name: &str, value: &str) -> Result<Iter<K>, Error> {
        let state = self.read();
        let index = state.index(name)?;
        let held = index
            .values
            .get(value)
            .map(|keys| self.held_of(&state, keys))
            .unwrap_or_default();
        Ok(Iter::new(held))
    }

    /// What to load for each of `keys`, taken under the lock.
    fn held_of<'a>(
        &self,
        state: &State<K>,
        keys: impl IntoIterator<Item = &'a Arc<str>>,
    ) -> Vec<Cached<K>> {
        keys.into_iter()
            .filter_map(|key| state.items.get(key)?.cached(key, self.compact))
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

/// Decodes what was taken out from under the lock, in order (a packed object that fails to
/// decode is logged and read as absent).
fn load_all<K: 'static>(held: Vec<Cached<K>>) -> Vec<Arc<K>> {
    held.iter().filter_map(load_logged).collect()
}

impl<K: Object> StoreRead<K> for Indexer<K> {
    fn get_by_key(&self, key: &str) -> Option<Arc<K>> {
        load_logged(&self.get_cached(key)?)
    }

    /// Every object, decoded at once in compact mode: [`Indexer::iter`] reads them one at a
    /// time.
    fn list(&self) -> Vec<Arc<K>> {
        load_all(self.list_cached())
    }

    fn get_cached(&self, key: &str) -> Option<Cached<K>> {
        let state = self.read();
        let (key, entry) = state.items.get_key_value(key)?;
        entry.cached(key, self.compact)
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
