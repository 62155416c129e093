//! Watch rules: parameters and how each kind of end is handled.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use kinformer_core::WatchEvent;

use super::{
    SECOND, event, gap, listed_then, recording_errors, reflector, reflector_with, run_for,
};
use crate::testing::{
    Call, RecordingStore, Reply, Step, api_error, bookmark, list, malformed, obj, refused, status,
};
use crate::{Config, Counters};

#[tokio::test(start_paused = true)]
async fn watch_timeout_is_uniform_in_min_to_twice_min_and_min_is_at_least_300() {
    for (min, expected_min) in [(400, 400), (100, 300), (300, 300)] {
        let watches = (0..40)
            .map(|_| Reply::Watch(Ok(vec![Step::Wait(SECOND * 2)])))
            .collect();
        let source = listed_then(watches);
        let store = Arc::new(RecordingStore::default());
        let config = Config::default()
            .with_seed(3)
            .with_min_watch_timeout(Duration::from_secs(min));
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
