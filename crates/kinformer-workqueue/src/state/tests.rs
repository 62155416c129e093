//! The work queue state machine against a model, and its bookkeeping.

use super::*;
use crate::metrics::NoQueueMetrics;

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
