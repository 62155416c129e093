//! Every kind of failure reaches the watch-error handler, typed, against the simulator's faults;
//! and the reflector recovers from each as before (the store converges on the simulator's pods).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{Object, Store, StoreError, object_key};
use kinformer_listwatch::ListWatch;
use kinformer_reflector::{Cause, Config, Counters, Error, Reflector, WatchBreak};
use kinformer_rest::Client;
use kinformer_sim::{DropMode, Fault, FaultKind, ObjectOp, OpKind, Sim, SimHandle};
use serde_json::json;

/// A plain map of the reflector's objects (key -> resourceVersion).
#[derive(Default)]
struct MapStore(Mutex<BTreeMap<String, String>>);

impl MapStore {
    fn put(&self, obj: &Pod) {
        let rv = obj.resource_version().unwrap_or("").to_owned();
        self.0.lock().unwrap().insert(object_key(obj), rv);
    }
}

impl Store<Pod> for MapStore {
    fn add(&self, obj: Arc<Pod>) -> Result<(), StoreError> {
        self.put(&obj);
        Ok(())
    }
    fn update(&self, obj: Arc<Pod>) -> Result<(), StoreError> {
        self.put(&obj);
        Ok(())
    }
    fn delete(&self, obj: Arc<Pod>) -> Result<(), StoreError> {
        self.0.lock().unwrap().remove(&object_key(obj.as_ref()));
        Ok(())
    }
    fn replace(&self, list: Vec<Arc<Pod>>, _: &str) -> Result<(), StoreError> {
        self.0.lock().unwrap().clear();
        for obj in &list {
            self.put(obj);
        }
        Ok(())
    }
    fn resync(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

type RestError = Error<kinformer_rest::Error>;

/// A failure's kind, with where an expiry or a 429 came from and how a watch broke.
fn kind(e: &RestError) -> String {
    let from = |cause: &Cause<kinformer_rest::Error>| match cause {
        Cause::Response(_) => "response",
        Cause::Event(_) => "event",
        _ => "other",
    };
    match e {
        Error::List(_) => "list".into(),
        Error::WatchOpen(_) => "watch open".into(),
        Error::WatchBroken { how, .. } => match how {
            WatchBreak::Dropped => "dropped".into(),
            WatchBreak::Malformed => "malformed".into(),
            WatchBreak::Stalled => "stalled".into(),
            WatchBreak::ClosedEarly => "closed early".into(),
            _ => "broken".into(),
        },
        Error::Expired(cause) => format!("expired ({})", from(cause)),
        Error::ErrorEvent(status) => format!("error event {}", status.code.unwrap_or(0)),
        Error::Throttled {
            retry_after, cause, ..
        } => format!("throttled ({}, {retry_after:?})", from(cause)),
        Error::Store(_) => "store".into(),
        _ => "other".into(),
    }
}

/// A reflector over the sim's pods, running on a task, with what its handler saw.
struct Running {
    sim: SimHandle,
    store: Arc<MapStore>,
    seen: Arc<Mutex<Vec<String>>>,
    counters: Arc<Counters>,
    task: tokio::task::JoinHandle<()>,
}

/// Starts a sim with `faults` already in place, then a reflector, and waits for its first sync.
async fn start(streaming: bool, faults: Vec<Fault>) -> Running {
    let sim = Sim::builder()
        .pods(20)
        .seed(5)
        .compact_interval(None)
        .start()
        .await
        .unwrap();
    sim.add_faults(faults).await;
    let store = Arc::new(MapStore::default());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let counters = Arc::new(Counters::default());
    let log = Arc::clone(&seen);
    let source = ListWatch::<Pod, _>::for_type(Client::new(sim.service()));
    let config = Config::default()
        .with_seed(9)
        .with_streaming_list(streaming);
    let reflector = Reflector::new(source, Arc::clone(&store), config)
        .metrics(counters.clone())
        .watch_error_handler(move |e: &RestError| log.lock().unwrap().push(kind(e)));
    let task = tokio::spawn(reflector.run());
    let running = Running {
        sim,
        store,
        seen,
        counters,
        task,
    };
    running.converges().await;
    running
}

impl Running {
    /// Changes a pod, then waits until the store holds exactly the sim's pods.
    async fn converges(&self) {
        let pods = self.sim.versions("pods").await.unwrap();
        let (key, _) = pods.iter().next().unwrap();
        let (namespace, name) = key.split_once('/').unwrap();
        let touched = format!("{:?}", tokio::time::Instant::now());
        let patch = json!({"metadata": {"name": name, "namespace": namespace,
                                        "labels": {"touched": touched}}});
        self.sim
            .apply(ObjectOp::new(OpKind::Patch, "pods", patch))
            .await
            .unwrap();
        let truth = self.sim.versions("pods").await.unwrap();
        for _ in 0..1200 {
            if *self.store.0.lock().unwrap() == truth {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!(
            "the store never converged on the sim's pods; the handler saw {:?}",
            self.seen()
        );
    }

    /// Lets the open watch run for a while: one that ends within a second without events is a
    /// short watch, a kind of its own.
    async fn settle(&self) {
        tokio::time::sleep(Duration::from_secs(5)).await;
    }

    /// Waits until the handler has seen `n` failures, then until the store converges.
    async fn recovers_after(&self, n: usize) {
        for _ in 0..1200 {
            if self.seen.lock().unwrap().len() >= n {
                return self.converges().await;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the handler saw only {:?}", self.seen());
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }

    fn lists(&self) -> u64 {
        self.counters.snapshot().lists
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[tokio::test(start_paused = true)]
async fn a_failed_list_is_reported_as_list() {
    let running = start(
        false,
        vec![Fault::new(FaultKind::status(500)).verbs(["list"])],
    )
    .await;
    running.recovers_after(1).await;
    assert_eq!(running.seen(), ["list"]);
}

#[tokio::test(start_paused = true)]
async fn a_refused_watch_request_is_reported_as_watch_open() {
    let forbidden = Fault::new(FaultKind::status(403)).verbs(["watch"]);
    let running = start(false, vec![forbidden]).await;
    running.recovers_after(1).await;
    assert_eq!(running.seen(), ["watch open"]);
    assert_eq!(running.lists(), 2, "a refused watch relists");
}

#[tokio::test(start_paused = true)]
async fn a_dropped_connection_is_reported_and_rewatched_without_a_relist() {
    let running = start(false, vec![]).await;
    running.settle().await;
    assert_eq!(running.sim.drop_watches(DropMode::Abrupt).await, 1);
    running.recovers_after(1).await;
    assert_eq!(running.seen(), ["dropped"]);
    assert_eq!(running.lists(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_malformed_frame_is_reported_and_relisted() {
    let running = start(false, vec![]).await;
    running.settle().await;
    running.sim.drop_watches(DropMode::Malformed).await;
    running.recovers_after(1).await;
    assert_eq!(running.seen(), ["malformed"]);
    assert_eq!(running.lists(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_watch_closed_at_once_without_events_is_reported_and_relisted() {
    let close = FaultKind::WatchClose { after_events: 0 };
    let running = start(false, vec![Fault::new(close).verbs(["watch"])]).await;
    running.recovers_after(1).await;
    assert_eq!(running.seen(), ["closed early"]);
    assert_eq!(running.lists(), 2, "a very short watch relists");
}

#[tokio::test(start_paused = true)]
async fn a_streaming_list_that_stalls_is_reported_and_falls_back_to_a_list() {
    let stall = FaultKind::WatchStall {
        after_events: 0,
        seconds: 60.0,
    };
    let running = start(true, vec![Fault::new(stall).verbs(["watch"])]).await;
    running.recovers_after(1).await;
    assert_eq!(running.seen(), ["stalled"]);
    assert_eq!(running.lists(), 2, "the streaming list, then a list");
}

#[tokio::test(start_paused = true)]
async fn a_stall_of_an_open_watch_is_not_an_error() {
    let running = start(false, vec![]).await;
    running.settle().await;
    running
        .sim
        .drop_watches(DropMode::Stall { seconds: 30.0 })
        .await;
    running.converges().await;
    assert_eq!(running.seen(), Vec::<String>::new());
}

#[tokio::test(start_paused = true)]
async fn an_expired_watch_is_reported_as_expired_whether_answer_or_event() {
    let gone = Fault::new(FaultKind::status(410)).verbs(["watch"]);
    let running = start(false, vec![gone]).await;
    running.recovers_after(1).await;
    running.settle().await;
    running.sim.drop_watches(DropMode::Error410).await;
    running.recovers_after(2).await;
    assert_eq!(running.seen(), ["expired (response)", "expired (event)"]);
    assert_eq!(running.lists(), 3, "each expiry relists");
}

#[tokio::test(start_paused = true)]
async fn an_error_event_is_reported_with_its_status() {
    let error = FaultKind::WatchError {
        after_events: 0,
        code: 500,
    };
    let running = start(false, vec![Fault::new(error).verbs(["watch"])]).await;
    running.recovers_after(1).await;
    assert_eq!(running.seen(), ["error event 500"]);
    assert_eq!(running.lists(), 1, "a 5xx event re-watches");
}

#[tokio::test(start_paused = true)]
async fn a_throttled_watch_is_reported_with_its_retry_after() {
    // A bare client (no retry layer) hands the 429 straight to the reflector.
    let throttled = FaultKind::Status {
        code: 429,
        retry_after: Some(3),
        plain_text: false,
        message: None,
    };
    let event = FaultKind::WatchError {
        after_events: 0,
        code: 429,
    };
    let running = start(
        false,
        vec![
            Fault::new(throttled).verbs(["watch"]),
            Fault::new(event).verbs(["watch"]),
        ],
    )
    .await;
    running.recovers_after(2).await;
    assert_eq!(
        running.seen(),
        ["throttled (response, Some(3s))", "throttled (event, None)"]
    );
    assert_eq!(running.lists(), 1, "a 429 re-watches");
}

#[tokio::test(start_paused = true)]
async fn a_clean_end_of_a_watch_is_not_an_error() {
    let running = start(false, vec![]).await;
    running.settle().await;
    running.sim.drop_watches(DropMode::Clean).await;
    running.converges().await;
    assert_eq!(running.seen(), Vec::<String>::new());
    assert_eq!(running.lists(), 1);
}
