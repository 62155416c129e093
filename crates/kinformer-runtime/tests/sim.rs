//! The controller's guarantees against the simulator: every primary reconciled, owned objects
//! mapped to their controller owner, failures retried with backoff until they succeed, one
//! reconcile of an object at a time with exactly one more for changes made meanwhile,
//! bounded concurrency, requeues, and deleted objects left alone.

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kinformer_core::StoreRead as _;
use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
use kinformer_rest::Client;
use kinformer_runtime::{Action, Controller, ControllerConfig, Error, ObjectRef, ResultStream};
use kinformer_sim::{ObjectOp, OpKind, Sim, SimHandle};
use serde_json::json;
use tokio::sync::Notify;

#[derive(Debug, thiserror::Error)]
#[error("try again")]
struct TryAgain;

/// How long a test waits for what must happen.
const PATIENCE: Duration = Duration::from_secs(20);

async fn configmap(sim: &SimHandle, op: OpKind, name: &str, data: &str) {
    let cm = json!({"metadata": {"name": name, "namespace": "default"}, "data": {"v": data}});
    sim.apply(ObjectOp::new(op, "configmaps", cm))
        .await
        .unwrap();
}

fn factory(sim: &SimHandle) -> SharedInformerFactory {
    SharedInformerFactory::new(Client::new(sim.service()), FactoryConfig::default())
}

fn config(concurrency: usize) -> ControllerConfig {
    ControllerConfig::default()
        .with_name("test")
        .with_concurrency(NonZeroUsize::new(concurrency).unwrap())
}

