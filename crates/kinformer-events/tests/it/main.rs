//! The recorder against the simulator: events and series as the API server stores them,
//! outages, the spam filter, shutdown, and what kubectl shows.

mod kubectl;
mod outage;
mod series;
mod shutdown;
mod spam;

use std::time::Duration;

use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kinformer_events::{Config, EventType, Recorder, Reporter, Stats};
use kinformer_rest::{Client, RestClient};
use kinformer_sim::{Fault, FaultKind, RequestRecord, Sim, SimHandle};

pub(crate) const CONTROLLER: &str = "example.com/web-controller";

pub(crate) async fn sim() -> SimHandle {
    // The pods' namespace exists, as it would on a cluster.
    Sim::builder()
        .create_namespace("shop")
        .start()
        .await
        .unwrap()
}

pub(crate) fn client(sim: &SimHandle) -> Client {
    Client::new(sim.service())
}

pub(crate) fn recorder(sim: &SimHandle, config: Config) -> Recorder {
    let reporter = Reporter::new(CONTROLLER)
        .unwrap()
        .with_instance("web-controller-0")
        .unwrap();
    Recorder::with_config(client(sim), reporter, config)
}

/// A pod in namespace `shop`, with a uid and resourceVersion as an informer would hand it out.
pub(crate) fn pod(name: &str) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some("shop".into()),
            uid: Some(format!("uid-{name}")),
            resource_version: Some("7".into()),
            ..ObjectMeta::default()
        },
        ..Pod::default()
    }
}

/// A node, cluster-scoped, with only a name.
pub(crate) fn node(name: &str) -> Node {
    Node {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..ObjectMeta::default()
        },
        ..Node::default()
    }
}

/// Records the event tests record when any will do: `Normal`, reason `Synced`, action `Sync`,
/// no note, about the pod `name` of [`pod`].
pub(crate) fn synced(recorder: &Recorder, name: &str) {
    recorder.event(&pod(name), EventType::Normal, "Synced", "Sync", "");
}

/// Every `events.k8s.io/v1` Event in `namespace`, by name.
pub(crate) async fn events(sim: &SimHandle, namespace: &str) -> Vec<Event> {
    let list: serde_json::Value = RestClient::new(client(sim), "events.k8s.io", "v1")
        .get()
        .namespace(namespace)
        .resource("events")
        .into()
        .await
        .unwrap();
    let mut events: Vec<Event> = serde_json::from_value(list["items"].clone()).unwrap();
    events.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    events
}

/// The requests that wrote events, as `"<method> <status>"`.
pub(crate) async fn event_writes(sim: &SimHandle) -> Vec<String> {
    sim.requests()
        .await
        .into_iter()
        .filter(|r: &RequestRecord| {
            r.path.starts_with("/apis/events.k8s.io/v1/") && r.method != "GET"
        })
        .map(|r| format!("{} {}", r.method, r.status))
        .collect()
}

/// The API server answering every events request with `code`, until the faults are cleared.
pub(crate) fn down(code: u16) -> Fault {
    Fault::new(FaultKind::status(code))
        .count(-1)
        .resources(["events"])
}

/// Waits (in small steps, paused time or not) until `done` holds for the recorder's stats.
pub(crate) async fn until(recorder: &Recorder, done: impl Fn(&Stats) -> bool) -> Stats {
    for _ in 0..2000 {
        let stats = recorder.stats();
        if done(&stats) {
            return stats;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("stats never got there: {:?}", recorder.stats());
}

/// The series count of `event` (`None`: a singleton).
pub(crate) fn count(event: &Event) -> Option<i32> {
    event.series.as_ref().map(|series| series.count)
}
