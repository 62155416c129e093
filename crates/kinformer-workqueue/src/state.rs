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
mod tests {
    use super::super::metrics::NoQueueMetrics;
    use super::*;

    fn state() -> State<&'static str> {
        State::new(Arc::new(NoQueueMetrics), crate::DEFAULT_LOW_PRIORITY_WAIT)
    }

    #[tokio::test(start_paused = true)]
    async fn duplicate_adds_queue_once() {
        let now = Instant::now();
        let mut s = state();
        assert!(s.add("a", Priority::Normal, now));
        assert!(!s.add("a", Priority::Normal, now));
        assert!(s.add("b", Priority::Normal, now));
        assert_eq!(s.len(), 2);
        assert_eq!(s.take(now), Some("a"));
        assert_eq!(s.take(now), Some("b"));
        assert_eq!(s.take(now), None);
    }

    #[tokio::test(start_paused = true)]
    async fn re_add_while_processing_waits_for_done() {
        let now = Instant::now();
        let mut s = state();
        s.add("a", Priority::Normal, now);
        assert_eq!(s.take(now), Some("a"));
        assert!(
            !s.add("a", Priority::Normal, now),
            "not ready while processing"
        );
        assert_eq!(s.len(), 0);
        assert_eq!(s.take(now), None);
        assert!(s.done(&"a", now), "ready again after done");
        assert_eq!(s.take(now), Some("a"));
        assert!(!s.done(&"a", now));
        assert_eq!(s.processing_len(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn done_of_unknown_item_is_ignored() {
        let now = Instant::now();
        let mut s = state();
        assert!(!s.done(&"ghost", now));
        s.add("ghost", Priority::Normal, now);
        assert!(!s.done(&"ghost", now), "queued but not processing");
        assert_eq!(s.len(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn shutdown_ignores_adds_but_keeps_queued_items() {
        let now = Instant::now();
        let mut s = state();
        s.add("a", Priority::Normal, now);
        s.add_at("later", now + Duration::from_secs(1), now);
        s.shut_down(false);
        assert!(!s.add("b", Priority::Normal, now));
        assert!(!s.add_at("c", now, now));
        assert_eq!(s.waiting_len(), 0, "waiting items are dropped");
        assert_eq!(s.take(now), Some("a"));
        assert_eq!(s.take(now), None);
    }

    #[tokio::test(start_paused = true)]
    async fn dirty_item_is_requeued_on_done_even_during_shutdown() {
        let now = Instant::now();
        let mut s = state();
        s.add("a", Priority::Normal, now);
        s.take(now);
        s.add("a", Priority::Normal, now);
        s.shut_down(true);
        assert!(!s.is_drained());
        assert!(s.done(&"a", now));
        assert!(s.is_drained());
        assert_eq!(s.take(now), Some("a"));
        assert!(!s.is_drained());
        s.shut_down(false);
        assert!(s.is_drained(), "a plain shutdown overrides the drain");
    }

    #[tokio::test(start_paused = true)]
    async fn add_at_in_the_past_adds_now_and_promote_moves_due_items() {
        let now = Instant::now();
        let mut s = state();
        assert!(s.add_at("now", now, now));
        assert_eq!(s.len(), 1);
        s.add_at("soon", now + Duration::from_millis(10), now);
        assert_eq!(s.promote(now), 0);
        assert_eq!(s.next_ready_at(), Some(now + Duration::from_millis(10)));
        assert_eq!(s.promote(now + Duration::from_millis(10)), 1);
        assert_eq!(s.len(), 2);
        assert_eq!(s.next_ready_at(), None);
    }

    /// What the state machine must do, written as plainly as possible (all at one instant, so
    /// normal items go before low ones, each in order).
    #[derive(Default)]
    struct Model {
        ready: Vec<(u8, Priority)>,
        dirty: Vec<(u8, Priority)>,
        processing: Vec<u8>,
        shutting_down: bool,
    }

    impl Model {
        fn add(&mut self, item: u8, priority: Priority) {
            if self.shutting_down {
                return;
            }
            if let Some(d) = self.dirty.iter_mut().find(|(i, _)| *i == item) {
                if priority > d.1 {
                    d.1 = priority;
                    if let Some(r) = self.ready.iter().position(|(i, _)| *i == item) {
                        self.ready.remove(r);
                        self.ready.push((item, priority));
                    }
                }
                return;
            }
            self.dirty.push((item, priority));
            if !self.processing.contains(&item) {
                self.ready.push((item, priority));
            }
        }
        fn take(&mut self) -> Option<u8> {
            let next = self
                .ready
                .iter()
                .position(|(_, p)| *p == Priority::Normal)
                .or((!self.ready.is_empty()).then_some(0))?;
            let (item, _) = self.ready.remove(next);
            self.dirty.retain(|(d, _)| *d != item);
            self.processing.push(item);
            Some(item)
        }
        fn done(&mut self, item: u8) {
            if let Some(i) = self.processing.iter().position(|p| *p == item) {
                self.processing.remove(i);
                if let Some(&(_, priority)) = self.dirty.iter().find(|(d, _)| *d == item) {
                    self.ready.push((item, priority));
                }
            }
        }
    }

    #[derive(Clone, Debug)]
    enum Op {
        Add(u8, Priority),
        Take,
        Done(u8),
        Shutdown,
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            5 => (0u8..6).prop_map(|i| Op::Add(i, Priority::Normal)),
            3 => (0u8..6).prop_map(|i| Op::Add(i, Priority::Low)),
            6 => Just(Op::Take),
            6 => (0u8..6).prop_map(Op::Done),
            1 => Just(Op::Shutdown),
        ]
    }

    proptest::proptest! {
        /// Against the model: same hand-out order, nothing handed out twice while processing,
        /// nothing queued twice.
        #[test]
        fn behaves_like_the_model(ops in proptest::collection::vec(op(), 0..200)) {
            let rt = tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap();
            rt.block_on(async {
                let t = Instant::now();
                let mut state: State<u8> = State::new(Arc::new(NoQueueMetrics), crate::DEFAULT_LOW_PRIORITY_WAIT);
                let mut model = Model::default();
                for op in ops {
                    match op {
                        Op::Add(i, priority) => {
                            state.add(i, priority, t);
                            model.add(i, priority);
                        }
                        Op::Take => {
                            let got = state.take(t);
                            assert_eq!(got, model.take());
                            if let Some(item) = got {
                                assert_eq!(model.processing.iter().filter(|p| **p == item).count(), 1);
                            }
                        }
                        Op::Done(i) => {
                            state.done(&i, t);
                            model.done(i);
                        }
                        Op::Shutdown => {
                            state.shut_down(false);
                            model.shutting_down = true;
                        }
                    }
                    assert_eq!(state.len(), model.ready.len());
                    assert_eq!(state.processing_len(), model.processing.len());
                    let mut ready: Vec<u8> = model.ready.iter().map(|(i, _)| *i).collect();
                    ready.sort_unstable();
                    ready.dedup();
                    assert_eq!(ready.len(), model.ready.len(), "queued twice");
                }
            });
        }
    }

    #[tokio::test(start_paused = true)]
    async fn unfinished_work_sums_and_finds_longest() {
        let t0 = Instant::now();
        let mut s = state();
        s.add("a", Priority::Normal, t0);
        s.add("b", Priority::Normal, t0);
        s.take(t0);
        s.take(t0 + Duration::from_secs(2));
        let (total, longest) = s.unfinished_work(t0 + Duration::from_secs(5));
        assert_eq!(total, Duration::from_secs(8));
        assert_eq!(longest, Duration::from_secs(5));
    }
}
