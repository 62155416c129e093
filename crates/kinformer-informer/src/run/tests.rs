//! Tests of the informer loop over a scripted queue: sync, late handlers, transforms, shutdown.

use std::sync::Mutex;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_core::{DeletedState, Store, StoreRead, Transform};
use kinformer_indexer::Indexer;
use kinformer_selector::LabelSelector;
use tokio::sync::{Notify, mpsc};

use super::super::handler::HandlerFns;
use super::super::inner::{Pipeline, RunParts};
use super::super::shared::SharedIndexInformer;
use super::super::testing::{ScriptedQueue, configmap, settle, spawn_run};
use super::super::transform::TransformingStore;
use super::*;
use crate::error::Error;

/// What the scripted "reflector" writes.
enum Step {
    Replace(Vec<Arc<ConfigMap>>),
    Add(Arc<ConfigMap>),
    Update(Arc<ConfigMap>),
    Delete(Arc<ConfigMap>),
}

fn scripted_informer() -> (SharedIndexInformer<ConfigMap>, mpsc::UnboundedSender<Step>) {
    let (tx, mut rx) = mpsc::unbounded_channel::<Step>();
    let pipeline: Pipeline<ConfigMap> = Box::new(move |parts: RunParts<ConfigMap>| {
        Box::pin(async move {
            assert!(parts.watch_error_handler.is_some() || parts.transform.is_none());
            let queue = Arc::new(ScriptedQueue::new());
            let written = Arc::new(Notify::new());
            let store = TransformingStore::new(
                Arc::clone(&queue),
                parts.transform,
                false,
                Arc::clone(&written),
            );
            let reflector = async move {
                while let Some(step) = rx.recv().await {
                    match step {
                        // As a reflector does: each listed object is admitted as it arrives.
                        Step::Replace(list) => store.replace_admitted(
                            list.into_iter().map(|o| store.admit(o)).collect(),
                            "1",
                        ),
                        Step::Add(o) => store.add(o),
                        Step::Update(o) => store.update(o),
                        Step::Delete(o) => store.delete(o),
                    }
                    .unwrap();
                }
            };
            run_loop(
                parts.inner,
                queue,
                written,
                Box::pin(reflector),
                parts.stop,
                None,
            )
            .await;
        })
    });
    let informer = SharedIndexInformer::from_parts(
        Indexer::default(),
        Duration::ZERO,
        Arc::from("configmaps"),
        None,
        pipeline,
    );
    (informer, tx)
}

fn cm(name: &str, rv: &str) -> Arc<ConfigMap> {
    let mut cm = configmap(name, rv);
    cm.metadata.labels = Some([("app".to_owned(), name.to_owned())].into());
    Arc::new(cm)
}

fn recorder() -> (Arc<Mutex<Vec<String>>>, HandlerFns<ConfigMap>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let (a, u, d) = (log.clone(), log.clone(), log.clone());
    let handler = HandlerFns::new()
        .add_fn(move |o: &Arc<ConfigMap>, initial| {
            a.lock()
                .unwrap()
                .push(format!("add {} {initial}", o.name()));
        })
        .update_fn(move |_, new: &Arc<ConfigMap>| {
            let rv = new.resource_version().unwrap_or("");
            u.lock()
                .unwrap()
                .push(format!("update {}@{rv}", new.name()));
        })
        .delete_fn(move |s: &DeletedState<ConfigMap>| {
            d.lock()
                .unwrap()
                .push(format!("delete {}", s.object().name()));
        });
    (log, handler)
}

