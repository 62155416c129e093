//! List rules: resourceVersion and limit choice, the immediate retry at `""`.

use std::sync::Arc;
use std::time::Duration;

use kinformer_core::WatchEvent;

use super::{SECOND, gap, recording_errors, reflector, run_for};
use crate::testing::{
    Call, RecordingStore, Reply, ScriptedSource, Step, api_error, list, obj, too_large,
};

fn expired_event() -> Step {
    Step::Event(WatchEvent::Error(Box::new(crate::testing::status(
        410, "Expired",
    ))))
}

#[tokio::test(start_paused = true)]
async fn first_list_is_rv0_limit500_then_watch_at_the_list_rv() {
    let source = ScriptedSource::new(vec![
        Reply::List(Ok(list("10", &["a", "b"]))),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    let r = reflector(&source, &store);
    let rv = r.resource_version_handle();
    run_for(r, Duration::from_secs(60)).await;
    assert_eq!(
        source.queries(),
        [
            "LIST resourceVersion=0&limit=500",
            "WATCH resourceVersion=10&allowWatchBookmarks=true",
        ]
    );
    assert_eq!(gap(&source, 0, 1), Duration::ZERO);
    assert_eq!(
        store.calls(),
        [Call::Replace(
            vec!["ns/a".into(), "ns/b".into()],
            "10".into()
        )],
        "the list path replaces without calling the resourceVersion updater"
    );
    assert_eq!(rv.get(), "10");
}

#[tokio::test(start_paused = true)]
async fn relist_is_at_the_last_synced_rv_without_limit_after_backoff() {
    let source = ScriptedSource::new(vec![
        Reply::List(Ok(list("10", &["a"]))),
        Reply::Watch(Ok(vec![
            Step::Event(WatchEvent::Modified(obj("a", "11"))),
            expired_event(),
        ])),
        Reply::List(Ok(list("12", &["a"]))),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    run_for(reflector(&source, &store), Duration::from_secs(60)).await;
    assert_eq!(
        source.queries(),
        [
            "LIST resourceVersion=0&limit=500",
            "WATCH resourceVersion=10&allowWatchBookmarks=true",
            "LIST resourceVersion=11",
            "WATCH resourceVersion=12&allowWatchBookmarks=true",
        ]
    );
    let backoff = gap(&source, 1, 2);
    assert!(backoff >= Duration::from_millis(800) && backoff < Duration::from_millis(1600));
    assert_eq!(gap(&source, 2, 3), Duration::ZERO);
}

#[tokio::test(start_paused = true)]
async fn relist_keeps_limit_500_when_the_first_rv0_list_was_paginated() {
    let source = ScriptedSource::new(vec![
        Reply::List(Ok(list("10", &["a"]).with_continue(Some("t1".into())))),
        Reply::List(Ok(list("10", &["b"]))),
        Reply::Watch(Ok(vec![expired_event()])),
        Reply::List(Ok(list("10", &["a", "b"]))),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    run_for(reflector(&source, &store), Duration::from_secs(60)).await;
    assert_eq!(
        source.queries(),
        [
            "LIST resourceVersion=0&limit=500",
            "LIST continue=t1&limit=500",
            "WATCH resourceVersion=10&allowWatchBookmarks=true",
            "LIST resourceVersion=10&limit=500",
            "WATCH resourceVersion=10&allowWatchBookmarks=true",
        ]
    );
    assert_eq!(
        store.calls()[0],
        Call::Replace(vec!["ns/a".into(), "ns/b".into()], "10".into())
    );
}

/// Pages are admitted as they arrive; when a continue token expires and the pager falls back to
/// one full list, what earlier pages brought is dropped, so the replace holds each object once.
#[tokio::test(start_paused = true)]
async fn an_expired_continue_token_replaces_with_the_full_list_only() {
    let source = ScriptedSource::new(vec![
        Reply::List(Ok(list("10", &["a"]).with_continue(Some("t1".into())))),
        Reply::List(Err(api_error(410, "Expired"))),
        Reply::List(Ok(list("12", &["a", "b", "c"]))),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    run_for(reflector(&source, &store), Duration::from_secs(60)).await;
    assert_eq!(
        source.queries(),
        [
            "LIST resourceVersion=0&limit=500",
            "LIST continue=t1&limit=500",
            "LIST resourceVersion=0",
            "WATCH resourceVersion=12&allowWatchBookmarks=true",
        ]
    );
    assert_eq!(
        store.calls(),
        [Call::Replace(
            vec!["ns/a".into(), "ns/b".into(), "ns/c".into()],
            "12".into()
        )]
    );
}

#[tokio::test(start_paused = true)]
async fn expired_or_too_large_list_retries_at_once_with_empty_rv() {
    let source = ScriptedSource::new(vec![
        // Initial list: expired at "0", retried at "" with the same page size.
        Reply::List(Err(api_error(410, "Expired"))),
        Reply::List(Ok(list("10", &["a"]))),
        Reply::Watch(Ok(vec![expired_event()])),
        // Relist at the last RV (unpaginated): too large, retried at "" unpaginated.
        Reply::List(Err(too_large())),
        Reply::List(Ok(list("20", &["a"]))),
        Reply::Watch(Ok(vec![expired_event()])),
        // The flag is cleared by the successful list: back to the last RV.
        Reply::List(Ok(list("30", &["a"]))),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    let (r, seen) = recording_errors(reflector(&source, &store));
    run_for(r, Duration::from_secs(60)).await;
    assert_eq!(
        source.queries(),
        [
            "LIST resourceVersion=0&limit=500",
            "LIST limit=500",
            "WATCH resourceVersion=10&allowWatchBookmarks=true",
            "LIST resourceVersion=10",
            "LIST ",
            "WATCH resourceVersion=20&allowWatchBookmarks=true",
            "LIST resourceVersion=20",
            "WATCH resourceVersion=30&allowWatchBookmarks=true",
        ]
    );
    assert_eq!(gap(&source, 0, 1), Duration::ZERO);
    assert_eq!(gap(&source, 3, 4), Duration::ZERO);
    assert!(gap(&source, 2, 3) >= SECOND * 4 / 5);
    assert_eq!(
        *seen.lock().unwrap(),
        ["expired (event)", "expired (event)"],
        "the watches' expiry is reported; a recovered list is not an error"
    );
}

#[tokio::test(start_paused = true)]
async fn a_failed_list_goes_to_the_handler_and_backs_off() {
    let source = ScriptedSource::new(vec![
        Reply::List(Err(api_error(500, "InternalError"))),
        Reply::List(Err(api_error(410, "Expired"))),
        Reply::List(Err(api_error(410, "Expired"))),
        Reply::List(Ok(list("10", &[]))),
        Reply::Watch(Ok(vec![Step::Hang])),
    ]);
    let store = Arc::new(RecordingStore::default());
    let errors = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&errors);
    let r = reflector(&source, &store).watch_error_handler(move |e| {
        seen.lock()
            .unwrap()
            .push(matches!(e, crate::Error::List(_)))
    });
    run_for(r, Duration::from_secs(60)).await;
    assert_eq!(
        source.queries(),
        [
            "LIST resourceVersion=0&limit=500",
            "LIST resourceVersion=0&limit=500",
            "LIST limit=500",
            "LIST limit=500",
            "WATCH resourceVersion=10&allowWatchBookmarks=true",
        ]
    );
    assert_eq!(*errors.lock().unwrap(), [true, true]);
    assert!(gap(&source, 0, 1) >= SECOND * 4 / 5);
    assert_eq!(gap(&source, 1, 2), Duration::ZERO);
    assert!(gap(&source, 2, 3) >= SECOND * 8 / 5, "second delay grows");
}
