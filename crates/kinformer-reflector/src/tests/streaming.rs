//! Streaming-list rules.

use std::sync::Arc;

use kinformer_core::WatchEvent;

use super::{SECOND, gap, recording_errors, reflector, reflector_with, run_for};
use crate::Config;
use crate::testing::{
    Call, RecordingStore, Reply, ScriptedSource, Step, api_error, bookmark, end_bookmark, list,
    obj, status, too_large,
};

const STREAM_FIRST: &str =
    "WATCH resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true";

fn event(e: WatchEvent<kinformer_core::DynamicObject>) -> Step {
    Step::Event(e)
}

fn expired_event() -> Step {
    event(WatchEvent::Error(Box::new(status(410, "Expired"))))
}

#[tokio::test(start_paused = true)]
async fn initial_events_fill_a_temporary_store_then_one_replace_and_the_stream_continues() {
    let source = ScriptedSource::streaming(vec![Reply::Watch(Ok(vec![
        event(WatchEvent::Added(obj("a", "5"))),
        event(WatchEvent::Added(obj("b", "6"))),
        event(WatchEvent::Modified(obj("a", "7"))),
        event(WatchEvent::Added(obj("c", "8"))),
        event(WatchEvent::Deleted(obj("c", "9"))),
        event(bookmark("9")),
        event(end_bookmark("10")),
        event(WatchEvent::Modified(obj("b", "11"))),
        Step::Hang,
    ]))]);
    let store = Arc::new(RecordingStore::default());
    let r = reflector(&source, &store);
    let rv = r.resource_version_handle();
    run_for(r, SECOND * 30).await;
    assert_eq!(source.queries(), [STREAM_FIRST]);
    let timeout = source.requests()[0].options().timeout_seconds.unwrap();
    assert!((300..=600).contains(&timeout));
    assert_eq!(
        store.calls(),
        [
            Call::Replace(vec!["ns/a".into(), "ns/b".into()], "10".into()),
            Call::Update("ns/b".into()),
            Call::ResourceVersion("11".into()),
        ]
    );
    assert_eq!(rv.get(), "11");
}

#[tokio::test(start_paused = true)]
async fn an_early_close_retries_the_streaming_list() {
    let source = ScriptedSource::streaming(vec![
        Reply::Watch(Ok(vec![
            event(WatchEvent::Added(obj("a", "5"))),
            Step::Wait(SECOND * 2),
        ])),
        // A connection cut counts as a close too.
        Reply::Watch(Ok(vec![
            event(WatchEvent::Added(obj("a", "5"))),
            Step::Fail(Box::new(crate::testing::refused())),
        ])),
        Reply::Watch(Ok(vec![
            event(WatchEvent::Added(obj("a", "5"))),
            event(end_bookmark("10")),
            Step::Hang,
        ])),
    ]);
    let store = Arc::new(RecordingStore::default());
    run_for(reflector(&source, &store), SECOND * 60).await;
    assert_eq!(source.queries(), [STREAM_FIRST, STREAM_FIRST, STREAM_FIRST]);
    assert!(
        gap(&source, 0, 1) >= SECOND * 2 + SECOND * 4 / 5,
        "paced by the backoff"
    );
    assert_eq!(
        store.calls(),
        [Call::Replace(vec!["ns/a".into()], "10".into())],
        "nothing reaches the store before the end bookmark"
    );
}

