//! Events and series as the API server stores them: one create, then patches of the series.

use std::time::Duration;

use kinformer_events::{Config, EventType, Regarding};
use kinformer_rest::RestClient;
use kinformer_sim::{Fault, FaultKind};

use crate::{
    CONTROLLER, client, count, event_writes, events, node, pod, recorder, sim, synced, until,
};

#[tokio::test(start_paused = true)]
async fn an_event_is_created_with_the_fields_client_go_sets() {
    let sim = sim().await;
    let recorder = recorder(&sim, Config::default());
    let node = node("node-1");
    recorder.event(
        Regarding::from(&pod("web-0")).with_related(&node),
        EventType::Normal,
        "Scheduled",
        "Binding",
        "assigned shop/web-0 to node-1",
    );
    until(&recorder, |stats| stats.written == 1).await;

    let events = events(&sim, "shop").await;
    assert_eq!(events.len(), 1);
    let event = &events[0];
    let name = event.metadata.name.as_deref().unwrap();
    let (prefix, hex) = name.split_once('.').unwrap();
    assert_eq!(prefix, "web-0");
    assert!(u128::from_str_radix(hex, 16).is_ok(), "{name}");
    assert_eq!(event.type_.as_deref(), Some("Normal"));
    assert_eq!(event.reason.as_deref(), Some("Scheduled"));
    assert_eq!(event.action.as_deref(), Some("Binding"));
    assert_eq!(event.note.as_deref(), Some("assigned shop/web-0 to node-1"));
    assert_eq!(event.reporting_controller.as_deref(), Some(CONTROLLER));
    assert_eq!(
        event.reporting_instance.as_deref(),
        Some("web-controller-0")
    );
    assert!(event.event_time.is_some());
    assert!(event.series.is_none());
    let regarding = event.regarding.as_ref().unwrap();
    assert_eq!(
        (regarding.api_version.as_deref(), regarding.kind.as_deref()),
        (Some("v1"), Some("Pod"))
    );
    assert_eq!(regarding.uid.as_deref(), Some("uid-web-0"));
    assert_eq!(regarding.namespace.as_deref(), Some("shop"));
    let related = event.related.as_ref().unwrap();
    assert_eq!(
        (related.kind.as_deref(), related.name.as_deref()),
        (Some("Node"), Some("node-1"))
    );
    assert_eq!(event_writes(&sim).await, ["POST 201"]);
    recorder.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_repeat_becomes_a_series_patched_in_place() {
    let sim = sim().await;
    let recorder = recorder(&sim, Config::default());
    let web = pod("web-0");
    recorder.event(
        &web,
        EventType::Warning,
        "BackOff",
        "Restarting",
        "back-off 1",
    );
    until(&recorder, |stats| stats.written == 1).await;
    let first = events(&sim, "shop").await.remove(0);

    recorder.event(
        &web,
        EventType::Warning,
        "BackOff",
        "Restarting",
        "back-off 2",
    );
    until(&recorder, |stats| stats.written == 2).await;
    let events_now = events(&sim, "shop").await;
    assert_eq!(events_now.len(), 1, "a repeat is no new event");
    let series = &events_now[0];
    assert_eq!(series.metadata.name, first.metadata.name);
    assert_eq!(count(series), Some(2));
    let observed = series.series.as_ref().unwrap().last_observed_time.0;
    assert!(observed >= first.event_time.as_ref().unwrap().0);
    assert_eq!(
        series.note.as_deref(),
        Some("back-off 1"),
        "the first note stays"
    );
    assert_eq!(series.event_time, first.event_time);

    recorder.event(
        &web,
        EventType::Warning,
        "BackOff",
        "Restarting",
        "back-off 3",
    );
    until(&recorder, |stats| stats.written == 3).await;
    assert_eq!(count(&events(&sim, "shop").await[0]), Some(3));
    assert_eq!(
        event_writes(&sim).await,
        ["POST 201", "PATCH 200", "PATCH 200"]
    );
    let patch = sim
        .requests()
        .await
        .into_iter()
        .find(|r| r.method == "PATCH")
        .unwrap();
    let name = first.metadata.name.as_deref().unwrap();
    assert!(
        patch.path.starts_with(&format!(
            "/apis/events.k8s.io/v1/namespaces/shop/events/{name}"
        )),
        "{}",
        patch.path
    );
    recorder.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_series_whose_event_is_gone_is_created_again() {
    let sim = sim().await;
    let recorder = recorder(&sim, Config::default());
    let web = pod("web-0");
    recorder.event(&web, EventType::Warning, "BackOff", "Restarting", "");
    until(&recorder, |stats| stats.written == 1).await;
    let name = events(&sim, "shop").await[0].metadata.name.clone().unwrap();
    // Expired (events live an hour by default) or deleted by someone.
    let _: serde_json::Value = RestClient::new(client(&sim), "events.k8s.io", "v1")
        .delete()
        .namespace("shop")
        .resource("events")
        .name(&name)
        .into()
        .await
        .unwrap();

    recorder.event(&web, EventType::Warning, "BackOff", "Restarting", "");
    until(&recorder, |stats| stats.written == 2).await;
    let events = events(&sim, "shop").await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].metadata.name.as_deref(), Some(name.as_str()));
    assert_eq!(count(&events[0]), Some(2));
    let writes = event_writes(&sim).await;
    assert_eq!(&writes[writes.len() - 2..], ["PATCH 404", "POST 201"]);
    recorder.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_repeat_after_the_series_window_is_a_new_event() {
    let sim = sim().await;
    let recorder = recorder(&sim, Config::default());
    synced(&recorder, "web-0");
    until(&recorder, |stats| stats.written == 1).await;
    tokio::time::sleep(Config::default().series_window()).await;
    synced(&recorder, "web-0");
    until(&recorder, |stats| stats.written == 2).await;
    let events = events(&sim, "shop").await;
    assert_eq!(events.len(), 2);
    assert!(events.iter().all(|event| event.series.is_none()));
    recorder.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn cluster_scoped_objects_report_in_default_and_long_notes_are_cut() {
    let sim = sim().await;
    let recorder = recorder(&sim, Config::default());
    let node = node("node-1");
    recorder.event(
        &node,
        EventType::Warning,
        "NodeNotReady",
        "Checking",
        "x".repeat(5000),
    );
    until(&recorder, |stats| stats.written == 1).await;
    let events = events(&sim, "default").await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].note.as_deref().map(str::len), Some(1024));
    recorder.shutdown().await;
}

