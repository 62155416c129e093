//! The hot set of a compact indexer: the objects read most recently, kept decoded so that a
//! controller's working set reads as fast as from a typed cache while the rest stays packed.
//!
//! It is a CLOCK cache (second chance): a hit marks its slot, and a miss that finds the set
//! full sweeps the hand past marked slots (unmarking them) to the first unmarked one. A hit is
//! a hash lookup under a mutex, never a decode. An entry is valid while the cache still holds
//! the same encoding in memory: an update packs new bytes, so a stale decoded object is never
//! handed out, only left to be evicted.

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Up to `capacity` decoded objects, by key, each with the encoding it was decoded from.
pub(crate) struct HotSet<K> {
    capacity: NonZeroUsize,
    clock: Mutex<Clock<K>>,
}

struct Clock<K> {
    slots: Vec<Slot<K>>,
    by_key: HashMap<Arc<str>, usize>,
    hand: usize,
}

struct Slot<K> {
    key: Arc<str>,
    /// The encoding `object` was decoded from; shared with the cache entry while it is current.
    bytes: Arc<[u8]>,
    object: Arc<K>,
    referenced: bool,
}

impl<K> HotSet<K> {
    pub(crate) fn new(capacity: NonZeroUsize) -> Self {
        Self {
            capacity,
            clock: Mutex::new(Clock {
                slots: Vec::new(),
                by_key: HashMap::new(),
                hand: 0,
            }),
        }
    }

    fn clock(&self) -> MutexGuard<'_, Clock<K>> {
        // Every update leaves the clock consistent: a panic elsewhere cannot break it.
        self.clock.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The object decoded from `bytes` under `key`, when it is still hot.
    pub(crate) fn get(&self, key: &str, bytes: &Arc<[u8]>) -> Option<Arc<K>> {
        let mut clock = self.clock();
        let index = *clock.by_key.get(key)?;
        let slot = &mut clock.slots[index];
        if !Arc::ptr_eq(&slot.bytes, bytes) {
            return None;
        }
        slot.referenced = true;
        Some(Arc::clone(&slot.object))
    }

    /// Keeps `object`, just decoded from `bytes`, as the hot object of `key`.
    pub(crate) fn insert(&self, key: Arc<str>, bytes: Arc<[u8]>, object: Arc<K>) {
        let mut clock = self.clock();
        let slot = Slot {
            key,
            bytes,
            object,
            referenced: false,
        };
        if let Some(&index) = clock.by_key.get(&slot.key) {
            let replaced = std::mem::replace(&mut clock.slots[index], slot);
            drop(clock);
            drop(replaced);
            return;
        }
        if clock.slots.len() < self.capacity.get() {
            let index = clock.slots.len();
            clock.by_key.insert(Arc::clone(&slot.key), index);
            clock.slots.push(slot);
            return;
        }
        let index = clock.victim();
        let evicted = std::mem::replace(&mut clock.slots[index], slot);
        clock.by_key.remove(&evicted.key);
        let key = Arc::clone(&clock.slots[index].key);
        clock.by_key.insert(key, index);
        // A decoded object is hundreds of allocations: it is freed after the lock is released.
        drop(clock);
        drop(evicted);
    }

    /// How many objects are hot.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.clock().slots.len()
    }
}

impl<K> Clock<K> {
    /// The slot to reuse: the first unmarked one from the hand on, marks cleared on the way
    /// (at most one full turn, after which the hand's slot is unmarked).
    fn victim(&mut self) -> usize {
        loop {
            let index = self.hand;
            self.hand = (self.hand + 1) % self.slots.len();
            let slot = &mut self.slots[index];
            if !slot.referenced {
                return index;
            }
            slot.referenced = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(text: &str) -> Arc<[u8]> {
        Arc::from(text.as_bytes())
    }

    fn hot(capacity: usize) -> HotSet<String> {
        HotSet::new(NonZeroUsize::new(capacity).expect("non-zero"))
    }

    #[test]
    fn a_hit_needs_the_same_encoding_in_memory() {
        let set = hot(2);
        let v1 = bytes("v1");
        set.insert("a".into(), Arc::clone(&v1), Arc::new("a@1".to_owned()));
        assert_eq!(
            set.get("a", &v1).as_deref().map(String::as_str),
            Some("a@1")
        );
        // Equal bytes in another allocation are another revision's packing.
        assert!(set.get("a", &bytes("v1")).is_none());
        assert!(set.get("b", &v1).is_none());
        let v2 = bytes("v2");
        set.insert("a".into(), Arc::clone(&v2), Arc::new("a@2".to_owned()));
        assert_eq!(set.len(), 1, "an update replaces the key's slot");
        assert_eq!(
            set.get("a", &v2).as_deref().map(String::as_str),
            Some("a@2")
        );
    }

    #[test]
    fn a_recently_read_object_survives_the_next_eviction() {
        let set = hot(2);
        let (a, b, c) = (bytes("a"), bytes("b"), bytes("c"));
        set.insert("a".into(), Arc::clone(&a), Arc::new("a".to_owned()));
        set.insert("b".into(), Arc::clone(&b), Arc::new("b".to_owned()));
        assert!(set.get("a", &a).is_some());
        set.insert("c".into(), Arc::clone(&c), Arc::new("c".to_owned()));
        assert_eq!(set.len(), 2, "bounded");
        assert!(set.get("a", &a).is_some(), "read since it came in: kept");
        assert!(set.get("b", &b).is_none(), "never read again: evicted");
        assert!(set.get("c", &c).is_some());
    }

    #[test]
    fn the_set_never_grows_past_its_capacity() {
        let set = hot(8);
        let all: Vec<Arc<[u8]>> = (0..100).map(|i| bytes(&i.to_string())).collect();
        for (i, b) in all.iter().enumerate() {
            set.insert(i.to_string().into(), Arc::clone(b), Arc::new(i.to_string()));
            if i % 3 == 0 {
                set.get(&i.to_string(), b);
            }
            assert!(set.len() <= 8);
        }
        let hits = (0..100)
            .filter(|i| set.get(&i.to_string(), &all[*i]).is_some())
            .count();
        assert_eq!(hits, 8, "every slot holds a valid object");
    }
}