/// Reads outcomes until `done` holds for the successes seen so far (by name).
async fn until<E: std::fmt::Debug>(
    results: &mut ResultStream<E>,
    seen: &mut HashMap<String, usize>,
    done: impl Fn(&HashMap<String, usize>) -> bool,
) {
    tokio::time::timeout(PATIENCE, async {
        while !done(seen) {
            match results.next().await.expect("the controller stopped") {
                Ok((object, _)) => *seen.entry(object.name().to_owned()).or_default() += 1,
                Err(Error::Reconcile { .. }) => {}
                Err(other) => panic!("{other:?}"),
            }
        }
    })
    .await
    .expect("in time");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_primary_is_reconciled_and_owned_objects_map_to_their_owner() {
    let sim = Sim::builder().start().await.unwrap();
    for name in ["a", "b", "c"] {
        configmap(&sim, OpKind::Create, name, "1").await;
    }
    let owned = json!({"metadata": {"name": "s", "namespace": "default", "ownerReferences": [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "b", "uid": "u-b", "controller": true},
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "u-c"}
    ]}});
    sim.apply(ObjectOp::new(OpKind::Create, "secrets", owned))
        .await
        .unwrap();
    let factory = factory(&sim);
    let secrets = factory.informer_for::<Secret>();
    let controller =
        Controller::for_type(factory.informer_for::<ConfigMap>(), config(2)).owns(&secrets);
    // Not in the cache: never reconciled.
    controller.enqueue(ObjectRef::new(Some("default"), "ghost"));
    factory.start();
    let reconcile =
        |_: Arc<ConfigMap>, _: Arc<()>| async { Ok::<_, TryAgain>(Action::await_change()) };
    let mut results = controller.stream(reconcile, |_, _, _| Action::backoff(), Arc::new(()));
    let mut seen = HashMap::new();
    until(&mut results, &mut seen, |s| {
        ["a", "b", "c"].iter().all(|n| s.contains_key(*n))
    })
    .await;
    assert!(!seen.contains_key("ghost"));

    // A change to the owned secret reconciles its controller owner, not the other owner.
    let before = seen.clone();
    let patch = json!({"metadata": {"name": "s", "namespace": "default", "labels": {"x": "1"}}});
    sim.apply(ObjectOp::new(OpKind::Patch, "secrets", patch))
        .await
        .unwrap();
    until(&mut results, &mut seen, |s| s["b"] > before["b"]).await;
    assert_eq!(seen["c"], before["c"], "{seen:?}");
    drop(results);
    factory.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_are_retried_until_they_succeed() {
    let sim = Sim::builder().start().await.unwrap();
    configmap(&sim, OpKind::Create, "flaky", "1").await;
    let factory = factory(&sim);
    let controller = Controller::for_type(factory.informer_for::<ConfigMap>(), config(1));
    factory.start();
    let attempts = Arc::new(AtomicUsize::new(0));
    let reconcile = |_: Arc<ConfigMap>, attempts: Arc<AtomicUsize>| async move {
        if attempts.fetch_add(1, Ordering::SeqCst) < 3 {
            Err(TryAgain)
        } else {
            Ok(Action::await_change())
        }
    };
    let mut results = controller.stream(reconcile, |_, _, _| Action::backoff(), attempts.clone());
    let mut outcomes = Vec::new();
    while outcomes.len() < 4 {
        let outcome = tokio::time::timeout(PATIENCE, results.next())
            .await
            .unwrap()
            .unwrap();
        outcomes.push(outcome.is_ok());
    }
    assert_eq!(outcomes, [false, false, false, true]);
    assert_eq!(attempts.load(Ordering::SeqCst), 4);
    drop(results);
    factory.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_during_a_reconcile_queue_exactly_one_more() {
    let sim = Sim::builder().start().await.unwrap();
    configmap(&sim, OpKind::Create, "busy", "0").await;
    let factory = factory(&sim);
    let informer = factory.informer_for::<ConfigMap>();
    let controller = Controller::for_type(informer.clone(), config(4));
    factory.start();

    struct Ctx {
        calls: AtomicUsize,
        running: AtomicUsize,
        overlapped: AtomicUsize,
        entered: Notify,
        release: Notify,
        seen_data: Mutex<Vec<String>>,
    }
    let ctx = Arc::new(Ctx {
        calls: AtomicUsize::new(0),
        running: AtomicUsize::new(0),
        overlapped: AtomicUsize::new(0),
        entered: Notify::new(),
        release: Notify::new(),
        seen_data: Mutex::default(),
    });
    let reconcile = |cm: Arc<ConfigMap>, ctx: Arc<Ctx>| async move {
        if ctx.running.fetch_add(1, Ordering::SeqCst) > 0 {
            ctx.overlapped.fetch_add(1, Ordering::SeqCst);
        }
        let data = cm
            .data
            .as_ref()
            .and_then(|d| d.get("v"))
            .cloned()
            .unwrap_or_default();
        ctx.seen_data.lock().unwrap().push(data);
        if ctx.calls.fetch_add(1, Ordering::SeqCst) == 0 {
            ctx.entered.notify_one();
            ctx.release.notified().await;
        }
        ctx.running.fetch_sub(1, Ordering::SeqCst);
        Ok::<_, TryAgain>(Action::await_change())
    };
    let mut results = controller.stream(reconcile, |_, _, _| Action::backoff(), ctx.clone());
    ctx.entered.notified().await;
    // Three changes while the first reconcile runs; the cache must hold the last before the
    // first reconcile ends, so the one more reconcile sees it.
    for data in ["1", "2", "3"] {
        configmap(&sim, OpKind::Update, "busy", data).await;
    }
    tokio::time::timeout(PATIENCE, async {
        while informer.indexer().list()[0].data.as_ref().unwrap()["v"] != "3" {
            tokio::task::yield_now().await;
        }
    })
    .await
    .unwrap();
    // The controller's handler delivers from its own buffer, after the cache: give it time to
    // hand the three updates to the queue while the first reconcile still runs.
    tokio::time::sleep(Duration::from_millis(200)).await;
    ctx.release.notify_one();
    for _ in 0..2 {
        tokio::time::timeout(PATIENCE, results.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
    }
    // Nothing more comes: the changes were one reconcile.
    let more = tokio::time::timeout(Duration::from_millis(300), results.next()).await;
    assert!(more.is_err(), "a third reconcile: {more:?}");
    assert_eq!(ctx.calls.load(Ordering::SeqCst), 2);
    assert_eq!(ctx.overlapped.load(Ordering::SeqCst), 0);
    assert_eq!(*ctx.seen_data.lock().unwrap(), ["0", "3"]);
    drop(results);
    factory.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrency_is_bounded_and_requeues_come_back() {
    let sim = Sim::builder().configmaps(12).seed(2).start().await.unwrap();
    let factory = factory(&sim);
    let controller = Controller::for_type(factory.informer_for::<ConfigMap>(), config(3));
    factory.start();
    let running = Arc::new((AtomicUsize::new(0), AtomicUsize::new(0)));
    let reconcile = |_: Arc<ConfigMap>, running: Arc<(AtomicUsize, AtomicUsize)>| async move {
        let now = running.0.fetch_add(1, Ordering::SeqCst) + 1;
        running.1.fetch_max(now, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(20)).await;
        running.0.fetch_sub(1, Ordering::SeqCst);
        Ok::<_, TryAgain>(Action::requeue(Duration::from_millis(50)))
    };
    let mut results = controller.stream(reconcile, |_, _, _| Action::backoff(), running.clone());
    let mut seen = HashMap::new();
    // Every object twice: once for its add, once more for its requeue.
    until(&mut results, &mut seen, |s| {
        s.len() == 12 && s.values().all(|n| *n >= 2)
    })
    .await;
    let most = running.1.load(Ordering::SeqCst);
    assert!(
        most <= 3 && most > 1,
        "at most 3 at once, and more than one: {most}"
    );
    drop(results);
    factory.shutdown().await;
}