/// A repeat that comes while the first create is still on its way joins the series: one
/// Event, created once and then patched, whether the repeat comes at once, 1 ms or 10 ms
/// after the first (client-go's broadcaster keys a repeat before it writes, too).
#[tokio::test(start_paused = true)]
async fn a_repeat_while_the_create_is_in_flight_joins_its_series() {
    for after_ms in [0, 1, 10] {
        let sim = sim().await;
        // The create takes 50 ms to answer: every repeat below comes while it is in flight.
        let slow = Fault::new(FaultKind::Delay { seconds: 0.05 })
            .count(1)
            .verbs(["create"])
            .resources(["events"]);
        sim.add_faults([slow]).await;
        let recorder = recorder(&sim, Config::default());
        synced(&recorder, "web-0");
        tokio::time::sleep(Duration::from_millis(after_ms)).await;
        synced(&recorder, "web-0");
        until(&recorder, |stats| stats.written == 2).await;
        let events = events(&sim, "shop").await;
        assert_eq!(events.len(), 1, "{after_ms} ms: one Event, not two");
        assert_eq!(count(&events[0]), Some(2), "{after_ms} ms");
        assert_eq!(
            event_writes(&sim).await,
            ["POST 201", "PATCH 200"],
            "{after_ms} ms"
        );
        recorder.shutdown().await;
    }
}