#[tokio::test(start_paused = true)]
async fn syncs_after_the_initial_list_and_notifies_in_order() {
    let (informer, script) = scripted_informer();
    let (log, handler) = recorder();
    let reg = informer.add_event_handler(handler).unwrap();
    let running = spawn_run(&informer);
    assert!(!informer.has_synced());
    script
        .send(Step::Replace(vec![cm("a", "1"), cm("b", "1")]))
        .unwrap_or_else(|_| unreachable!());
    informer.wait_for_cache_sync().await.unwrap();
    reg.wait_synced().await.unwrap();
    script.send(Step::Update(cm("a", "2"))).ok();
    script.send(Step::Delete(cm("b", "3"))).ok();
    script.send(Step::Add(cm("c", "4"))).ok();
    settle().await;
    assert_eq!(
        *log.lock().unwrap(),
        [
            "add a true",
            "add b true",
            "update a@2",
            "delete b",
            "add c false"
        ]
    );
    let lister = informer.lister();
    assert_eq!(
        lister.list(&LabelSelector::parse("app=c").unwrap()).len(),
        1
    );
    assert!(lister.namespaced("ns").get("b").unwrap_err().is_not_found());
    informer.shutdown();
    running.await.unwrap().unwrap();
    assert!(informer.is_stopped());
    assert!(reg.is_removed());
}

