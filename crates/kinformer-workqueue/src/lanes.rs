//! [`Lanes`]: the ready items of a work queue by [`Priority`], handed out earliest deadline
//! first, so low-priority items wait behind real changes but never without bound.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

/// How urgently an item wants handing out.
///
/// A controller queues what its informers' initial lists and resyncs bring at [`Low`](Self::Low)
/// (nothing changed: the object is reconciled to confirm it) and real changes at
/// [`Normal`](Self::Normal), so after a restart a user's edit is not stuck behind thousands of
/// unchanged objects. A low-priority item is handed out as if it had become ready
/// [`QueueConfig::low_priority_wait`](crate::QueueConfig::low_priority_wait) later: it waits
/// behind changes, but never behind one that became ready more than that after it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    /// Confirms what has not changed (an initial list, a resync).
    Low,
    /// A change (the default).
    #[default]
    Normal,
}

/// The default [`QueueConfig::low_priority_wait`](crate::QueueConfig::low_priority_wait).
pub const DEFAULT_LOW_PRIORITY_WAIT: Duration = Duration::from_secs(30);

/// Ready items, one FIFO lane per priority, each entry with the time it became ready and its
/// ticket. An item raised from low to normal leaves a stale entry behind (its ticket no longer
/// the item's), which [`pop`](Self::pop) skips.
#[derive(Debug)]
pub(crate) struct Lanes<T> {
    normal: VecDeque<(T, Instant, u64)>,
    low: VecDeque<(T, Instant, u64)>,
    low_wait: Duration,
    /// Entries that are not stale.
    live: usize,
}

impl<T> Lanes<T> {
    pub(crate) fn new(low_wait: Duration) -> Self {
        Self {
            normal: VecDeque::new(),
            low: VecDeque::new(),
            low_wait,
            live: 0,
        }
    }

    /// Queues `item` at `priority` with `ticket`, ready since `now`; `replaces` when it stands
    /// in for a live entry at a lower priority (which becomes stale).
    pub(crate) fn push(
        &mut self,
        item: T,
        priority: Priority,
        now: Instant,
        ticket: u64,
        replaces: bool,
    ) {
        match priority {
            Priority::Normal => self.normal.push_back((item, now, ticket)),
            Priority::Low => self.low.push_back((item, now, ticket)),
        }
        if !replaces {
            self.live += 1;
        }
    }

    /// The entry with the earliest deadline (a low entry's deadline is `low_wait` after it
    /// became ready) whose ticket `is_live` accepts; stale entries met on the way are dropped.
    pub(crate) fn pop(&mut self, is_live: impl Fn(&T, u64) -> bool) -> Option<(T, Instant)> {
        loop {
            let normal = self.normal.front().map(|(_, at, _)| *at);
            let low = self.low.front().map(|(_, at, _)| *at + self.low_wait);
            let entry = match (normal, low) {
                (None, None) => return None,
                (Some(n), Some(l)) if l < n => self.low.pop_front(),
                (Some(_), _) => self.normal.pop_front(),
                (None, Some(_)) => self.low.pop_front(),
            };
            let (item, at, ticket) = entry?;
            if is_live(&item, ticket) {
                self.live -= 1;
                return Some((item, at));
            }
        }
    }

    /// How many live entries there are.
    pub(crate) fn len(&self) -> usize {
        self.live
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn changes_go_first_until_a_low_item_waited_its_bound() {
        let t0 = Instant::now();
        let mut lanes = Lanes::new(Duration::from_secs(10));
        lanes.push("listed-1", Priority::Low, t0, 1, false);
        lanes.push("listed-2", Priority::Low, t0, 2, false);
        lanes.push(
            "edit",
            Priority::Normal,
            t0 + Duration::from_secs(5),
            3,
            false,
        );
        lanes.push(
            "late-edit",
            Priority::Normal,
            t0 + Duration::from_secs(11),
            4,
            false,
        );
        let order: Vec<_> = std::iter::from_fn(|| lanes.pop(|_, _| true).map(|(i, _)| i)).collect();
        assert_eq!(order, ["edit", "listed-1", "listed-2", "late-edit"]);
        assert_eq!(lanes.len(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn stale_entries_are_skipped_and_not_counted() {
        let t0 = Instant::now();
        let mut lanes = Lanes::new(Duration::from_secs(10));
        lanes.push("a", Priority::Low, t0, 1, false);
        lanes.push("a", Priority::Normal, t0, 2, true);
        assert_eq!(lanes.len(), 1);
        let first = lanes.pop(|_, ticket| ticket == 2);
        assert_eq!(first.map(|(i, _)| i), Some("a"));
        assert_eq!(lanes.pop(|_, ticket| ticket == 2), None);
        assert_eq!(lanes.len(), 0);
    }
}
