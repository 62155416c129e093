//! The acquire and renew loops and the callbacks, over an in-memory lease in paused time.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::time::Instant;

use super::*;
use crate::lock::LeaseLock;
use crate::memory::MemoryLeaseLock;
use crate::test_util::{Event, candidate, held_by, spawn_run};

#[tokio::test(start_paused = true)]
async fn a_lone_candidate_creates_the_lease_and_renews_it_every_retry_period() {
    let lock = MemoryLeaseLock::new("ns/lease");
    let (a, mut events) = candidate(lock.clone(), "a", Config::default());
    let start = Instant::now();
    let run = spawn_run(&a, &CancellationToken::new());
    assert_eq!(
        events.recv().await.unwrap(),
        (start, Event::NewLeader("a".into()))
    );
    assert_eq!(events.recv().await.unwrap(), (start, Event::Started));
    let created = lock.current().unwrap();
    assert_eq!(created.record.holder_identity.as_deref(), Some("a"));
    assert_eq!(created.record.lease_duration_seconds, 15);
    assert_eq!(created.record.leader_transitions, 0);
    assert!(created.record.acquire_time <= created.record.renew_time);

    // client-go renews at once after acquiring, then every retry period.
    tokio::time::sleep(Duration::from_millis(20_500)).await;
    let renewed = lock.current().unwrap();
    assert_eq!(renewed.resource_version, (1 + 1 + 10).to_string());
    assert_eq!(renewed.record.acquire_time, created.record.acquire_time);
    assert_eq!(renewed.record.leader_transitions, 0);
    assert!(a.is_leader());
    assert!(events.try_recv().is_err());
    run.abort();
}

#[tokio::test(start_paused = true)]
async fn a_held_lease_is_taken_a_lease_duration_after_it_was_last_seen_to_change() {
    let lock = MemoryLeaseLock::new("ns/lease");
    lock.create(&held_by("old", 4)).await.unwrap();
    let (b, mut events) = candidate(lock.clone(), "b", Config::default());
    let start = Instant::now();
    let run = spawn_run(&b, &CancellationToken::new());
    assert_eq!(
        events.recv().await.unwrap(),
        (start, Event::NewLeader("old".into()))
    );
    let (at, event) = events.recv().await.unwrap();
    assert_eq!(event, Event::NewLeader("b".into()));
    let waited = at - start;
    // Expired at 15 s; noticed at the first attempt after it, at most 2 s * 2.2 later.
    assert!(
        waited >= Duration::from_secs(15) && waited < Duration::from_millis(19_400),
        "{waited:?}"
    );
    assert_eq!(events.recv().await.unwrap(), (at, Event::Started));
    let taken = lock.current().unwrap().record;
    assert_eq!(
        (taken.holder_identity.as_deref(), taken.leader_transitions),
        (Some("b"), 5)
    );
    assert_ne!(taken.acquire_time, held_by("old", 4).acquire_time);
    run.abort();
}

#[tokio::test(start_paused = true)]
async fn a_renewed_lease_is_never_taken() {
    let lock = MemoryLeaseLock::new("ns/lease");
    let (a, _a_events) = candidate(lock.clone(), "a", Config::default());
    let (b, mut b_events) = candidate(lock.clone(), "b", Config::default());
    let runs = [
        spawn_run(&a, &CancellationToken::new()),
        spawn_run(&b, &CancellationToken::new()),
    ];
    tokio::time::sleep(Duration::from_secs(120)).await;
    assert!(a.is_leader() && !b.is_leader());
    assert_eq!(
        b_events.recv().await.unwrap().1,
        Event::NewLeader("a".into())
    );
    assert!(b_events.try_recv().is_err());
    runs.iter().for_each(|r| r.abort());
}

#[tokio::test(start_paused = true)]
async fn dropping_run_fires_the_token_and_calls_on_stopped_leading() {
    let lock = MemoryLeaseLock::new("ns/lease");
    let (a, mut events) = candidate(lock, "a", Config::default());
    let run = spawn_run(&a, &CancellationToken::new());
    tokio::time::sleep(Duration::from_secs(1)).await;
    run.abort();
    let _ = run.await;
    let events: Vec<_> = std::iter::from_fn(|| events.try_recv().ok())
        .map(|(_, e)| e)
        .collect();
    // The work's future is dropped with run, so it reports nothing after Started.
    assert_eq!(
        events,
        [Event::NewLeader("a".into()), Event::Started, Event::Stopped]
    );
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_candidate_that_never_led_still_calls_on_stopped_leading() {
    let lock = MemoryLeaseLock::new("ns/lease");
    lock.create(&held_by("other", 0)).await.unwrap();
    let (b, mut events) = candidate(lock, "b", Config::default());
    let cancel = CancellationToken::new();
    let run = spawn_run(&b, &cancel);
    tokio::time::sleep(Duration::from_secs(3)).await;
    cancel.cancel();
    run.await.unwrap();
    let events: Vec<_> = std::iter::from_fn(|| events.try_recv().ok())
        .map(|(_, e)| e)
        .collect();
    assert_eq!(events, [Event::NewLeader("other".into()), Event::Stopped]);
}

#[test]
fn an_empty_identity_is_refused() {
    let new = |id: &str, config| {
        LeaderElector::new(
            MemoryLeaseLock::new("l"),
            id,
            config,
            Callbacks::new(|_| async {}),
        )
    };
    assert!(matches!(
        new("", Config::default()),
        Err(Error::EmptyIdentity)
    ));
    assert!(new("a", Config::default()).is_ok());
}

#[test]
fn acquire_retries_are_jittered_between_one_and_two_point_two_retry_periods() {
    let (a, _) = candidate(MemoryLeaseLock::new("l"), "a", Config::default());
    let waits: Vec<_> = (0..1000).map(|_| a.jittered_retry_period()).collect();
    assert!(
        waits
            .iter()
            .all(|w| *w >= Duration::from_secs(2) && *w < Duration::from_millis(4_400))
    );
    assert!(waits.iter().any(|w| *w > Duration::from_millis(4_000)));
    assert!(waits.iter().any(|w| *w < Duration::from_millis(2_400)));
}

#[tokio::test(start_paused = true)]
async fn clones_share_state_and_runs_take_turns() {
    let counter = Arc::new(AtomicUsize::new(0));
    let c = counter.clone();
    let callbacks = Callbacks::new(move |token: CancellationToken| {
        let c = c.clone();
        async move {
            assert_eq!(c.fetch_add(1, Ordering::SeqCst), 0);
            token.cancelled().await;
            c.fetch_sub(1, Ordering::SeqCst);
        }
    });
    let a =
        LeaderElector::new(MemoryLeaseLock::new("l"), "a", Config::default(), callbacks).unwrap();
    let cancel = CancellationToken::new();
    let runs = [spawn_run(&a, &cancel), spawn_run(&a.clone(), &cancel)];
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert!(a.clone().is_leader());
    cancel.cancel();
    for run in runs {
        run.await.unwrap();
    }
    assert_eq!(counter.load(Ordering::SeqCst), 0);
}

#[test]
fn the_elector_and_its_run_future_are_send_and_sync() {
    fn assert_send<T: Send>(_: &T) {}
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<LeaderElector<MemoryLeaseLock>>();
    assert_send_sync::<LeaderElector<crate::RestLeaseLock>>();
    let (a, _events) = candidate(MemoryLeaseLock::new("l"), "a", Config::default());
    assert_send(&a.run(CancellationToken::new()));
}
