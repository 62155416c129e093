//! [`State`]: the items and their indexes, as one value a lock guards.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use kinformer_core::{Cached, Object};

use crate::Error;
use crate::compact::{Compact, Entry, IndexValues, Packed};
use crate::index::Index;
use crate::packed::PackedObject;

/// The items by key and every index over them.
pub(crate) struct State<K> {
    pub(crate) items: HashMap<Arc<str>, Entry<K>>,
    pub(crate) indices: Vec<Index<K>>,
    /// Which set of indexes `indices` is, unique across indexers ([`next_index_set`]): a new
    /// one when indexes are added, so index values computed for another set (a replace built
    /// outside the lock, a listed object packed as it arrived) are known to be stale.
    pub(crate) index_set: u64,
    /// Set in compact mode: how packed entries decode (to index them under a new index).
    pub(crate) compact: Option<Compact<K>>,
}

/// A fresh index set id.
pub(crate) fn next_index_set() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Objects about to be stored, by key.
pub(crate) type IncomingAll<K> = Vec<(Arc<str>, Incoming<K>)>;

/// An object about to be stored, as it will be held (encoded outside the lock).
pub(crate) enum Incoming<K> {
    /// Held decoded: the default mode, or an object that does not encode.
    Object(Arc<K>),
    /// Packed from the object at hand (`bytes` are its own or, for an unchanged revision, the
    /// bytes the cache holds).
    Packed { obj: Arc<K>, bytes: Arc<[u8]> },
    /// Packed before it came: a listed object packed as it arrived, or the cache's own entry
    /// handed back for an unchanged revision.
    Prepacked {
        bytes: Arc<[u8]>,
        resource_version: Arc<str>,
        /// The listed object it came as, carrying the index values computed as it arrived.
        listed: Cached<K>,
        /// The held entry's index values, when it shares the entry's bytes.
        held_values: Option<(u64, Vec<Vec<String>>)>,
    },
}

impl<K: Object> Incoming<K> {
    /// The encoding it will be held as, if packed.
    pub(crate) fn bytes(&self) -> Option<&Arc<[u8]>> {
        match self {
            Self::Object(_) => None,
            Self::Packed { bytes, .. } | Self::Prepacked { bytes, .. } => Some(bytes),
        }
    }

    /// Its resourceVersion, for the last-written record.
    pub(crate) fn resource_version(&self) -> Option<&str> {
        match self {
            Self::Object(obj) | Self::Packed { obj, .. } => obj.resource_version(),
            Self::Prepacked {
                resource_version, ..
            } => Some(resource_version),
        }
    }

    pub(crate) fn into_entry(self, values: IndexValues) -> Entry<K> {
        let (bytes, resource_version) = match self {
            Self::Object(obj) => return Entry::Object(obj),
            Self::Packed { obj, bytes } => (bytes, obj.resource_version().unwrap_or("").into()),
            Self::Prepacked {
                bytes,
                resource_version,
                ..
            } => (bytes, resource_version),
        };
        Entry::Packed(Box::new(Packed {
            bytes,
            resource_version,
            values,
        }))
    }
}

impl<K: Object> State<K> {
    pub(crate) fn index(&self, name: &str) -> Result<&Index<K>, Error> {
        self.indices
            .iter()
            .find(|index| index.name == name)
            .ok_or_else(|| Error::UnknownIndex {
                name: name.to_owned(),
            })
    }

    /// The values `entry` is indexed under, per index; `None` when they cannot be computed.
    fn old_values(&self, key: &str, entry: &Entry<K>) -> Option<Vec<Vec<String>>> {
        match entry {
            Entry::Object(obj) => values_of(&self.indices, key, obj).ok(),
            Entry::Packed(packed) => Some(
                packed
                    .values
                    .iter()
                    .map(|values| values.iter().map(|v| v.to_string()).collect())
                    .collect(),
            ),
        }
    }

