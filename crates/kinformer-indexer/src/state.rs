//! [`State`]: the items and their indexes, as one value a lock guards.

use std::collections::HashMap;
use std::sync::Arc;

use crate::Error;
use crate::index::Index;

/// The items by key and every index over them.
pub(crate) struct State<K> {
    pub(crate) items: HashMap<Arc<str>, Arc<K>>,
    pub(crate) indices: Vec<Index<K>>,
    /// Bumped when indexes are added, so a replace built outside the lock can tell that its
    /// index set is stale.
    pub(crate) generation: u64,
}

impl<K> State<K> {
    pub(crate) fn index(&self, name: &str) -> Result<&Index<K>, Error> {
        self.indices
            .iter()
            .find(|index| index.name == name)
            .ok_or_else(|| Error::UnknownIndex {
                name: name.to_owned(),
            })
    }

    /// The values of `obj` for every index, or the first failure.
    pub(crate) fn values_of(&self, key: &str, obj: &K) -> Result<Vec<Vec<String>>, Error> {
        values_of(&self.indices, key, obj)
    }

    /// Adds or replaces the object under `key`. Index values are computed before anything
    /// changes, so a failing index function leaves the state as it was.
    pub(crate) fn upsert(&mut self, key: String, obj: Arc<K>) -> Result<(), Error> {
        // The same allocation again (a resync re-delivering the cached object): nothing changes.
        if self
            .items
            .get(key.as_str())
            .is_some_and(|old| Arc::ptr_eq(old, &obj))
        {
            return Ok(());
        }
        let new_values = self.values_of(&key, &obj)?;
        match self.items.get_key_value(key.as_str()) {
            Some((shared_key, old)) => {
                let shared_key = Arc::clone(shared_key);
                let old_values = self.values_of(&key, old).ok();
                for (i, index) in self.indices.iter_mut().enumerate() {
                    let new = &new_values[i];
                    match old_values.as_ref().map(|values| &values[i]) {
                        Some(old) if old.len() == 1 && old == new => continue,
                        Some(old) => old.iter().for_each(|value| index.remove(value, &key)),
                        None => index.remove_everywhere(&key),
                    }
                    new.iter()
                        .for_each(|value| index.insert(value, &shared_key));
                }
                self.items.insert(shared_key, obj);
            }
            None => {
                let shared_key: Arc<str> = Arc::from(key);
                for (index, values) in self.indices.iter_mut().zip(&new_values) {
                    values
                        .iter()
                        .for_each(|value| index.insert(value, &shared_key));
                }
                self.items.insert(shared_key, obj);
            }
        }
        Ok(())
    }

    /// Removes the object under `key` from the items and every index.
    pub(crate) fn remove(&mut self, key: &str) -> Option<Arc<K>> {
        let obj = self.items.remove(key)?;
        let old_values = self.values_of(key, &obj).ok();
        for (i, index) in self.indices.iter_mut().enumerate() {
            match &old_values {
                Some(values) => values[i].iter().for_each(|value| index.remove(value, key)),
                None => index.remove_everywhere(key),
            }
        }
        Some(obj)
    }

    /// Empty indexes with the same names and functions as `self`'s.
    pub(crate) fn empty_indices(&self) -> Vec<Index<K>> {
        self.indices.iter().map(Index::empty_like).collect()
    }

    /// Adds `new` indexes, indexing every stored item; on failure nothing is added.
    pub(crate) fn add_indices(&mut self, mut new: Vec<Index<K>>) -> Result<(), Error> {
        index_all(&mut new, &self.items)?;
        self.indices.extend(new);
        self.generation += 1;
        Ok(())
    }
}

fn values_of<K>(indices: &[Index<K>], key: &str, obj: &K) -> Result<Vec<Vec<String>>, Error> {
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

/// Indexes every item of `items` into `indices`; on failure `indices` is partly filled and must be
/// discarded.
pub(crate) fn index_all<K>(
    indices: &mut [Index<K>],
    items: &HashMap<Arc<str>, Arc<K>>,
) -> Result<(), Error> {
    for (key, obj) in items {
        let values = values_of(indices, key, obj)?;
        for (index, values) in indices.iter_mut().zip(values) {
            values.iter().for_each(|value| index.insert(value, key));
        }
    }
    Ok(())
}
