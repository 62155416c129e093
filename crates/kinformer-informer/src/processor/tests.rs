//! Tests of handler distribution: order, isolation, late handlers, sync tracking, resync, removal.

use std::sync::Mutex;

use kinformer_core::DeletedState;

use super::super::sync::SyncSignal;
use super::super::testing::settle;
use super::*;

#[derive(Default)]
struct Recorder(Mutex<Vec<String>>);

impl Recorder {
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

impl EventHandler<String> for Recorder {
    fn on_add(&self, obj: &Arc<String>, initial: bool) {
        self.0.lock().unwrap().push(format!("add {obj} {initial}"));
    }
    fn on_update(&self, old: &Arc<String>, new: &Arc<String>) {
        self.0.lock().unwrap().push(format!("update {old} {new}"));
    }
    fn on_delete(&self, state: &DeletedState<String>) {
        self.0
            .lock()
            .unwrap()
            .push(format!("delete {}", state.object()));
    }
}

fn add(s: &str, initial: bool) -> Notification<String> {
    Notification::Add {
        obj: Arc::new(s.to_owned()).into(),
        initial,
    }
}

fn update(old: &str, new: &str) -> Notification<String> {
    Notification::Update {
        old: Arc::new(old.to_owned()).into(),
        new: Arc::new(new.to_owned()).into(),
    }
}

fn processor(check: Duration) -> (SyncSignal, Processor<String>) {
    let synced = SyncSignal::new();
    let p = Processor::new(synced.watcher(), check);
    (synced, p)
}

#[tokio::test(start_paused = true)]
async fn handlers_see_every_notification_in_order() {
    let (synced, p) = processor(Duration::ZERO);
    let (a, b) = (Arc::new(Recorder::default()), Arc::new(Recorder::default()));
    let ra = p.add_listener(a.clone(), Duration::ZERO, Vec::new).unwrap();
    p.add_listener(b.clone(), Duration::ZERO, Vec::new).unwrap();
    p.distribute(&add("x", true), false);
    p.start(Handle::current());
    p.distribute(&update("x", "x2"), false);
    p.distribute(
        &Notification::Delete(DeletedState::Known(Arc::new("x2".into()))),
        false,
    );
    assert!(!ra.has_synced(), "the informer has not synced");
    synced.mark_synced();
    ra.wait_synced().await.unwrap();
    settle().await;
    let expected = ["add x true", "update x x2", "delete x2"];
    assert_eq!(a.take(), expected);
    assert_eq!(b.take(), expected);
    assert_eq!(ra.pending(), 0);
}

#[tokio::test(start_paused = true)]
async fn late_handler_first_gets_the_cache_and_syncs_after_handling_it() {
    let (synced, p) = processor(Duration::ZERO);
    p.start(Handle::current());
    synced.mark_synced();
    let gate = Arc::new(std::sync::Mutex::new(()));
    let held = gate.lock().unwrap();
    let late = Arc::new(Recorder::default());
    let gated = {
        let (late, gate) = (late.clone(), gate.clone());
        crate::HandlerFns::new().add_fn(move |o: &Arc<String>, initial| {
            drop(gate.lock().unwrap());
            late.on_add(o, initial);
        })
    };
    let reg = p
        .add_listener(Arc::new(gated), Duration::ZERO, || {
            vec![
                Arc::new("c1".to_owned()).into(),
                Arc::new("c2".to_owned()).into(),
            ]
        })
        .unwrap();
    assert!(!reg.has_synced(), "two initial adds pending");
    assert_eq!(reg.pending(), 2);
    drop(held);
    reg.wait_synced().await.unwrap();
    p.distribute(&add("new", false), false);
    settle().await;
    assert_eq!(late.take(), ["add c1 true", "add c2 true", "add new false"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_handler_does_not_delay_another() {
    let (_synced, p) = processor(Duration::ZERO);
    p.start(Handle::current());
    let (release, blocked_rx) = std::sync::mpsc::channel::<()>();
    let blocked_rx = Mutex::new(blocked_rx);
    let slow = crate::HandlerFns::new().add_fn(move |_: &Arc<String>, _| {
        // Blocks this handler's task until the test releases it.
        if blocked_rx.lock().unwrap().recv().is_err() {
            panic!("released by a dropped sender");
        }
    });
    let slow_reg = p
        .add_listener(Arc::new(slow), Duration::ZERO, Vec::new)
        .unwrap();
    let fast = Arc::new(Recorder::default());
    let fast_reg = p
        .add_listener(fast.clone(), Duration::ZERO, Vec::new)
        .unwrap();
    for i in 0..100 {
        p.distribute(&add(&i.to_string(), false), false);
    }
    for _ in 0..2_000 {
        if fast_reg.pending() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    assert_eq!(
        fast.take().len(),
        100,
        "the fast handler saw everything (pending {})",
        fast_reg.pending()
    );
    assert!(
        slow_reg.pending() >= 99,
        "the slow handler's backlog waits in its buffer"
    );
    for _ in 0..100 {
        release.send(()).unwrap();
    }
    p.stop().await;
}

#[tokio::test(start_paused = true)]
async fn resync_goes_only_to_handlers_due_for_it() {
    let (_synced, p) = processor(Duration::from_secs(10));
    let (every_10, every_30, never) = (
        Arc::new(Recorder::default()),
        Arc::new(Recorder::default()),
        Arc::new(Recorder::default()),
    );
    p.add_listener(every_10.clone(), Duration::from_secs(10), Vec::new)
        .unwrap();
    p.add_listener(every_30.clone(), Duration::from_secs(30), Vec::new)
        .unwrap();
    p.add_listener(never.clone(), Duration::ZERO, Vec::new)
        .unwrap();
    p.start(Handle::current());
    let mut due_rounds = Vec::new();
    for round in 1..=6 {
        tokio::time::sleep(Duration::from_secs(10)).await;
        if p.should_resync(Instant::now()) {
            due_rounds.push(round);
            p.distribute(&update("o", "o"), true);
        }
    }
    p.distribute(&update("o", "o2"), false);
    settle().await;
    assert_eq!(due_rounds, [1, 2, 3, 4, 5, 6]);
    assert_eq!(every_10.take().len(), 6 + 1);
    assert_eq!(every_30.take().len(), 2 + 1);
    assert_eq!(never.take(), ["update o o2"]);
}

#[tokio::test(start_paused = true)]
async fn resync_periods_are_adjusted_like_client_go() {
    let (_synced, p) = processor(Duration::from_secs(30));
    let h = || Arc::new(Recorder::default());
    p.add_listener(h(), Duration::from_secs(60), Vec::new)
        .unwrap();
    // Before start, a shorter period lowers the check period (and the minimum is 1 s).
    p.add_listener(h(), Duration::from_millis(200), Vec::new)
        .unwrap();
    assert_eq!(p.check_period(), MINIMUM_RESYNC_PERIOD);
    p.start(Handle::current());
    // After start, the check period stays.
    let (_s2, p2) = processor(Duration::from_secs(30));
    p2.start(Handle::current());
    p2.add_listener(h(), Duration::from_secs(5), Vec::new)
        .unwrap();
    assert_eq!(p2.check_period(), Duration::from_secs(30));
    assert_eq!(p2.lock().listeners[0].resync, Duration::from_secs(30));
    // An informer without resync gives no handler a resync.
    let (_s3, p3) = processor(Duration::ZERO);
    p3.start(Handle::current());
    p3.add_listener(h(), Duration::from_secs(5), Vec::new)
        .unwrap();
    assert_eq!(p3.lock().listeners[0].resync, Duration::ZERO);
    assert_eq!(
        effective_resync(Duration::from_secs(60), Duration::from_secs(1)),
        Duration::from_secs(60)
    );
    assert_eq!(p.lock().listeners[0].resync, Duration::from_secs(60));
    assert_eq!(p.lock().listeners[1].resync, MINIMUM_RESYNC_PERIOD);
}

#[tokio::test(start_paused = true)]
async fn removed_handler_gets_nothing_more() {
    let (synced, p) = processor(Duration::ZERO);
    p.start(Handle::current());
    let (kept, removed) = (Arc::new(Recorder::default()), Arc::new(Recorder::default()));
    p.add_listener(kept.clone(), Duration::ZERO, Vec::new)
        .unwrap();
    let reg = p
        .add_listener(removed.clone(), Duration::ZERO, Vec::new)
        .unwrap();
    p.distribute(&add("a", false), false);
    settle().await;
    let task = p.remove_listener(&reg).expect("registered");
    task.await.unwrap();
    assert!(reg.is_removed());
    assert!(p.remove_listener(&reg).is_none(), "idempotent");
    p.distribute(&add("b", false), false);
    settle().await;
    assert_eq!(removed.take(), ["add a false"]);
    assert_eq!(kept.take(), ["add a false", "add b false"]);
    synced.mark_synced();
    assert!(
        reg.wait_synced().await.is_ok(),
        "it had synced before it was removed"
    );

    let (_s, other) = processor(Duration::ZERO);
    let foreign = other
        .add_listener(Arc::new(Recorder::default()), Duration::ZERO, Vec::new)
        .unwrap();
    assert!(
        p.remove_listener(&foreign).is_none(),
        "a foreign handle is ignored"
    );
    assert!(!foreign.is_removed());
}

#[tokio::test(start_paused = true)]
async fn handler_removed_before_its_initial_adds_never_syncs() {
    let (synced, p) = processor(Duration::ZERO);
    let reg = p
        .add_listener(Arc::new(Recorder::default()), Duration::ZERO, Vec::new)
        .unwrap();
    p.distribute(&add("a", true), false);
    assert!(p.remove_listener(&reg).is_none(), "never started: no task");
    synced.mark_synced();
    assert!(reg.wait_synced().await.is_err());
    assert!(!reg.has_synced());
}

#[tokio::test(start_paused = true)]
async fn panicking_handler_skips_one_notification() {
    let (_synced, p) = processor(Duration::ZERO);
    p.start(Handle::current());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let handler = crate::HandlerFns::new().add_fn(move |o: &Arc<String>, _| {
        assert_ne!(o.as_str(), "boom", "handler bug");
        s.lock().unwrap().push(o.to_string());
    });
    let reg = p
        .add_listener(Arc::new(handler), Duration::ZERO, Vec::new)
        .unwrap();
    for name in ["a", "boom", "b"] {
        p.distribute(&add(name, false), false);
    }
    settle().await;
    assert_eq!(*seen.lock().unwrap(), ["a", "b"]);
    assert_eq!(reg.pending(), 0);
}

#[tokio::test(start_paused = true)]
async fn stop_waits_for_handlers_and_refuses_new_ones() {
    let (_synced, p) = processor(Duration::ZERO);
    let rec = Arc::new(Recorder::default());
    let reg = p
        .add_listener(rec.clone(), Duration::ZERO, Vec::new)
        .unwrap();
    p.start(Handle::current());
    p.distribute(&add("a", false), false);
    settle().await;
    p.stop().await;
    assert!(p.is_stopped());
    assert!(reg.is_removed());
    assert!(matches!(
        p.add_listener(rec.clone(), Duration::ZERO, Vec::new),
        Err(Error::Stopped)
    ));
    p.distribute(&add("b", false), false);
    settle().await;
    assert_eq!(rec.take(), ["add a false"]);
}

#[tokio::test(start_paused = true)]
async fn delivered_notifications_go_back_to_the_informer_to_be_dropped() {
    let (_synced, p) = processor(Duration::ZERO);
    let spent = Arc::new(crate::spent::Spent::new());
    p.return_spent_to(Arc::clone(&spent));
    let (a, b) = (Arc::new(Recorder::default()), Arc::new(Recorder::default()));
    p.add_listener(a.clone(), Duration::ZERO, Vec::new).unwrap();
    p.start(Handle::current());
    // A handler added after start gets the sender as well.
    p.add_listener(b.clone(), Duration::ZERO, Vec::new).unwrap();
    let sent = update("x", "x2");
    p.distribute(&sent, false);
    settle().await;
    assert_eq!(a.take(), ["update x x2"]);
    assert_eq!(b.take(), ["update x x2"]);
    let Notification::Update { old, .. } = &sent else {
        unreachable!("built as an update")
    };
    let mut returned = Vec::new();
    while returned.len() < 2 {
        returned.extend(spent.take().await);
    }
    assert_eq!(
        returned.len(),
        2,
        "each handler task returns the update it delivered"
    );
    for back in &returned {
        let Notification::Update { old: back, .. } = back else {
            panic!("each handler task returns the update it delivered")
        };
        assert!(old.same_as(back), "the same object, not a copy");
    }
}

#[tokio::test(start_paused = true)]
async fn a_listed_batch_arrives_as_adds_in_order_between_other_notifications() {
    let (synced, p) = processor(Duration::ZERO);
    let a = Arc::new(Recorder::default());
    let ra = p.add_listener(a.clone(), Duration::ZERO, Vec::new).unwrap();
    p.distribute(&add("first", false), false);
    // More than one delivery batch, so the list is delivered in parts.
    let listed: Vec<String> = (0..3 * super::super::listener::BATCH + 5)
        .map(|i| format!("o{i}"))
        .collect();
    let objects: Arc<Vec<Cached<String>>> = Arc::new(
        listed
            .iter()
            .map(|s| Cached::from(Arc::new(s.clone())))
            .collect(),
    );
    p.distribute_listed(&objects, true);
    p.distribute(&update("o0", "o0b"), false);
    assert_eq!(ra.pending(), listed.len() + 2);
    synced.mark_synced();
    assert!(!ra.has_synced(), "the listed adds are not handled yet");
    p.start(Handle::current());
    ra.wait_synced().await.unwrap();
    settle().await;
    let mut expected = vec!["add first false".to_owned()];
    expected.extend(listed.iter().map(|s| format!("add {s} true")));
    expected.push("update o0 o0b".to_owned());
    assert_eq!(a.take(), expected);
    assert_eq!(ra.pending(), 0);
}