    /// Adds or replaces the object under `key`, returning what it replaced (as a read hands
    /// it on). Index values are computed before anything changes, so a failing index function
    /// leaves the state as it was.
    pub(crate) fn upsert(
        &mut self,
        key: String,
        incoming: Incoming<K>,
    ) -> Result<Option<Cached<K>>, Error> {
        // The same object again (a resync re-delivering what the cache holds): nothing changes.
        let unchanged = match (self.items.get(key.as_str()), &incoming) {
            (Some(Entry::Object(old)), Incoming::Object(new)) => Arc::ptr_eq(old, new),
            (Some(Entry::Packed(old)), Incoming::Prepacked { bytes, .. }) => {
                Arc::ptr_eq(&old.bytes, bytes)
            }
            _ => false,
        };
        if unchanged {
            let held = self.items.get_key_value(key.as_str());
            return Ok(held.and_then(|(key, entry)| entry.cached(key, self.compact.as_ref())));
        }
        let new_values = values_for(
            &self.indices,
            self.index_set,
            self.compact.as_ref(),
            &key,
            &incoming,
        )?;
        let (shared_key, old_values) = match self.items.get_key_value(key.as_str()) {
            Some((shared_key, old)) => (Arc::clone(shared_key), Some(self.old_values(&key, old))),
            None => (Arc::from(key), None),
        };
        let packed = incoming.bytes().is_some();
        let mut shared = Vec::new();
        for (i, index) in self.indices.iter_mut().enumerate() {
            let new = &new_values[i];
            let unchanged = match &old_values {
                Some(Some(old)) if old[i] == *new => true,
                Some(Some(old)) => {
                    old[i]
                        .iter()
                        .for_each(|value| index.remove(value, &shared_key));
                    false
                }
                Some(None) => {
                    index.remove_everywhere(&shared_key);
                    false
                }
                None => false,
            };
            if packed {
                shared.push(
                    new.iter()
                        .map(|value| index.insert_held(value, &shared_key))
                        .collect(),
                );
            } else if !unchanged {
                new.iter()
                    .for_each(|value| index.insert(value, &shared_key));
            }
        }
        let entry = incoming.into_entry(shared);
        let old = self.items.insert(Arc::clone(&shared_key), entry);
        Ok(old.and_then(|old| old.into_cached(shared_key, self.compact.as_ref())))
    }

    /// Removes the object under `key` from the items and every index.
    pub(crate) fn remove(&mut self, key: &str) -> Option<Entry<K>> {
        let entry = self.items.remove(key)?;
        let old_values = self.old_values(key, &entry);
        for (i, index) in self.indices.iter_mut().enumerate() {
            match &old_values {
                Some(values) => values[i].iter().for_each(|value| index.remove(value, key)),
                None => index.remove_everywhere(key),
            }
        }
        Some(entry)
    }

    /// Empty indexes with the same names and functions as `self`'s.
    pub(crate) fn empty_indices(&self) -> Vec<Index<K>> {
        self.indices.iter().map(Index::empty_like).collect()
    }

    /// Adds `new` indexes, indexing every stored item (a packed one is decoded for it); on
    /// failure nothing is added.
    pub(crate) fn add_indices(&mut self, mut new: Vec<Index<K>>) -> Result<(), Error> {
        let mut added: Vec<(Arc<str>, IndexValues)> = Vec::new();
        for (key, entry) in &self.items {
            let values = match entry {
                Entry::Object(obj) => values_of(&new, key, obj)?,
                Entry::Packed(packed) => {
                    let compact = self.compact.as_ref().ok_or_else(|| Error::Decode {
                        key: key.to_string(),
                        message: "a packed object in an indexer without compact mode".into(),
                    })?;
                    let obj = compact
                        .decode(&packed.bytes)
                        .map_err(|message| Error::Decode {
                            key: key.to_string(),
                            message,
                        })?;
                    values_of(&new, key, &obj)?
                }
            };
            let packed = matches!(entry, Entry::Packed(_));
            let shared = insert_all(&mut new, key, &values, packed);
            if packed {
                added.push((Arc::clone(key), shared));
            }
        }
        for (key, shared) in added {
            if let Some(Entry::Packed(packed)) = self.items.get_mut(&key) {
                packed.values.extend(shared);
            }
        }
        self.indices.extend(new);
        self.index_set = next_index_set();
        Ok(())
    }
}

