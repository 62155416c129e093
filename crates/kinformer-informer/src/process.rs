//! [`process_deltas`]: apply one key's deltas to the cache, then notify (client-go's
//! `processDeltas`).

use std::sync::Arc;

use kinformer_core::{Cached, Delta, Object, StoreError, StoreRead};
use kinformer_indexer::IndexRead;
use kinformer_indexer::Indexer;

use super::notification::Notification;
use super::processor::Processor;
use kinformer_deltafifo::{Popped, PoppedItem};

/// Applies one popped item to `cache` and notifies the handlers.
///
/// # Errors
/// A cache error; the rest of the item is skipped (a later relist repairs the cache).
pub(crate) fn process_item<K: Object>(
    popped: Popped<K>,
    cache: &Indexer<K>,
    processor: &Processor<K>,
) -> Result<(), StoreError> {
    let initial = popped.is_in_initial_list;
    match popped.item {
        PoppedItem::Deltas { deltas, .. } => process_deltas(deltas, initial, cache, processor),
        PoppedItem::ReplacedAll {
            resource_version,
            objects,
        } => replace_all(objects, &resource_version, initial, cache, processor),
        PoppedItem::SyncAll => {
            // As the cache holds them: a compact cache's objects are decoded on delivery.
            for obj in cache.list_cached() {
                let notification = Notification::Update {
                    old: obj.clone(),
                    new: obj,
                };
                processor.distribute(&notification, true);
            }
            Ok(())
        }
    }
}

/// client-go's atomic replace: swap the cache content in one step, then report deletions
/// (tombstones with the cached object) first, then updates and adds in list order.
///
/// Nothing is decoded here: the listed objects are as the cache took them in (packed, by a
/// compact cache), and what they replace is read as the cache holds it.
fn replace_all<K: Object>(
    objects: Vec<Cached<K>>,
    resource_version: &str,
    initial: bool,
    cache: &Indexer<K>,
    processor: &Processor<K>,
) -> Result<(), StoreError> {
    // One list shared by the cache and every handler's buffer: no copy of it.
    let listed = Arc::new(objects);
    let mut replaced = cache.replace_shared(&listed, resource_version)?;
    if replaced.is_empty() {
        // Nothing deleted or updated (the initial list): every handler takes the whole list as
        // one buffer entry, and no per-object bookkeeping is built.
        processor.distribute_listed(&listed, initial);
        return Ok(());
    }
    let key_func = cache.key_func();
    let keys: Vec<_> = listed.iter().map(|o| o.key(key_func)).collect();
    // What each listed object replaced (a key listed twice replaced the same object).
    let previous: Vec<_> = keys
        .iter()
        .map(|key| replaced.get(key.as_ref()).cloned())
        .collect();
    for key in &keys {
        replaced.remove(key.as_ref());
    }
    // What is left was not listed: deleted. A compact cache's packed object is decoded on
    // delivery, where a failure reaches the handler instead of losing the delete.
    for (key, last) in replaced {
        processor.distribute(&Notification::Vanished { key, last }, false);
    }
    for (new, previous) in listed.iter().zip(previous) {
        notify_upsert(previous, new.clone(), initial, processor);
    }
    Ok(())
}

/// Applies `deltas` (oldest first) to `cache`, and after each change queues the matching
/// notification for the handlers.
///
/// - `Added`, `Updated`, `Replaced`, `Sync`: an update (old, new) when the key is cached, else an
///   add; an update whose resourceVersion did not change is a resync and goes only to handlers
///   due for one.
/// - `Deleted`: removed from the cache, then a delete (tombstones included).
///
/// # Errors
/// A cache error stops processing of the remaining deltas, as in client-go.
fn process_deltas<K: Object>(
    deltas: impl IntoIterator<Item = Delta<K>>,
    is_in_initial_list: bool,
    cache: &Indexer<K>,
    processor: &Processor<K>,
) -> Result<(), StoreError> {
    for delta in deltas {
        match delta {
            Delta::Deleted(state) => {
                cache.delete_state(&state);
                processor.distribute(&Notification::Delete(state), false);
            }
            Delta::Added(obj) | Delta::Updated(obj) | Delta::Replaced(obj) | Delta::Sync(obj) => {
                let previous = cache.upsert(obj.clone())?;
                notify_upsert(previous, obj, is_in_initial_list, processor);
            }
        }
    }
    Ok(())
}

/// Queues what storing `new` over `previous` owes the handlers: an update when something was
/// replaced (a resync, to handlers due for one, when the resourceVersion is unchanged), else
/// an add.
fn notify_upsert<K: Object>(
    previous: Option<Cached<K>>,
    new: Cached<K>,
    initial: bool,
    processor: &Processor<K>,
) {
    match previous {
        Some(old) => {
            let same_revision = old.resource_version() == new.resource_version();
            processor.distribute(&Notification::Update { old, new }, same_revision);
        }
        None => processor.distribute(&Notification::Add { obj: new, initial }, false),
    }
}

#[cfg(test)]
mod compact_tests;
#[cfg(test)]
mod tests;
