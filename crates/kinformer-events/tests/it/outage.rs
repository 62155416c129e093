//! The API server down or stalled: the caller never waits, the queue drops and counts, writes
//! retry and recover.

use std::time::Duration;

use kinformer_events::Config;
use kinformer_sim::{Fault, FaultKind};

use crate::{count, down, event_writes, events, recorder, sim, synced, until};

/// Lets the background task take what is queued, without reaching any retry's wait.
async fn settle() {
    tokio::time::sleep(Duration::from_millis(1)).await;
}

#[tokio::test(start_paused = true)]
async fn a_full_queue_drops_and_counts_while_the_server_is_down() {
    let sim = sim().await;
    sim.add_faults([down(503)]).await;
    let recorder = recorder(
        &sim,
        Config::default()
            .with_queue_capacity(3)
            .and_then(|c| c.with_workers(1))
            .unwrap(),
    );
    let record = |name: &str| synced(&recorder, name);

    // Ten at once: three fit in the queue, seven are dropped, and no call waits.
    for i in 0..10 {
        record(&format!("web-{i}"));
    }
    let stats = recorder.stats();
    assert_eq!((stats.recorded, stats.dropped), (3, 7));

    // The task takes the three: one is being written (and retried), two wait for the worker.
    settle().await;
    for i in 10..15 {
        record(&format!("web-{i}"));
    }
    let stats = recorder.stats();
    assert_eq!((stats.recorded, stats.dropped), (6, 9));
    // Of the next three only one finds room among the events waiting for the worker.
    settle().await;
    assert_eq!(recorder.stats().dropped, 11);

    // A repeat of a waiting event is folded into it, not dropped.
    record("web-1");
    settle().await;
    let stats = recorder.stats();
    assert_eq!(
        (stats.recorded, stats.dropped, stats.written, stats.failed),
        (7, 11, 0, 0)
    );

    sim.clear_faults().await;
    let stats = until(&recorder, |stats| stats.written == 4).await;
    assert_eq!(stats.failed, 0);
    let events = events(&sim, "shop").await;
    let regarding: Vec<_> = events
        .iter()
        .map(|event| event.regarding.as_ref().unwrap().name.clone().unwrap())
        .collect();
    assert_eq!(regarding, ["web-0", "web-1", "web-10", "web-2"]);
    assert_eq!(count(&events[1]), Some(2), "web-1 and its repeat");
    recorder.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn transient_failures_are_retried_up_to_the_limit_refusals_once() {
    let sim = sim().await;
    sim.add_faults([down(503)]).await;
    let config = Config::default()
        .with_max_attempts(3)
        .and_then(|c| c.with_retry_period(Duration::from_secs(1)))
        .unwrap();
    let recorder = recorder(&sim, config);
    synced(&recorder, "web-0");
    until(&recorder, |stats| stats.failed == 1).await;
    assert_eq!(event_writes(&sim).await, ["POST 503"; 3]);

    sim.clear_faults().await;
    sim.clear_requests().await;
    sim.add_faults([down(403)]).await;
    synced(&recorder, "web-1");
    until(&recorder, |stats| stats.failed == 2).await;
    assert_eq!(event_writes(&sim).await, ["POST 403"]);
    assert_eq!(recorder.stats().written, 0);
    recorder.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_stalled_write_times_out_and_is_retried() {
    let sim = sim().await;
    let stall = Fault::new(FaultKind::Delay { seconds: 3600.0 })
        .count(1)
        .resources(["events"]);
    sim.add_faults([stall]).await;
    let config = Config::default()
        .with_request_timeout(Duration::from_secs(5))
        .unwrap();
    let recorder = recorder(&sim, config);
    synced(&recorder, "web-0");
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(recorder.stats().written, 0, "the first attempt still waits");
    let stats = until(&recorder, |stats| stats.written == 1).await;
    assert_eq!(stats.failed, 0);
    assert_eq!(events(&sim, "shop").await.len(), 1);
    recorder.shutdown().await;
}
