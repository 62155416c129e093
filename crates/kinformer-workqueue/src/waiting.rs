//! [`Waiting`]: items held back until a ready time, earliest first.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

use tokio::time::Instant;

/// Items waiting for their ready time. An item waits at most once: asking again with an earlier
/// time moves it forward, a later time is ignored (client-go's delaying queue).
#[derive(Debug)]
pub(super) struct Waiting<T> {
    /// Ready time and insertion sequence per item, to find its entry in `by_time`.
    index: HashMap<T, (Instant, u64)>,
    /// Items ordered by ready time; the sequence keeps equal times in insertion order.
    by_time: BTreeMap<(Instant, u64), T>,
    next_seq: u64,
}

impl<T: Clone + Eq + Hash> Waiting<T> {
    pub(super) fn new() -> Self {
        Self {
            index: HashMap::new(),
            by_time: BTreeMap::new(),
            next_seq: 0,
        }
    }

    /// Holds `item` until `ready_at`; returns true when this changed the item's ready time.
    pub(super) fn insert(&mut self, item: T, ready_at: Instant) -> bool {
        if let Some(&(current, seq)) = self.index.get(&item) {
            if current <= ready_at {
                return false;
            }
            self.by_time.remove(&(current, seq));
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.by_time.insert((ready_at, seq), item.clone());
        self.index.insert(item, (ready_at, seq));
        true
    }

    /// Removes and returns the earliest item whose ready time is at or before `now`.
    pub(super) fn pop_ready(&mut self, now: Instant) -> Option<T> {
        let entry = self.by_time.first_entry()?;
        if entry.key().0 > now {
            return None;
        }
        let item = entry.remove();
        self.index.remove(&item);
        Some(item)
    }

    /// The earliest ready time, if anything waits.
    pub(super) fn next_ready_at(&self) -> Option<Instant> {
        self.by_time.first_key_value().map(|((at, _), _)| *at)
    }

    pub(super) fn len(&self) -> usize {
        self.index.len()
    }

    pub(super) fn clear(&mut self) {
        self.index.clear();
        self.by_time.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn earliest_time_wins_and_ties_keep_insertion_order() {
        let t0 = Instant::now();
        let mut w = Waiting::new();
        assert!(w.insert("a", t0 + Duration::from_secs(5)));
        assert!(w.insert("b", t0 + Duration::from_secs(5)));
        assert!(
            !w.insert("a", t0 + Duration::from_secs(9)),
            "later time ignored"
        );
        assert!(w.insert("c", t0 + Duration::from_secs(1)));
        assert_eq!(w.len(), 3);
        assert_eq!(w.next_ready_at(), Some(t0 + Duration::from_secs(1)));
        assert_eq!(w.pop_ready(t0), None);
        assert_eq!(w.pop_ready(t0 + Duration::from_secs(5)), Some("c"));
        assert_eq!(w.pop_ready(t0 + Duration::from_secs(5)), Some("a"));
        assert_eq!(w.pop_ready(t0 + Duration::from_secs(5)), Some("b"));
        assert_eq!(w.pop_ready(t0 + Duration::from_secs(5)), None);
        assert_eq!(w.len(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn earlier_time_moves_an_item_forward() {
        let t0 = Instant::now();
        let mut w = Waiting::new();
        w.insert("a", t0 + Duration::from_secs(10));
        w.insert("b", t0 + Duration::from_secs(5));
        assert!(w.insert("a", t0 + Duration::from_secs(1)));
        assert_eq!(w.len(), 2);
        assert_eq!(w.pop_ready(t0 + Duration::from_secs(1)), Some("a"));
        assert_eq!(w.pop_ready(t0 + Duration::from_secs(1)), None);
        w.clear();
        assert_eq!(w.next_ready_at(), None);
    }
}