/// `obj`'s values for each of `indices`, or the first failure.
pub(crate) fn values_of<K>(
    indices: &[Index<K>],
    key: &str,
    obj: &K,
) -> Result<Vec<Vec<String>>, Error> {
    indices
        .iter()
        .map(|index| {
            index.func.values(obj).map_err(|message| Error::IndexFunc {
                index: index.name.clone(),
                key: key.to_owned(),
                message,
            })
        })
        .collect()
}

/// Files `key` under its `values` in each index; when `keep`, returns the values as the
/// indexes hold them (for a packed entry), else nothing, allocating nothing.
fn insert_all<K>(
    indices: &mut [Index<K>],
    key: &Arc<str>,
    values: &[Vec<String>],
    keep: bool,
) -> IndexValues {
    let mut kept = Vec::new();
    for (index, values) in indices.iter_mut().zip(values) {
        if keep {
            kept.push(values.iter().map(|v| index.insert_held(v, key)).collect());
        } else {
            values.iter().for_each(|value| index.insert(value, key));
        }
    }
    kept
}

/// The values `incoming` is to be indexed under: those it came with (computed as a listed
/// object arrived, or held by the entry whose bytes it shares) if they are for `index_set`,
/// else computed now (decoding a prepacked object for it).
pub(crate) fn values_for<'a, K: Object>(
    indices: &[Index<K>],
    index_set: u64,
    compact: Option<&Compact<K>>,
    key: &str,
    incoming: &'a Incoming<K>,
) -> Result<Cow<'a, [Vec<String>]>, Error> {
    let (bytes, listed, held_values) = match incoming {
        Incoming::Object(obj) | Incoming::Packed { obj, .. } => {
            return values_of(indices, key, obj).map(Cow::Owned);
        }
        Incoming::Prepacked {
            bytes,
            listed,
            held_values,
            ..
        } => (bytes, listed, held_values),
    };
    let carried = PackedObject::of(listed).and_then(|packed| packed.values.as_ref());
    for (computed_for, values) in [carried, held_values.as_ref()].into_iter().flatten() {
        if *computed_for == index_set {
            return Ok(Cow::Borrowed(values));
        }
    }
    let decoded = match compact {
        Some(compact) => compact.decode(bytes),
        None => Err("a packed object in an indexer without compact mode".to_owned()),
    };
    let obj = decoded.map_err(|message| Error::Decode {
        key: key.to_owned(),
        message,
    })?;
    values_of(indices, key, &obj).map(Cow::Owned)
}

/// Indexes every object of `items`, a decoded cache's new content, into `indices`; on failure
/// `indices` is partly filled and must be discarded.
pub(crate) fn index_decoded<K: Object>(
    indices: &mut [Index<K>],
    items: &HashMap<Arc<str>, Entry<K>>,
) -> Result<(), Error> {
    for (key, entry) in items {
        if let Entry::Object(obj) = entry {
            let values = values_of(indices, key, obj)?;
            insert_all(indices, key, &values, false);
        }
    }
    Ok(())
}

/// Indexes every object of `items` into `indices` (of `index_set`), returning each one's
/// entry values; on failure `indices` is partly filled and must be discarded.
pub(crate) fn index_all<K: Object>(
    indices: &mut [Index<K>],
    index_set: u64,
    compact: Option<&Compact<K>>,
    items: &IncomingAll<K>,
) -> Result<Vec<IndexValues>, Error> {
    items
        .iter()
        .map(|(key, incoming)| {
            let values = values_for(indices, index_set, compact, key, incoming)?;
            Ok(insert_all(
                indices,
                key,
                &values,
                incoming.bytes().is_some(),
            ))
        })
        .collect()
}
