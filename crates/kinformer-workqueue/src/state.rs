//! [`State`]: the work queue's bookkeeping, synchronous and lock-free of its own (the queue holds
//! it in a mutex).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::QueueItem;
use super::lanes::{Lanes, Priority};
use super::metrics::QueueMetrics;
use super::waiting::Waiting;

/// The dirty/processing state machine of client-go's workqueue plus the delaying queue's waiting set.
///
/// Invariants: an item is in `ready` only if it is in `dirty` and not in `processing`; an item is
/// in `ready` at most once; items in `processing` were handed out and not yet reported done.
#[derive(Debug)]
pub(super) struct State<T> {
    /// Items ready to be handed out, by priority, with the time each became ready (for queue
    /// latency).
    ready: Lanes<T>,
    /// Items that need processing (queued, or re-added while being processed), at the highest
    /// priority they were added with, and the ticket of their live entry in `ready`.
    dirty: HashMap<T, (Priority, u64)>,
    /// The next entry's ticket.
    tickets: u64,
    /// Items handed out and not yet done, with the time each was handed out.
    processing: HashMap<T, Instant>,
    waiting: Waiting<T>,
    shutting_down: bool,
    drain: bool,
    metrics: Arc<dyn QueueMetrics>,
}

impl<T: QueueItem> State<T> {
    pub(super) fn new(metrics: Arc<dyn QueueMetrics>, low_priority_wait: Duration) -> Self {
        Self {
            ready: Lanes::new(low_priority_wait),
            dirty: HashMap::new(),
            tickets: 0,
            processing: HashMap::new(),
            waiting: Waiting::new(),
            shutting_down: false,
            drain: false,
            metrics,
        }
    }

    /// Marks `item` dirty at `priority` (an item already dirty at a lower one is raised);
    /// returns true when it became ready (so one waiter should wake).
    pub(super) fn add(&mut self, item: T, priority: Priority, now: Instant) -> bool {
        if self.shutting_down {
            return false;
        }
        if let Some(&(queued, _)) = self.dirty.get(&item) {
            if priority > queued {
                if self.processing.contains_key(&item) {
                    self.dirty.insert(item, (priority, 0));
                } else {
                    self.push_ready(item, priority, now, true);
                }
            }
            return false;
        }
        if self.processing.contains_key(&item) {
            // Queued again by `done`, so two workers never hold the same item.
            self.dirty.insert(item, (priority, 0));
            return false;
        }
        self.push_ready(item, priority, now, false);
        true
    }

    /// Holds `item` until `ready_at`; returns true when a waiter should re-check the earliest time.
    pub(super) fn add_at(&mut self, item: T, ready_at: Instant, now: Instant) -> bool {
        if self.shutting_down {
            return false;
        }
        self.metrics.retry();
        if ready_at <= now {
            return self.add(item, Priority::Normal, now);
        }
        self.waiting.insert(item, ready_at)
    }

    /// Moves every waiting item whose time has come into the queue; returns how many became ready.
    pub(super) fn promote(&mut self, now: Instant) -> usize {
        let mut promoted = 0;
        while let Some(item) = self.waiting.pop_ready(now) {
            if self.add(item, Priority::Normal, now) {
                promoted += 1;
            }
        }
        promoted
    }

    /// Hands out the next ready item, if any, and marks it processing.
    pub(super) fn take(&mut self, now: Instant) -> Option<T> {
        let dirty = &self.dirty;
        // An entry is live while it is its dirty item's latest.
        let (item, ready_since) = self
            .ready
            .pop(|item, ticket| dirty.get(item).is_some_and(|d| d.1 == ticket))?;
        self.metrics.depth(self.ready.len());
        self.metrics
            .queue_latency(now.saturating_duration_since(ready_since));
        self.dirty.remove(&item);
        self.processing.insert(item.clone(), now);
        Some(item)
    }

    /// Marks `item` finished; returns true when it was re-added meanwhile and is ready again.
    pub(super) fn done(&mut self, item: &T, now: Instant) -> bool {
        let Some(started) = self.processing.remove(item) else {
            return false;
        };
        self.metrics
            .work_duration(now.saturating_duration_since(started));
        if let Some(&(priority, _)) = self.dirty.get(item) {
            self.push_ready(item.clone(), priority, now, false);
            return true;
        }
        false
    }

    /// Stops accepting items; `drain` asks [`Self::is_drained`] to wait for processing to end.
    pub(super) fn shut_down(&mut self, drain: bool) {
        self.shutting_down = true;
        self.drain = drain;
        // client-go's delaying queue stops its waiting loop: held-back items are never added.
        self.waiting.clear();
    }

    /// True when a draining shutdown may return: nothing is processing, or a plain shutdown
    /// overrode the drain.
    pub(super) fn is_drained(&self) -> bool {
        !self.drain || self.processing.is_empty()
    }

    pub(super) fn is_shutting_down(&self) -> bool {
        self.shutting_down
    }

    pub(super) fn len(&self) -> usize {
        self.ready.len()
    }

    pub(super) fn waiting_len(&self) -> usize {
        self.waiting.len()
    }

    #[cfg(test)]
    pub(super) fn processing_len(&self) -> usize {
        self.processing.len()
    }

    pub(super) fn next_ready_at(&self) -> Option<Instant> {
        self.waiting.next_ready_at()
    }

    /// Total and longest time the items now processing have been held.
    pub(super) fn unfinished_work(&self, now: Instant) -> (Duration, Duration) {
        self.processing
            .values()
            .map(|started| now.saturating_duration_since(*started))
            .fold((Duration::ZERO, Duration::ZERO), |(total, longest), d| {
                (total.saturating_add(d), longest.max(d))
            })
    }

    /// Queues `item` as its one live entry (`replaces` a lower-priority one).
    fn push_ready(&mut self, item: T, priority: Priority, now: Instant, replaces: bool) {
        self.tickets += 1;
        self.dirty.insert(item.clone(), (priority, self.tickets));
        self.ready.push(item, priority, now, self.tickets, replaces);
        self.metrics.added();
        self.metrics.depth(self.ready.len());
    }
}

#[cfg(test)]
mod tests;
