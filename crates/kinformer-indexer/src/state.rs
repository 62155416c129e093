//! [`State`]: the items and their indexes, as one value a lock guards.

use std::collections::HashMap;
use std::sync::Arc;

use kinformer_core::Object;

use crate::Error;
use crate::compact::{Compact, Entry, IndexValues, Packed};
use crate::index::Index;

/// The items by key and every index over them.
pub(crate) struct State<K> {
    pub(crate) items: HashMap<Arc<str>, Entry<K>>,
    pub(crate) indices: Vec<Index<K>>,
    /// Bumped when indexes are added, so a replace built outside the lock can tell that its
    /// index set is stale.
    pub(crate) generation: u64,
    /// Set in compact mode: how packed entries decode (to index them under a new index).
    pub(crate) compact: Option<Compact<K>>,
}

/// Objects about to be stored, by key.
pub(crate) type IncomingAll<K> = Vec<(Arc<str>, Incoming<K>)>;

/// An object about to be stored, packed (`bytes`, encoded outside the lock) or not.
pub(crate) struct Incoming<K> {
    pub(crate) obj: Arc<K>,
    pub(crate) bytes: Option<Arc<[u8]>>,
    /// Index values computed when it was staged, valid for that index generation.
    pub(crate) values: Option<(u64, Vec<Vec<String>>)>,
}

impl<K: Object> Incoming<K> {
    pub(crate) fn new(obj: Arc<K>, bytes: Option<Arc<[u8]>>) -> Self {
        Self {
            obj,
            bytes,
            values: None,
        }
    }

    pub(crate) fn into_entry(self, values: IndexValues) -> Entry<K> {
        match self.bytes {
            Some(bytes) => Entry::Packed(Box::new(Packed {
                bytes,
                resource_version: self.obj.resource_version().unwrap_or_default().into(),
                values,
            })),
            None => Entry::Object(self.obj),
        }
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

    /// Adds or replaces the object under `key`. Index values are computed before anything
    /// changes, so a failing index function leaves the state as it was.
    pub(crate) fn upsert(&mut self, key: String, mut incoming: Incoming<K>) -> Result<(), Error> {
        // The same allocation again (a resync re-delivering the cached object): nothing changes.
        if self
            .items
            .get(key.as_str())
            .and_then(Entry::object)
            .is_some_and(|old| Arc::ptr_eq(old, &incoming.obj))
        {
            return Ok(());
        }
        let new_values = values_for(
            &self.indices,
            self.generation,
            self.compact,
            &key,
            &mut incoming,
        )?;
        let (shared_key, old_values) = match self.items.get_key_value(key.as_str()) {
            Some((shared_key, old)) => (Arc::clone(shared_key), Some(self.old_values(&key, old))),
            None => (Arc::from(key), None),
        };
        let packed = incoming.bytes.is_some();
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
        self.items.insert(shared_key, entry);
        Ok(())
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
                    let compact = self.compact.ok_or_else(|| Error::Decode {
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
        self.generation += 1;
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

/// The values `incoming` is to be indexed under: those computed when it was staged (taken
/// out, so computed once) if the indexes are still the same (`generation`), else computed now,
/// from its packed bytes when it is a stand-in.
pub(crate) fn values_for<K: Object>(
    indices: &[Index<K>],
    generation: u64,
    compact: Option<Compact<K>>,
    key: &str,
    incoming: &mut Incoming<K>,
) -> Result<Vec<Vec<String>>, Error> {
    if let Some((staged_at, values)) = incoming.values.take()
        && staged_at == generation
    {
        return Ok(values);
    }
    if crate::staging::is_stand_in(&*incoming.obj) {
        let decoded = match (compact, &incoming.bytes) {
            (Some(compact), Some(bytes)) => compact.decode(bytes),
            _ => Err("a stand-in without packed bytes".to_owned()),
        };
        let obj = decoded.map_err(|message| Error::Decode {
            key: key.to_owned(),
            message,
        })?;
        return values_of(indices, key, &obj);
    }
    values_of(indices, key, &incoming.obj)
}

/// Indexes every object of `items` into `indices` (of index `generation`), returning each
/// one's entry; on failure `indices` is partly filled and must be discarded.
pub(crate) fn index_all<K: Object>(
    indices: &mut [Index<K>],
    generation: u64,
    compact: Option<Compact<K>>,
    items: &mut IncomingAll<K>,
) -> Result<Vec<IndexValues>, Error> {
    items
        .iter_mut()
        .map(|(key, incoming)| {
            let values = values_for(indices, generation, compact, key, incoming)?;
            Ok(insert_all(indices, key, &values, incoming.bytes.is_some()))
        })
        .collect()
}
