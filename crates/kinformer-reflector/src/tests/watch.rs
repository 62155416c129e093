//! Watch rules: parameters, how each kind of end is handled, event application.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use kinformer_core::{DynamicObject, TypeMeta, WatchEvent};

use super::{SECOND, gap, recording_errors, reflector, reflector_with, run_for};
use crate::testing::{
    Call, RecordingStore, Reply, ScriptedSource, Step, api_error, bookmark, list, malformed, obj,
    refused, status,
};
use crate::{Config, Counters, expect_kind};

fn listed_then(watches: Vec<Reply>) -> Arc<ScriptedSource> {
    let mut script = vec![Reply::List(Ok(list("10", &["a", "b"])))];
    script.extend(watches);
    ScriptedSource::new(script)
}

fn event(e: WatchEvent<DynamicObject>) -> Step {
    Step::Event(e)
}

#[tokio::test(start_paused = true)]
async fn watch_timeout_is_uniform_in_min_to_twice_min_and_min_is_at_least_300() {
    for (min, expected_min) in [(400, 400), (100, 300), (300, 300)] {
        let watches = (0..40)
            .map(|_| Reply::Watch(Ok(vec![Step::Wait(SECOND * 2)])))
            .collect();
        let source = listed_then(watches);
        let store = Arc::new(RecordingStore::default());
        let config = Config::default()
            .seed(3)
            .min_watch_timeout(Duration::from_secs(min));
        run_for(reflector_with(&source, &store, config), SECOND * 79).await;
        let timeouts: Vec<u32> = source
            .requests()
            .iter()
            .filter(|r| !r.is_list())
            .map(|r| r.options().timeout_seconds.unwrap())
            .collect();
        assert_eq!(timeouts.len(), 40);
        assert!(
            timeouts
                .iter()
                .all(|t| (expected_min..=2 * expected_min).contains(t))
        );
        let spread = timeouts.iter().max().unwrap() - timeouts.iter().min().unwrap();
        assert!(spread > expected_min / 2, "drawn, not fixed: {timeouts:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn clean_end_rewatches_at_once_at_the_last_rv() {
    let source = listed_then(vec![
        Reply::Watch(Ok(vec![
            event(WatchEvent::Added(obj("c", "11"))),
            Step::Wait(SECOND * 5),
        ])),
        Reply::Watch(Ok(vec![Step::Wait(SECOND * 300)])),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    run_for(reflector(&source, &store), SECOND * 400).await;
    assert_eq!(
        source.queries(),
        [
            "LIST resourceVersion=0&limit=500",
            "WATCH resourceVersion=10&allowWatchBookmarks=true",
            "WATCH resourceVersion=11&allowWatchBookmarks=true",
            "WATCH resourceVersion=11&allowWatchBookmarks=true",
        ]
    );
    assert_eq!(
        gap(&source, 1, 2),
        SECOND * 5,
        "no backoff after a clean end"
    );
    assert_eq!(
        gap(&source, 2, 3),
        SECOND * 300,
        "an empty but long watch is clean too"
    );
}

#[tokio::test(start_paused = true)]
async fn expired_or_gone_watch_relists_at_the_last_rv_after_backoff() {
    let bare_410 = kinformer_core::Status {
        code: Some(410),
        ..kinformer_core::Status::default()
    };
    let source = listed_then(vec![
        // HTTP 410 on the watch request itself.
        Reply::Watch(Err(api_error(410, "Expired"))),
        Reply::List(Ok(list("20", &["a"]))),
        // ERROR event, reason Gone (old servers).
        Reply::Watch(Ok(vec![
            event(WatchEvent::Modified(obj("a", "21"))),
            event(WatchEvent::Error(Box::new(status(410, "Gone")))),
        ])),
        Reply::List(Ok(list("30", &["a"]))),
        // ERROR event, code 410 without a reason.
        Reply::Watch(Ok(vec![event(WatchEvent::Error(Box::new(bare_410)))])),
        Reply::List(Ok(list("40", &["a"]))),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    let (r, seen) = recording_errors(reflector(&source, &store));
    run_for(r, SECOND * 120).await;
    assert_eq!(
        source.queries(),
        [
            "LIST resourceVersion=0&limit=500",
            "WATCH resourceVersion=10&allowWatchBookmarks=true",
            "LIST resourceVersion=10",
            "WATCH resourceVersion=20&allowWatchBookmarks=true",
            "LIST resourceVersion=21",
            "WATCH resourceVersion=30&allowWatchBookmarks=true",
            "LIST resourceVersion=30",
            "WATCH resourceVersion=40&allowWatchBookmarks=true",
        ]
    );
    for (watch, relist) in [(1, 2), (3, 4), (5, 6)] {
        assert!(gap(&source, watch, relist) >= SECOND * 4 / 5);
    }
    assert_eq!(
        *seen.lock().unwrap(),
        ["expired (response)", "expired (event)", "expired (event)"]
    );
}

#[tokio::test(start_paused = true)]
async fn too_many_requests_or_refused_watch_rewatches_at_the_same_rv_after_backoff() {
    let source = listed_then(vec![
        Reply::Watch(Err(api_error(429, "TooManyRequests"))),
        Reply::Watch(Err(refused())),
        Reply::Watch(Ok(vec![
            event(WatchEvent::Added(obj("c", "11"))),
            event(WatchEvent::Error(Box::new(status(429, "TooManyRequests")))),
        ])),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    let (r, seen) = recording_errors(reflector(&source, &store));
    run_for(r, SECOND * 60).await;
    assert_eq!(
        source.queries(),
        [
            "LIST resourceVersion=0&limit=500",
            "WATCH resourceVersion=10&allowWatchBookmarks=true",
            "WATCH resourceVersion=10&allowWatchBookmarks=true",
            "WATCH resourceVersion=10&allowWatchBookmarks=true",
            "WATCH resourceVersion=11&allowWatchBookmarks=true",
        ]
    );
    let first = gap(&source, 1, 2);
    let second = gap(&source, 2, 3);
    assert!(
        first >= SECOND * 4 / 5 && first < SECOND * 8 / 5,
        "{first:?}"
    );
    assert!(
        second >= SECOND * 8 / 5 && second < SECOND * 16 / 5,
        "{second:?}"
    );
    assert!(
        gap(&source, 3, 4) >= SECOND * 16 / 5,
        "the backoff is shared and keeps growing"
    );
    assert_eq!(
        *seen.lock().unwrap(),
        ["throttled (response)", "watch open", "throttled (event)"]
    );
}

#[tokio::test(start_paused = true)]
async fn an_error_event_is_reported_with_its_status_and_a_5xx_one_rewatches() {
    let source = listed_then(vec![
        Reply::Watch(Ok(vec![
            event(WatchEvent::Modified(obj("a", "11"))),
            event(WatchEvent::Error(Box::new(status(500, "InternalError")))),
        ])),
        Reply::Watch(Ok(vec![
            event(WatchEvent::Modified(obj("a", "12"))),
            event(WatchEvent::Error(Box::new(status(403, "Forbidden")))),
        ])),
        Reply::List(Ok(list("20", &["a"]))),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    let statuses = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&statuses);
    let r = reflector(&source, &store).watch_error_handler(move |e| {
        let crate::Error::ErrorEvent(status) = e else {
            panic!("not an ERROR event: {e}");
        };
        assert_eq!(e.status(), Some(&**status));
        log.lock().unwrap().push(status.reason.clone().unwrap());
    });
    run_for(r, SECOND * 60).await;
    assert_eq!(*statuses.lock().unwrap(), ["InternalError", "Forbidden"]);
    assert_eq!(
        source.queries(),
        [
            "LIST resourceVersion=0&limit=500",
            "WATCH resourceVersion=10&allowWatchBookmarks=true",
            "WATCH resourceVersion=11&allowWatchBookmarks=true",
            "LIST resourceVersion=12",
            "WATCH resourceVersion=20&allowWatchBookmarks=true",
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_watch_closing_within_a_second_without_events_relists_after_backoff() {
    let source = listed_then(vec![
        Reply::Watch(Ok(vec![Step::Wait(SECOND / 2)])),
        Reply::List(Ok(list("20", &["a"]))),
        // Within a second but with an event: a clean end.
        Reply::Watch(Ok(vec![event(bookmark("21"))])),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    let counters = Arc::new(Counters::default());
    let (r, seen) = recording_errors(reflector(&source, &store).metrics(counters.clone()));
    run_for(r, SECOND * 60).await;
    assert_eq!(*seen.lock().unwrap(), ["closed early"]);
    assert_eq!(
        source.queries(),
        [
            "LIST resourceVersion=0&limit=500",
            "WATCH resourceVersion=10&allowWatchBookmarks=true",
            "LIST resourceVersion=10",
            "WATCH resourceVersion=20&allowWatchBookmarks=true",
            "WATCH resourceVersion=21&allowWatchBookmarks=true",
        ]
    );
    assert!(gap(&source, 1, 2) >= SECOND / 2 + SECOND * 4 / 5);
    assert_eq!(gap(&source, 3, 4), Duration::ZERO);
    assert_eq!(counters.snapshot().short_watches, 1);
}

#[tokio::test(start_paused = true)]
async fn a_malformed_frame_ends_the_watch_and_relists_but_a_broken_connection_rewatches() {
    let source = listed_then(vec![
        Reply::Watch(Ok(vec![
            event(WatchEvent::Modified(obj("a", "11"))),
            Step::Wait(SECOND * 3),
            Step::Fail(Box::new(refused())),
        ])),
        Reply::Watch(Ok(vec![
            event(WatchEvent::Modified(obj("a", "12"))),
            Step::Fail(Box::new(malformed())),
            event(WatchEvent::Modified(obj("a", "13"))),
        ])),
        Reply::List(Ok(list("20", &["a"]))),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    let (r, seen) = recording_errors(reflector(&source, &store));
    run_for(r, SECOND * 60).await;
    assert_eq!(*seen.lock().unwrap(), ["dropped", "malformed"]);
    assert_eq!(
        source.queries(),
        [
            "LIST resourceVersion=0&limit=500",
            "WATCH resourceVersion=10&allowWatchBookmarks=true",
            "WATCH resourceVersion=11&allowWatchBookmarks=true",
            "LIST resourceVersion=12",
            "WATCH resourceVersion=20&allowWatchBookmarks=true",
        ]
    );
    assert_eq!(gap(&source, 1, 2), SECOND * 3);
    assert!(gap(&source, 2, 3) >= SECOND * 4 / 5);
    assert!(
        !store.calls().contains(&Call::ResourceVersion("13".into())),
        "nothing after the malformed frame is applied"
    );
}

#[tokio::test(start_paused = true)]
async fn every_event_and_bookmark_advances_the_rv_and_reaches_the_store() {
    let source = listed_then(vec![Reply::Watch(Ok(vec![
        event(WatchEvent::Added(obj("c", "11"))),
        event(WatchEvent::Modified(obj("a", "12"))),
        event(WatchEvent::Deleted(obj("b", "13"))),
        event(bookmark("15")),
        Step::Hang,
    ]))]);
    let store = Arc::new(RecordingStore::default());
    let counters = Arc::new(Counters::default());
    let r = reflector(&source, &store).metrics(counters.clone());
    let rv = r.resource_version_handle();
    run_for(r, SECOND * 10).await;
    assert_eq!(
        store.calls(),
        [
            Call::Replace(vec!["ns/a".into(), "ns/b".into()], "10".into()),
            Call::Add("ns/c".into()),
            Call::ResourceVersion("11".into()),
            Call::Update("ns/a".into()),
            Call::ResourceVersion("12".into()),
            Call::Delete("ns/b".into()),
            Call::ResourceVersion("13".into()),
            Call::ResourceVersion("15".into()),
        ]
    );
    assert_eq!(store.keys(), ["ns/a", "ns/c"]);
    assert_eq!(rv.get(), "15");
    let snap = counters.snapshot();
    assert_eq!(
        (snap.events, snap.last_resource_version.as_str()),
        (4, "15")
    );
}

#[tokio::test(start_paused = true)]
async fn objects_of_the_wrong_kind_are_skipped_without_moving_the_rv() {
    let mut secret = (*obj("s", "11")).clone();
    secret.types = Some(TypeMeta::new("v1", "Secret"));
    let secret = Arc::new(secret);
    let source = listed_then(vec![
        Reply::Watch(Ok(vec![
            event(WatchEvent::Added(Arc::clone(&secret))),
            event(WatchEvent::Modified(obj("a", "12"))),
            event(WatchEvent::Deleted(secret)),
            Step::Wait(SECOND * 2),
        ])),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    let r = reflector(&source, &store).type_check(expect_kind("v1", "ConfigMap"));
    let rv = r.resource_version_handle();
    run_for(r, SECOND * 10).await;
    assert_eq!(
        store.calls(),
        [
            Call::Replace(vec!["ns/a".into(), "ns/b".into()], "10".into()),
            Call::Update("ns/a".into()),
            Call::ResourceVersion("12".into()),
        ]
    );
    assert_eq!(rv.get(), "12");
    assert_eq!(
        source.queries()[2],
        "WATCH resourceVersion=12&allowWatchBookmarks=true"
    );
}

#[tokio::test(start_paused = true)]
async fn synthetic_added_events_of_a_watch_from_empty_rv_do_not_move_the_rv() {
    // A server whose list carries no resourceVersion makes the reflector watch from "".
    let source = ScriptedSource::new(vec![
        Reply::List(Ok(list("", &[]))),
        Reply::Watch(Ok(vec![
            event(WatchEvent::Added(obj("a", "7"))),
            event(WatchEvent::Added(obj("b", "5"))),
            event(WatchEvent::Modified(obj("a", "9"))),
            event(WatchEvent::Added(obj("c", "10"))),
            Step::Hang,
        ])),
    ]);
    let store = Arc::new(RecordingStore::default());
    run_for(reflector(&source, &store), SECOND * 10).await;
    let rvs: Vec<Call> = store
        .calls()
        .into_iter()
        .filter(|c| matches!(c, Call::ResourceVersion(_)))
        .collect();
    assert_eq!(
        rvs,
        [
            Call::ResourceVersion("9".into()),
            Call::ResourceVersion("10".into())
        ]
    );
    assert_eq!(source.queries()[1], "WATCH allowWatchBookmarks=true");
}

/// A store that records how many references each object it is handed has.
#[derive(Default)]
struct RefCountStore(Mutex<Vec<usize>>);

impl kinformer_core::Store<DynamicObject> for RefCountStore {
    fn add(&self, obj: Arc<DynamicObject>) -> Result<(), kinformer_core::StoreError> {
        self.0.lock().unwrap().push(Arc::strong_count(&obj));
        Ok(())
    }
    fn update(&self, obj: Arc<DynamicObject>) -> Result<(), kinformer_core::StoreError> {
        self.add(obj)
    }
    fn delete(&self, obj: Arc<DynamicObject>) -> Result<(), kinformer_core::StoreError> {
        self.add(obj)
    }
    fn replace(
        &self,
        list: Vec<Arc<DynamicObject>>,
        _: &str,
    ) -> Result<(), kinformer_core::StoreError> {
        let mut counts = self.0.lock().unwrap();
        counts.extend(list.iter().map(Arc::strong_count));
        Ok(())
    }
    fn resync(&self) -> Result<(), kinformer_core::StoreError> {
        Ok(())
    }
}

#[tokio::test(start_paused = true)]
async fn the_store_receives_the_only_reference_to_each_object() {
    // A second reference would make copy-on-write transforms (managedFields stripping) deep-clone.
    let source = listed_then(vec![Reply::Watch(Ok(vec![
        event(WatchEvent::Added(obj("c", "11"))),
        event(WatchEvent::Modified(obj("c", "12"))),
        event(WatchEvent::Deleted(obj("c", "13"))),
        Step::Wait(SECOND * 5),
    ]))]);
    let store = Arc::new(RefCountStore::default());
    let reflector = crate::Reflector::new(
        Arc::clone(&source),
        Arc::clone(&store),
        Config::default().seed(1),
    );
    reflector.run_until(tokio::time::sleep(SECOND * 3)).await;
    assert_eq!(*store.0.lock().unwrap(), vec![1, 1, 1, 1, 1]);
}
