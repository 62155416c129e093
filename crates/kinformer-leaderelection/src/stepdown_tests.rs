//! How a leader stops: the renew deadline, its cap, and the release, in paused time.

use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::time::Instant;

use super::*;
use crate::lock::LeaseLock;
use crate::memory::MemoryLeaseLock;
use crate::test_util::{Event, Flaky, candidate, held_by, spawn_run};

#[tokio::test(start_paused = true)]
async fn a_leader_that_cannot_renew_stops_leading_before_the_lease_expires_for_others() {
    let lock = Flaky::new();
    let (a, mut events) = candidate(lock.clone(), "a", Config::default());
    let run = spawn_run(&a, &CancellationToken::new());
    assert_eq!(events.recv().await.unwrap().1, Event::NewLeader("a".into()));
    assert_eq!(events.recv().await.unwrap().1, Event::Started);
    tokio::time::sleep(Duration::from_millis(4_500)).await;
    let last_renewal = Instant::now() - Duration::from_millis(500);
    lock.fail_writes.store(true, Ordering::SeqCst);

    let (fired, event) = events.recv().await.unwrap();
    assert_eq!(event, Event::TokenFired);
    // The renewal round began at the last renewal + 2 s and had 10 s.
    assert_eq!(fired - last_renewal, Duration::from_secs(12));
    assert!(fired - last_renewal < Duration::from_secs(15));
    assert_eq!(events.recv().await.unwrap(), (fired, Event::Stopped));
    run.await.unwrap();
    // Not released (release_on_cancel is off): the record still names the old leader.
    assert_eq!(
        lock.lease
            .current()
            .unwrap()
            .record
            .holder_identity
            .as_deref(),
        Some("a")
    );
}

#[tokio::test(start_paused = true)]
async fn release_on_cancel_empties_the_holder_after_the_work_returned() {
    let lock = MemoryLeaseLock::new("ns/lease");
    let config = Config::default().with_release_on_cancel(true);
    let (a, mut a_events) = candidate(lock.clone(), "a", config.clone());
    let (b, mut b_events) = candidate(lock.clone(), "b", config);
    let stop_a = CancellationToken::new();
    let run_a = spawn_run(&a, &stop_a);
    tokio::time::sleep(Duration::from_millis(10)).await;
    let run_b = spawn_run(&b, &CancellationToken::new());
    tokio::time::sleep(Duration::from_secs(7)).await;
    let transitions = lock.current().unwrap().record.leader_transitions;

    stop_a.cancel();
    run_a.await.unwrap();
    let events: Vec<_> = std::iter::from_fn(|| a_events.try_recv().ok())
        .map(|(_, e)| e)
        .collect();
    assert_eq!(
        events,
        [
            Event::NewLeader("a".into()),
            Event::Started,
            Event::TokenFired,
            Event::Stopped
        ]
    );
    let released = lock.current().unwrap().record;
    assert_eq!(released.holder_identity, None);
    assert_eq!(released.lease_duration_seconds, 1);
    assert_eq!(released.leader_transitions, transitions);
    assert!(!a.is_leader());

    // b takes the released lease at its next attempt, not a lease duration later.
    let released_at = Instant::now();
    loop {
        let (at, event) = b_events.recv().await.unwrap();
        if event == Event::Started {
            assert!(at - released_at <= Duration::from_millis(4_400));
            break;
        }
    }
    assert_eq!(
        lock.current().unwrap().record.leader_transitions,
        transitions + 1
    );
    run_b.abort();
}

#[tokio::test(start_paused = true)]
async fn a_late_answer_does_not_stretch_leadership_past_the_others_expiry() {
    let lock = Flaky::new();
    let (a, mut events) = candidate(lock.clone(), "a", Config::default());
    let run = spawn_run(&a, &CancellationToken::new());
    assert_eq!(events.recv().await.unwrap().1, Event::NewLeader("a".into()));
    assert_eq!(events.recv().await.unwrap().1, Event::Started);
    tokio::time::sleep(Duration::from_millis(3_000)).await;
    // From now on every write lands at once but is answered 9 s later: the renewal in flight
    // returns (within its round's 10 s), the next one cannot.
    *lock.answer_delay.lock().unwrap() = Duration::from_secs(9);

    let (fired, event) = events.recv().await.unwrap();
    assert_eq!(event, Event::TokenFired);
    let last_sent = *lock.answered.lock().unwrap().last().unwrap();
    // client-go would lead until a renew deadline after the next round began (9 s + 2 s +
    // 10 s after the send), past the 15 s after which others may take the lease.
    assert_eq!(fired - last_sent, Duration::from_secs(12));
    run.abort();
}

#[tokio::test(start_paused = true)]
async fn without_a_margin_the_leader_stops_a_lease_duration_after_its_last_renewal() {
    // Valid for client-go, but renew deadline + retry period exceeds the lease duration.
    let config = Config::default()
        .with_lease_duration(Duration::from_secs(11))
        .unwrap();
    let lock = Flaky::new();
    let (a, mut events) = candidate(lock.clone(), "a", config);
    let run = spawn_run(&a, &CancellationToken::new());
    assert_eq!(events.recv().await.unwrap().1, Event::NewLeader("a".into()));
    assert_eq!(events.recv().await.unwrap().1, Event::Started);
    tokio::time::sleep(Duration::from_millis(4_500)).await;
    lock.fail_writes.store(true, Ordering::SeqCst);

    let (fired, event) = events.recv().await.unwrap();
    assert_eq!(event, Event::TokenFired);
    let last_sent = *lock.answered.lock().unwrap().last().unwrap();
    assert_eq!(fired - last_sent, Duration::from_secs(11));
    run.abort();
}

#[tokio::test(start_paused = true)]
async fn a_release_that_loses_to_a_renewal_in_flight_is_retried() {
    let lock = Flaky::new();
    let (a, _events) = candidate(
        lock.clone(),
        "a",
        Config::default().with_release_on_cancel(true),
    );
    let cancel = CancellationToken::new();
    let run = spawn_run(&a, &cancel);
    tokio::time::sleep(Duration::from_secs(3)).await;
    lock.race_next_release.store(true, Ordering::SeqCst);
    cancel.cancel();
    run.await.unwrap();
    assert_eq!(lock.release_attempts.load(Ordering::SeqCst), 2);
    let released = lock.lease.current().unwrap().record;
    assert_eq!(
        (
            released.holder_identity.as_deref(),
            released.lease_duration_seconds
        ),
        (None, 1)
    );
    assert_eq!(a.leader(), None);
}

#[tokio::test(start_paused = true)]
async fn a_release_leaves_a_lease_another_candidate_took_alone() {
    let lock = MemoryLeaseLock::new("ns/lease");
    let (a, mut events) = candidate(
        lock.clone(),
        "a",
        Config::default().with_release_on_cancel(true),
    );
    let cancel = CancellationToken::new();
    let run = spawn_run(&a, &cancel);
    assert_eq!(events.recv().await.unwrap().1, Event::NewLeader("a".into()));
    // Another candidate overwrites the lease (as after an expiry a's clock did not see).
    let current = lock.current().unwrap();
    let taken = lock
        .update(&held_by("b", 7), &current.resource_version)
        .await
        .unwrap();
    cancel.cancel();
    run.await.unwrap();
    assert_eq!(lock.current(), Some(taken));
}
