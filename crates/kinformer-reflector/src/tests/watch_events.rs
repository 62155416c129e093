//! Watch rules: how events and bookmarks reach the store and move the resourceVersion.

use std::sync::{Arc, Mutex};

use kinformer_core::{DynamicObject, TypeMeta, WatchEvent};

use super::{SECOND, event, listed_then, reflector, run_for};
use crate::testing::{Call, RecordingStore, Reply, ScriptedSource, Step, bookmark, list, obj};
use crate::{Config, Counters, expect_kind};

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
        Config::default().with_seed(1),
    );
    reflector.run_until(tokio::time::sleep(SECOND * 3)).await;
    assert_eq!(*store.0.lock().unwrap(), vec![1, 1, 1, 1, 1]);
}