#[tokio::test(start_paused = true)]
async fn later_streaming_lists_use_the_last_rv_and_an_unusable_rv_retries_at_empty() {
    let source = ScriptedSource::streaming(vec![
        Reply::Watch(Ok(vec![event(end_bookmark("10")), expired_event()])),
        // Relist after backoff: streaming at the last RV, not "0".
        Reply::Watch(Err(too_large())),
        // Retried at once at "".
        Reply::Watch(Ok(vec![event(end_bookmark("20")), Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    run_for(reflector(&source, &store), SECOND * 60).await;
    assert_eq!(
        source.queries(),
        [
            STREAM_FIRST,
            "WATCH resourceVersion=10&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true",
            STREAM_FIRST,
        ]
    );
    assert!(gap(&source, 0, 1) >= SECOND * 4 / 5);
    assert_eq!(gap(&source, 1, 2), std::time::Duration::ZERO);
    assert_eq!(
        store.calls().last(),
        Some(&Call::Replace(vec![], "20".into()))
    );
}

#[tokio::test(start_paused = true)]
async fn a_rejected_streaming_list_falls_back_to_list_and_watch() {
    for rejection in [
        api_error(422, "Invalid"),
        api_error(400, "BadRequest"),
        api_error(403, "Forbidden"),
    ] {
        let source = ScriptedSource::streaming(vec![
            Reply::Watch(Err(rejection)),
            Reply::List(Ok(list("10", &["a"]))),
            Reply::Watch(Ok(vec![Step::Hang])),
        ]);
        let store = Arc::new(RecordingStore::default());
        run_for(reflector(&source, &store), SECOND * 30).await;
        assert_eq!(
            source.queries(),
            [
                STREAM_FIRST,
                "LIST resourceVersion=0&limit=500",
                "WATCH resourceVersion=10&allowWatchBookmarks=true",
            ]
        );
        assert_eq!(gap(&source, 0, 1), std::time::Duration::ZERO);
    }
}

#[tokio::test(start_paused = true)]
async fn a_server_that_never_sends_the_end_bookmark_falls_back_after_a_bounded_wait() {
    let source = ScriptedSource::streaming(vec![
        // Ignores sendInitialEvents: synthetic ADDEDs, a plain bookmark, then silence.
        Reply::Watch(Ok(vec![
            event(WatchEvent::Added(obj("a", "5"))),
            Step::Wait(SECOND * 4),
            event(WatchEvent::Added(obj("b", "6"))),
            Step::Wait(SECOND * 5),
            event(bookmark("7")),
            Step::Hang,
        ])),
        Reply::List(Ok(list("10", &["a", "b"]))),
        Reply::Watch(Ok(vec![expired_event()])),
        // Streaming is not tried again.
        Reply::List(Ok(list("20", &["a", "b"]))),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    let config = Config::default()
        .with_seed(1)
        .with_initial_events_timeout(SECOND * 10);
    let (r, seen) = recording_errors(reflector_with(&source, &store, config));
    run_for(r, SECOND * 60).await;
    assert_eq!(*seen.lock().unwrap(), ["stalled", "expired (event)"]);
    assert_eq!(
        source.queries(),
        [
            STREAM_FIRST,
            "LIST resourceVersion=0&limit=500",
            "WATCH resourceVersion=10&allowWatchBookmarks=true",
            "LIST resourceVersion=10",
            "WATCH resourceVersion=20&allowWatchBookmarks=true",
        ]
    );
    // 4 s to the last object event, then 10 s without one (the plain bookmark does not count).
    assert_eq!(gap(&source, 0, 1), SECOND * 14);
}

#[tokio::test(start_paused = true)]
async fn streaming_is_skipped_when_unsupported_or_disabled() {
    let unsupported = ScriptedSource::new(vec![Reply::List(Ok(list("10", &[])))]);
    let store = Arc::new(RecordingStore::default());
    run_for(reflector(&unsupported, &store), SECOND).await;
    assert_eq!(unsupported.queries()[0], "LIST resourceVersion=0&limit=500");

    let disabled = ScriptedSource::streaming(vec![Reply::List(Ok(list("10", &[])))]);
    let config = Config::default().with_seed(1).with_streaming_list(false);
    run_for(reflector_with(&disabled, &store, config), SECOND).await;
    assert_eq!(disabled.queries()[0], "LIST resourceVersion=0&limit=500");
}

#[tokio::test(start_paused = true)]
async fn an_empty_streaming_list_closed_at_once_is_a_short_watch_and_falls_back() {
    let source = ScriptedSource::streaming(vec![
        Reply::Watch(Ok(vec![])),
        Reply::List(Ok(list("10", &[]))),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    let (r, seen) = recording_errors(reflector(&source, &store));
    run_for(r, SECOND * 10).await;
    assert_eq!(*seen.lock().unwrap(), ["closed early"]);
    assert_eq!(
        source.queries(),
        [
            STREAM_FIRST,
            "LIST resourceVersion=0&limit=500",
            "WATCH resourceVersion=10&allowWatchBookmarks=true",
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn an_unusable_rv_at_empty_falls_back_instead_of_looping() {
    let source = ScriptedSource::streaming(vec![
        Reply::Watch(Ok(vec![expired_event()])),
        Reply::Watch(Ok(vec![expired_event()])),
        Reply::List(Ok(list("10", &[]))),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    let (r, seen) = recording_errors(reflector(&source, &store));
    run_for(r, SECOND * 10).await;
    assert_eq!(
        *seen.lock().unwrap(),
        ["expired (event)", "expired (event)"]
    );
    assert_eq!(
        source.queries(),
        [
            STREAM_FIRST,
            STREAM_FIRST,
            "LIST limit=500",
            "WATCH resourceVersion=10&allowWatchBookmarks=true",
        ]
    );
}
