//! Resync, the error handler, cancellation, the RV handle, metrics, and the backoff bound.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kinformer_core::{DynamicObject, ListOptions, Lister, ListerWatcher, ObjectList, Watcher};
use tokio::time::Instant;

use super::{SECOND, recording_errors, reflector, reflector_with, run_for};
use crate::testing::{
    Call, RecordingStore, Reply, ScriptedSource, Step, TestError, api_error, list,
};
use crate::{Config, Counters, Reflector};

#[tokio::test(start_paused = true)]
async fn resync_runs_every_period_when_should_resync_allows_and_sends_nothing() {
    let source = ScriptedSource::new(vec![
        Reply::List(Ok(list("10", &["a"]))),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    let allow = Arc::new(AtomicBool::new(true));
    let gate = Arc::clone(&allow);
    let config = Config::default()
        .with_seed(1)
        .with_resync_period(SECOND * 30);
    let r =
        reflector_with(&source, &store, config).should_resync(move || gate.load(Ordering::SeqCst));
    let task = tokio::spawn(r.run());
    tokio::time::sleep(SECOND * 95).await;
    let resyncs = |s: &RecordingStore| s.calls().iter().filter(|c| **c == Call::Resync).count();
    assert_eq!(resyncs(&store), 3);
    allow.store(false, Ordering::SeqCst);
    tokio::time::sleep(SECOND * 60).await;
    assert_eq!(resyncs(&store), 3, "should_resync said no");
    assert_eq!(
        source.requests().len(),
        2,
        "resync never talks to the server"
    );
    task.abort();
}

#[tokio::test(start_paused = true)]
async fn the_handler_sees_every_failure_typed_by_kind_and_recovery_is_unchanged() {
    let source = ScriptedSource::new(vec![
        Reply::List(Err(api_error(500, "InternalError"))),
        Reply::List(Ok(list("10", &[]))),
        Reply::Watch(Err(api_error(403, "Forbidden"))),
        Reply::List(Ok(list("10", &[]))),
        Reply::Watch(Err(api_error(429, "TooManyRequests"))),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    let (r, seen) = recording_errors(reflector(&source, &store));
    run_for(r, SECOND * 60).await;
    assert_eq!(
        *seen.lock().unwrap(),
        ["list", "watch open", "throttled (response)"]
    );
    assert_eq!(source.remaining(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_clean_end_of_a_watch_is_not_an_error() {
    let source = ScriptedSource::new(vec![
        Reply::List(Ok(list("10", &[]))),
        // The server's timeout: long, without events.
        Reply::Watch(Ok(vec![Step::Wait(SECOND * 300)])),
        // A normal close soon after an event.
        Reply::Watch(Ok(vec![Step::Event(crate::testing::bookmark("11"))])),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    let (r, seen) = recording_errors(reflector(&source, &store));
    run_for(r, SECOND * 400).await;
    assert_eq!(source.remaining(), 0);
    assert!(seen.lock().unwrap().is_empty(), "{seen:?}");
}

#[tokio::test(start_paused = true)]
async fn cancellation_stops_promptly_and_releases_the_source() {
    // The script ends after the list: the watch request never completes.
    let source = ScriptedSource::new(vec![Reply::List(Ok(list("10", &[])))]);
    let store = Arc::new(RecordingStore::default());
    let started = Instant::now();
    reflector(&source, &store)
        .run_until(tokio::time::sleep(SECOND * 5))
        .await;
    assert_eq!(started.elapsed(), SECOND * 5);
    assert_eq!(
        Arc::strong_count(&source),
        1,
        "the reflector and its requests are gone"
    );

    let task = tokio::spawn(reflector(&source, &store).run());
    tokio::time::sleep(SECOND).await;
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    assert_eq!(Arc::strong_count(&source), 1);
}

#[tokio::test(start_paused = true)]
async fn the_rv_handle_is_readable_while_running_and_metrics_count() {
    let source = ScriptedSource::new(vec![
        Reply::List(Ok(list("10", &["a"]))),
        Reply::Watch(Ok(vec![
            Step::Wait(SECOND * 5),
            Step::Event(crate::testing::bookmark("11")),
            Step::Wait(SECOND * 5),
            Step::Event(kinformer_core::WatchEvent::Error(Box::new(
                crate::testing::status(410, "Expired"),
            ))),
        ])),
        Reply::List(Ok(list("12", &["a"]))),
        Reply::Watch(Ok(vec![])),
        Reply::List(Ok(list("13", &["a"]))),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    let counters = Arc::new(Counters::default());
    let r = reflector(&source, &store).metrics(counters.clone());
    let rv = r.resource_version_handle();
    let task = tokio::spawn(r.run());
    tokio::time::sleep(SECOND * 3).await;
    assert_eq!(rv.get(), "10");
    tokio::time::sleep(SECOND * 4).await;
    assert_eq!(rv.get(), "11");
    tokio::time::sleep(SECOND * 60).await;
    assert_eq!(rv.get(), "13");
    task.abort();
    let snap = counters.snapshot();
    assert_eq!(
        (
            snap.lists,
            snap.relists,
            snap.watches,
            snap.short_watches,
            snap.events
        ),
        (3, 2, 3, 1, 1)
    );
    assert_eq!(snap.last_resource_version, "13");
}

/// A source that fails every request, recording when.
struct AlwaysFailing {
    times: Mutex<Vec<Duration>>,
    start: Instant,
}

impl AlwaysFailing {
    fn record(&self) -> TestError {
        self.times.lock().unwrap().push(self.start.elapsed());
        api_error(503, "ServiceUnavailable")
    }
}

impl Lister<DynamicObject> for AlwaysFailing {
    type Error = TestError;
    async fn list(&self, _: &ListOptions) -> Result<ObjectList<DynamicObject>, TestError> {
        Err(self.record())
    }
}

impl Watcher<DynamicObject> for AlwaysFailing {
    type Error = TestError;
    type Stream =
        futures_util::stream::Empty<Result<kinformer_core::WatchEvent<DynamicObject>, TestError>>;
    async fn watch(&self, _: &ListOptions) -> Result<Self::Stream, TestError> {
        Err(self.record())
    }
}

impl ListerWatcher<DynamicObject> for AlwaysFailing {}

#[tokio::test(start_paused = true)]
async fn a_server_failing_every_request_for_five_minutes_is_not_hammered() {
    for streaming in [false, true] {
        let source = Arc::new(AlwaysFailing {
            times: Mutex::default(),
            start: Instant::now(),
        });
        let store = Arc::new(RecordingStore::default());
        let config = Config::default()
            .with_seed(11)
            .with_streaming_list(streaming);
        Reflector::new(Arc::clone(&source), store, config)
            .watch_error_handler(|_| {})
            .run_until(tokio::time::sleep(SECOND * 300))
            .await;
        let times = source.times.lock().unwrap().clone();
        // A 503 is retried as it was (a streaming list stays a streaming list): one request a round.
        let rounds = times.len();
        let last_minute = times.iter().filter(|t| **t >= SECOND * 240).count();
        eprintln!(
            "streaming={streaming}: {} requests in 300 s ({:.3}/s), {last_minute} rounds in the last minute",
            times.len(),
            times.len() as f64 / 300.0
        );
        // client-go's schedule: six growing delays (about 76 s in all), then one every 30-60 s.
        assert!((8..=16).contains(&rounds), "{rounds} rounds: {times:?}");
        assert!(
            (1..=2).contains(&last_minute),
            "steady state 30-60 s apart: {times:?}"
        );
    }
}