#[tokio::test(start_paused = true)]
async fn an_empty_initial_list_syncs_without_any_item() {
    let (informer, script) = scripted_informer();
    let running = spawn_run(&informer);
    script.send(Step::Replace(Vec::new())).ok();
    informer.wait_for_cache_sync().await.unwrap();
    informer.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_late_handler_gets_the_cache_then_live_changes() {
    let (informer, script) = scripted_informer();
    let running = spawn_run(&informer);
    script
        .send(Step::Replace(vec![cm("a", "1"), cm("b", "1")]))
        .ok();
    informer.wait_for_cache_sync().await.unwrap();
    let (log, handler) = recorder();
    let reg = informer.add_event_handler(handler).unwrap();
    reg.wait_synced().await.unwrap();
    script.send(Step::Add(cm("c", "2"))).ok();
    settle().await;
    let mut seen = log.lock().unwrap().clone();
    seen[..2].sort();
    assert_eq!(seen, ["add a true", "add b true", "add c false"]);
    informer.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test(start_paused = true)]
async fn transforms_apply_before_the_cache_and_only_before_start() {
    let (informer, script) = scripted_informer();
    informer
        .set_transform(Transform::new(|cm: &mut ConfigMap| {
            cm.data = Some([("transformed".to_owned(), "yes".to_owned())].into());
        }))
        .unwrap();
    informer.set_watch_error_handler(|_| {}).unwrap();
    let running = spawn_run(&informer);
    settle().await;
    assert!(matches!(
        informer.set_transform(Transform::new(|_: &mut ConfigMap| {})),
        Err(Error::AlreadyStarted)
    ));
    assert!(matches!(
        informer.set_watch_error_handler(|_| {}),
        Err(Error::AlreadyStarted)
    ));
    assert!(matches!(informer.run().await, Err(Error::AlreadyStarted)));
    script.send(Step::Replace(vec![cm("a", "1")])).ok();
    informer.wait_for_cache_sync().await.unwrap();
    let cached = informer.indexer().get_by_key("ns/a").unwrap();
    assert_eq!(cached.data.as_ref().unwrap()["transformed"], "yes");
    informer.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test(start_paused = true)]
async fn shutdown_before_sync_and_before_run() {
    let (informer, _script) = scripted_informer();
    let running = spawn_run(&informer);
    let waiter = tokio::spawn({
        let informer = informer.clone();
        async move { informer.wait_for_cache_sync().await }
    });
    settle().await;
    informer.shutdown();
    running.await.unwrap().unwrap();
    assert!(
        matches!(waiter.await.unwrap(), Err(Error::Stopped)),
        "stopped before syncing"
    );
    let (_, handler) = recorder();
    assert!(matches!(
        informer.add_event_handler(handler),
        Err(Error::Stopped)
    ));
    assert!(matches!(informer.add_indexers([]), Err(Error::Stopped)));

    let (never_ran, _script) = scripted_informer();
    never_ran.shutdown();
    assert!(never_ran.is_stopped());
    assert!(matches!(never_ran.run().await, Err(Error::Stopped)));
    assert!(never_ran.wait_for_cache_sync().await.is_err());
}

#[tokio::test(start_paused = true)]
async fn dropping_the_run_future_stops_handlers() {
    let (informer, script) = scripted_informer();
    let (_log, handler) = recorder();
    let reg = informer.add_event_handler(handler).unwrap();
    let running = spawn_run(&informer);
    script.send(Step::Replace(vec![cm("a", "1")])).ok();
    informer.wait_for_cache_sync().await.unwrap();
    running.abort();
    assert!(running.await.unwrap_err().is_cancelled());
    assert!(reg.is_removed());
    assert!(informer.is_stopped());
    assert_eq!(informer.last_sync_resource_version(), "");
}

#[tokio::test(start_paused = true)]
async fn shutdown_event_handler_waits_and_others_continue() {
    let (informer, script) = scripted_informer();
    let (kept_log, kept) = recorder();
    let (gone_log, gone) = recorder();
    informer.add_event_handler(kept).unwrap();
    let gone_reg = informer.add_event_handler(gone).unwrap();
    let running = spawn_run(&informer);
    script.send(Step::Replace(vec![cm("a", "1")])).ok();
    informer.wait_for_cache_sync().await.unwrap();
    settle().await;
    informer.shutdown_event_handler(&gone_reg).await;
    informer.remove_event_handler(&gone_reg);
    script.send(Step::Add(cm("b", "2"))).ok();
    settle().await;
    assert_eq!(*gone_log.lock().unwrap(), ["add a true"]);
    assert_eq!(*kept_log.lock().unwrap(), ["add a true", "add b false"]);
    informer.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_replaced_object_is_freed_once_its_handlers_are_done_with_it() {
    let (informer, script) = scripted_informer();
    let (log, handler) = recorder();
    informer.add_event_handler(handler).unwrap();
    let running = spawn_run(&informer);
    script.send(Step::Replace(vec![cm("a", "1")])).ok();
    informer.wait_for_cache_sync().await.unwrap();
    let old = Arc::downgrade(&informer.indexer().get_by_key("ns/a").unwrap());
    script.send(Step::Update(cm("a", "2"))).ok();
    settle().await;
    assert_eq!(*log.lock().unwrap(), ["add a true", "update a@2"]);
    // The handler task hands the update back to the informer's task, which drops it there:
    // nothing keeps the old object alive.
    assert!(old.upgrade().is_none(), "the old object is still held");
    informer.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_panicking_transform_ends_the_run_and_stops_the_handlers() {
    let (informer, script) = scripted_informer();
    informer
        .set_transform(Transform::new(|cm: &mut ConfigMap| {
            assert_ne!(cm.metadata.name.as_deref(), Some("boom"), "transform fails");
        }))
        .unwrap();
    informer.set_watch_error_handler(|_| {}).unwrap();
    let (_log, handler) = recorder();
    let reg = informer.add_event_handler(handler).unwrap();
    let running = spawn_run(&informer);
    script.send(Step::Replace(vec![cm("a", "1")])).ok();
    informer.wait_for_cache_sync().await.unwrap();
    script.send(Step::Add(cm("boom", "2"))).ok();
    // The reflector runs in the informer's task, so its panic is the run's, not a detached
    // task's that would leave the cache silently stale.
    assert!(running.await.unwrap_err().is_panic());
    assert!(reg.is_removed());
    assert!(informer.is_stopped());
}

/// client-go's `WaitForCacheSync` returns false once its stop channel closes; an informer whose
/// pipeline failed before its loop started has stopped too, so the wait must end, not hang.
#[tokio::test(start_paused = true)]
async fn a_pipeline_that_fails_before_its_loop_ends_the_wait_for_sync() {
    let pipeline: Pipeline<ConfigMap> = Box::new(|_parts: RunParts<ConfigMap>| {
        Box::pin(async { panic!("the pipeline could not be built") })
    });
    let informer = SharedIndexInformer::from_parts(
        Indexer::default(),
        Duration::ZERO,
        Arc::from("configmaps"),
        None,
        pipeline,
    );
    let (_log, handler) = recorder();
    let reg = informer.add_event_handler(handler).unwrap();
    let waiting = tokio::spawn({
        let informer = informer.clone();
        async move { informer.wait_for_cache_sync().await }
    });
    let running = spawn_run(&informer);
    assert!(running.await.unwrap_err().is_panic());
    assert!(waiting.await.unwrap().is_err(), "stopped, never synced");
    assert!(reg.wait_synced().await.is_err());
    assert!(informer.is_stopped());
}
