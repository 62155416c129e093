//! [`Indexer`]'s replace: the new content and its indexes are built before the lock is taken,
//! then swapped in, so readers keep reading the old content meanwhile.
//!
//! A replace is the end of every list, with the whole listed set in hand. What it builds
//! besides the new content is freed right after, and at the end of an initial sync nothing
//! reuses that memory: it stays in the process as free heap. So the decoded path (the default)
//! builds the item map directly, without intermediate per-object collections.

use std::collections::HashMap;
use std::sync::{Arc, RwLockWriteGuard};

use kinformer_core::{Cached, Object, StoreError};

use crate::compact::Entry;
use crate::index::Index;
use crate::state::{State, index_all, index_decoded};
use crate::{Error, Indexer};

impl<K: Object> Indexer<K> {
    /// Replaces the content with `objects`, sharing them, and hands back what it replaced, by
    /// key, as the cache held it (packed objects stay packed). [`Store::replace`] takes the list
    /// and drops the old content; this is for a caller that goes on using both, as an informer
    /// tells its handlers what was added, updated and deleted.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::{Cached, StoreRead};
    /// use kinformer_indexer::{IndexRead, Indexer};
    ///
    /// let pod = |name: &str| {
    ///     let mut pod = Pod::default();
    ///     pod.metadata.name = Some(name.into());
    ///     Cached::from(Arc::new(pod))
    /// };
    /// let indexer: Indexer<Pod> = Indexer::default();
    /// assert!(indexer.replace_shared(&[pod("a")], "7")?.is_empty());
    /// let replaced = indexer.replace_shared(&[pod("b")], "8")?;
    /// assert!(replaced.contains_key("a"));
    /// assert!(indexer.get_by_key("b").is_some() && indexer.get_by_key("a").is_none());
    /// assert_eq!(indexer.last_sync_resource_version(), "8");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Store::replace`]: an index function's failure, or a packed object of another kind
    /// of cache that fails to decode; either way nothing changes.
    ///
    /// [`Store::replace`]: kinformer_core::Store::replace
    pub fn replace_shared(
        &self,
        objects: &[Cached<K>],
        resource_version: &str,
    ) -> Result<HashMap<Arc<str>, Cached<K>>, StoreError> {
        let old = match &self.compact {
            None => self.replace_decoded(objects.iter().cloned())?,
            Some(_) => self.replace_packed(objects.to_vec())?,
        };
        self.set_resource_version(resource_version);
        self.compress_training_set();
        Ok(old
            .items
            .into_iter()
            .filter_map(|(key, entry)| {
                let cached = entry.into_cached(Arc::clone(&key), old.compact.as_ref())?;
                Some((key, cached))
            })
            .collect())
    }

    /// Replaces the content of a cache that keeps objects decoded, returning the old content.
    pub(crate) fn replace_decoded(
        &self,
        list: impl ExactSizeIterator<Item = Cached<K>>,
    ) -> Result<State<K>, Error> {
        // A key listed twice is stored once, the last one winning.
        let mut items: HashMap<Arc<str>, Entry<K>> = HashMap::with_capacity(list.len());
        for obj in list {
            let key: Arc<str> = Arc::from(obj.key(&self.key_func));
            // A packed object can only come from a compact cache elsewhere: held decoded here.
            let obj = match obj.load() {
                Ok(obj) => obj,
                Err(StoreError::Decode { message, .. }) => {
                    return Err(Error::Decode {
                        key: key.to_string(),
                        message,
                    });
                }
                Err(other) => {
                    return Err(Error::Decode {
                        key: key.to_string(),
                        message: other.to_string(),
                    });
                }
            };
            items.insert(key, Entry::Object(obj));
        }
        let (index_set, mut indices) = {
            let state = self.read();
            (state.index_set, state.empty_indices())
        };
        index_decoded(&mut indices, &items)?;
        let state = self.write();
        if state.index_set != index_set {
            // Indexes were added meanwhile: index again with the current set.
            indices = state.empty_indices();
            index_decoded(&mut indices, &items)?;
        }
        Ok(swap_in(state, items, indices))
    }

    /// Replaces the content of a compact cache: each object packed (or its packing reused)
    /// with the index values its entry keeps; returns the old content.
    pub(crate) fn replace_packed(&self, list: Vec<Cached<K>>) -> Result<State<K>, Error> {
        // Through a map: a key listed twice is stored once, the last one winning. A packed
        // object brings the key it was filed under.
        let keyed: HashMap<Arc<str>, Cached<K>> = list
            .into_iter()
            // A listed packed object's key is shared, not copied: the entry keeps it.
            .map(|obj| (obj.shared_key(&self.key_func), obj))
            .collect();
        let incoming = self.incoming_all(keyed)?;
        let (index_set, mut indices) = {
            let state = self.read();
            (state.index_set, state.empty_indices())
        };
        let mut values = index_all(&mut indices, index_set, self.compact.as_ref(), &incoming)?;
        let state = self.write();
        if state.index_set != index_set {
            indices = state.empty_indices();
            values = index_all(
                &mut indices,
                state.index_set,
                self.compact.as_ref(),
                &incoming,
            )?;
        }
        let items: HashMap<Arc<str>, Entry<K>> = incoming
            .into_iter()
            .zip(values)
            .map(|((key, incoming), values)| (key, incoming.into_entry(values)))
            .collect();
        Ok(swap_in(state, items, indices))
    }
}

/// Makes `items` and `indices` the content under the held write lock, and returns the old
/// content once the lock is released (so it is freed outside the lock).
fn swap_in<K>(
    mut state: RwLockWriteGuard<'_, State<K>>,
    items: HashMap<Arc<str>, Entry<K>>,
    indices: Vec<Index<K>>,
) -> State<K> {
    let index_set = state.index_set;
    let compact = state.compact.clone();
    let old = std::mem::replace(
        &mut *state,
        State {
            items,
            indices,
            index_set,
            compact,
        },
    );
    drop(state);
    old
}
