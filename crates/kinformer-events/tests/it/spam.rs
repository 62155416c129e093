//! The spam filter end to end: a burst per reporter and object, then one per refill.

use std::time::Duration;

use kinformer_events::{Config, EventType, Reporter};

use crate::{events, pod, recorder, sim, until};

#[tokio::test(start_paused = true)]
async fn a_burst_per_object_passes_then_one_per_refill() {
    let sim = sim().await;
    let refill = Duration::from_secs(60);
    let recorder = recorder(
        &sim,
        Config::default()
            .with_spam_burst(3)
            .and_then(|c| c.with_spam_refill(refill))
            .unwrap(),
    );
    let web = pod("web-0");
    // Different reasons: separate events, all drawing on web-0's bucket.
    for reason in ["A", "B", "C", "D", "E"] {
        recorder.event(&web, EventType::Normal, reason, "Sync", "");
    }
    recorder.event(&pod("web-1"), EventType::Normal, "A", "Sync", "");
    let other = recorder.for_reporter(Reporter::new("example.com/other").unwrap());
    other.event(&web, EventType::Normal, "A", "Sync", "");
    let stats = until(&recorder, |stats| stats.written == 5).await;
    assert_eq!(stats.spam_filtered, 2);

    tokio::time::sleep(refill).await;
    recorder.event(&web, EventType::Normal, "F", "Sync", "");
    recorder.event(&web, EventType::Normal, "G", "Sync", "");
    let stats = until(&recorder, |stats| stats.written == 6).await;
    assert_eq!(stats.spam_filtered, 3, "one token came back");

    let reasons: Vec<_> = events(&sim, "shop")
        .await
        .into_iter()
        .filter(|event| event.regarding.as_ref().unwrap().name.as_deref() == Some("web-0"))
        .filter(|event| event.reporting_controller.as_deref() == Some(crate::CONTROLLER))
        .map(|event| event.reason.unwrap())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(reasons, ["A", "B", "C", "F"]);
    recorder.shutdown().await;
}
