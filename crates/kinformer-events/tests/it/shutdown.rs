//! Shutdown: what is queued is written; a stalled server costs at most the flush timeout.

use std::time::Duration;

use kinformer_events::Config;
use kinformer_sim::{Fault, FaultKind};
use tokio::time::Instant;

use crate::{count, events, recorder, sim, synced};

#[tokio::test(start_paused = true)]
async fn shutdown_writes_what_is_queued_then_drops_what_comes_later() {
    let sim = sim().await;
    let recorder = recorder(&sim, Config::default());
    for i in 0..5 {
        synced(&recorder, &format!("web-{i}"));
    }
    synced(&recorder, "web-0");
    let clone = recorder.clone();
    let stats = recorder.shutdown().await;
    assert_eq!(
        (stats.recorded, stats.written, stats.failed, stats.dropped),
        (6, 5, 0, 0)
    );
    let events = events(&sim, "shop").await;
    assert_eq!(events.len(), 5);
    assert_eq!(count(&events[0]), Some(2));

    synced(&clone, "web-9");
    assert_eq!(clone.stats().dropped, 1);
    assert_eq!(
        clone.shutdown().await,
        clone.stats(),
        "a second shutdown is a no-op"
    );
}

#[tokio::test(start_paused = true)]
async fn a_stalled_server_costs_shutdown_at_most_the_flush_timeout() {
    let sim = sim().await;
    let stall = Fault::new(FaultKind::Delay { seconds: 3600.0 })
        .count(-1)
        .resources(["events"]);
    sim.add_faults([stall]).await;
    let flush = Duration::from_secs(5);
    let config = Config::default()
        .with_workers(1)
        .and_then(|c| c.with_request_timeout(Duration::from_secs(30)))
        .unwrap()
        .with_flush_timeout(flush);
    let recorder = recorder(&sim, config);
    for i in 0..3 {
        synced(&recorder, &format!("web-{i}"));
    }
    let start = Instant::now();
    let stats = recorder.shutdown().await;
    let took = start.elapsed();
    assert!(
        took >= flush && took < flush + Duration::from_secs(1),
        "{took:?}"
    );
    assert_eq!(stats.written, 0);
    assert_eq!(
        (stats.failed, stats.dropped),
        (1, 2),
        "one write cut off, two never started"
    );
}

#[tokio::test(start_paused = true)]
async fn dropping_every_recorder_still_writes_what_is_queued() {
    let sim = sim().await;
    let recorder = recorder(&sim, Config::default());
    synced(&recorder, "web-0");
    drop(recorder);
    for _ in 0..100 {
        if !events(&sim, "shop").await.is_empty() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the queued event was never written");
}
