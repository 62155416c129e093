//! Rule-by-rule tests against a scripted source on a paused clock: each asserts the exact
//! requests, their parameters and their timing.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use kinformer_core::{DynamicObject, WatchEvent};

use crate::testing::{RecordingStore, Reply, ScriptedSource, Step, TestError, list};
use crate::{Cause, Config, Error, Reflector, WatchBreak};

mod config;
mod lifecycle;
mod list;
mod streaming;
mod watch;
mod watch_events;

pub(crate) type TestReflector =
    Reflector<crate::testing::Obj, Arc<ScriptedSource>, Arc<RecordingStore>>;

pub(crate) fn reflector(
    source: &Arc<ScriptedSource>,
    store: &Arc<RecordingStore>,
) -> TestReflector {
    reflector_with(source, store, Config::default().with_seed(1))
}

pub(crate) fn reflector_with(
    source: &Arc<ScriptedSource>,
    store: &Arc<RecordingStore>,
    config: Config,
) -> TestReflector {
    Reflector::new(Arc::clone(source), Arc::clone(store), config)
}

/// A source that lists `a` and `b` at RV 10, then answers `watches` in order.
pub(crate) fn listed_then(watches: Vec<Reply>) -> Arc<ScriptedSource> {
    let mut script = vec![Reply::List(Ok(list("10", &["a", "b"])))];
    script.extend(watches);
    ScriptedSource::new(script)
}

/// One event of a scripted watch.
pub(crate) fn event(e: WatchEvent<DynamicObject>) -> Step {
    Step::Event(e)
}

/// What the watch-error handler saw, one short name per failure.
pub(crate) type Seen = Arc<Mutex<Vec<String>>>;

/// Installs a watch-error handler that records each failure's kind (see [`kind`]).
pub(crate) fn recording_errors(reflector: TestReflector) -> (TestReflector, Seen) {
    let seen = Seen::default();
    let log = Arc::clone(&seen);
    let reflector = reflector.watch_error_handler(move |e| log.lock().unwrap().push(kind(e)));
    (reflector, seen)
}

/// A failure's variant, with where an expiry or a 429 came from and how a watch broke.
pub(crate) fn kind(e: &Error<TestError>) -> String {
    let from = |cause: &Cause<TestError>| match cause {
        Cause::Response(_) => "response",
        Cause::Event(_) => "event",
    };
    match e {
        Error::List(_) => "list".into(),
        Error::WatchOpen(_) => "watch open".into(),
        Error::WatchBroken { how, .. } => match how {
            WatchBreak::Dropped => "dropped".into(),
            WatchBreak::Malformed => "malformed".into(),
            WatchBreak::Stalled => "stalled".into(),
            WatchBreak::ClosedEarly => "closed early".into(),
        },
        Error::Expired(cause) => format!("expired ({})", from(cause)),
        Error::ErrorEvent(status) => format!("error event {}", status.code.unwrap_or(0)),
        Error::Throttled { cause, .. } => format!("throttled ({})", from(cause)),
        Error::Store(_) => "store".into(),
    }
}

/// Runs the reflector for `duration` of (paused) time, then drops it.
pub(crate) async fn run_for(reflector: TestReflector, duration: Duration) {
    reflector.run_until(tokio::time::sleep(duration)).await;
}

/// Time between two recorded requests.
pub(crate) fn gap(source: &ScriptedSource, from: usize, to: usize) -> Duration {
    let times = source.times();
    times[to] - times[from]
}

pub(crate) const SECOND: Duration = Duration::from_secs(1);

#[tokio::test]
async fn public_types_and_futures_are_send_and_sync() {
    fn send<T: Send>(_: &T) {}
    fn send_sync<T: Send + Sync>() {}
    send_sync::<TestReflector>();
    send_sync::<crate::Counters>();
    send_sync::<crate::ResourceVersionHandle>();
    send_sync::<crate::Error<crate::testing::TestError>>();
    let source = ScriptedSource::new(vec![]);
    let store = Arc::new(RecordingStore::default());
    let run = reflector(&source, &store).run();
    send(&run);
    let until = reflector(&source, &store).run_until(std::future::ready(()));
    send(&until);
    until.await;
}
