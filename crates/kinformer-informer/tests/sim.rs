//! Informers against the in-process simulator: order under churn, late and slow handlers,
//! per-handler resync, watch drops.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{DeletedState, Object, StoreRead, object_key};
use kinformer_listwatch::ListWatch;
use kinformer_rest::Client;
use kinformer_sim::{Churn, DropMode, Sim, SimHandle};

mod common;

use common::{spawn_run, wait_until};
use kinformer_informer::{Config, EventHandler, QueueKind, Registration, SharedIndexInformer};

/// Rebuilds the state from notifications and checks that each object's resourceVersions only
/// go forward.
#[derive(Default)]
struct Mirror {
    state: Mutex<BTreeMap<String, u64>>,
    out_of_order: AtomicUsize,
    resyncs: AtomicUsize,
}

fn rv(pod: &Pod) -> u64 {
    pod.resource_version()
        .and_then(|rv| rv.parse().ok())
        .unwrap_or(0)
}

impl EventHandler<Pod> for Mirror {
    fn on_add(&self, obj: &Arc<Pod>, _: bool) {
        self.state
            .lock()
            .unwrap()
            .insert(object_key(&**obj), rv(obj));
    }
    fn on_update(&self, old: &Arc<Pod>, new: &Arc<Pod>) {
        if rv(old) == rv(new) {
            self.resyncs.fetch_add(1, Ordering::SeqCst);
        }
        let mut state = self.state.lock().unwrap();
        let previous = state.insert(object_key(&**new), rv(new));
        if previous.is_some_and(|p| p > rv(new)) {
            self.out_of_order.fetch_add(1, Ordering::SeqCst);
        }
    }
    fn on_delete(&self, state: &DeletedState<Pod>) {
        let key = match state {
            DeletedState::Unknown { key, .. } => key.clone(),
            _ => object_key(&**state.object()),
        };
        self.state.lock().unwrap().remove(&key);
    }
}

async fn sim(pods: usize) -> SimHandle {
    Sim::builder()
        .pods(pods)
        .namespaces(4)
        .seed(11)
        .start()
        .await
        .unwrap()
}

fn informer(sim: &SimHandle, config: Config<Pod>) -> SharedIndexInformer<Pod> {
    let source = ListWatch::<Pod, _>::for_type(Client::new(sim.service()));
    SharedIndexInformer::new(source, config.with_name("pods")).unwrap()
}

async fn truth(sim: &SimHandle) -> BTreeMap<String, u64> {
    let versions = sim.versions("pods").await.unwrap();
    versions
        .into_iter()
        .map(|(key, rv)| (key, rv.parse().unwrap()))
        .collect()
}

fn cached(informer: &SharedIndexInformer<Pod>) -> BTreeMap<String, u64> {
    informer
        .indexer()
        .list()
        .iter()
        .map(|p| (object_key(&**p), rv(p)))
        .collect()
}

/// Waits (bounded) until the cache and every mirror equal the simulator's state.
async fn converge(sim: &SimHandle, informer: &SharedIndexInformer<Pod>, mirrors: &[&Mirror]) {
    let expected = truth(sim).await;
    for _ in 0..400 {
        let done = cached(informer) == expected
            && mirrors.iter().all(|m| *m.state.lock().unwrap() == expected);
        if done {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(cached(informer), expected, "cache never converged");
    for m in mirrors {
        assert_eq!(
            *m.state.lock().unwrap(),
            expected,
            "a handler never converged"
        );
    }
}

async fn wait_churn(sim: &SimHandle, ops: u64) {
    for _ in 0..400 {
        if sim.churn_status().await.done >= ops {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("churn did not finish");
}

async fn churn_then_converge(queue: QueueKind) {
    let sim = sim(150).await;
    let informer = informer(&sim, Config::default().with_queue(queue));
    let early = Arc::new(Mirror::default());
    let reg = informer.add_event_handler(Arc::clone(&early)).unwrap();
    let running = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();
    reg.wait_synced().await.unwrap();
    sim.churn_start(Churn::new(2000.0).count(600).seed(3))
        .await
        .unwrap();
    // A handler added in the middle of the churn gets the cache, then every later change.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let late = Arc::new(Mirror::default());
    let late_reg = informer.add_event_handler(Arc::clone(&late)).unwrap();
    late_reg.wait_synced().await.unwrap();
    // Watches break mid-churn: the informer relists or resumes and still converges.
    sim.drop_watches(DropMode::Abrupt).await;
    wait_churn(&sim, 600).await;
    converge(&sim, &informer, &[&early, &late]).await;
    assert_eq!(early.out_of_order.load(Ordering::SeqCst), 0);
    assert_eq!(late.out_of_order.load(Ordering::SeqCst), 0);
    informer.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handlers_follow_churn_in_order_with_delta_fifo() {
    churn_then_converge(QueueKind::DeltaFifo).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handlers_follow_churn_in_order_with_the_in_order_queue() {
    churn_then_converge(QueueKind::RealFifo).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resync_reaches_only_handlers_that_asked() {
    let sim = sim(20).await;
    let informer = informer(
        &sim,
        Config::default().with_resync_period(Duration::from_secs(1)),
    );
    let resyncing = Arc::new(Mirror::default());
    let quiet = Arc::new(Mirror::default());
    informer.add_event_handler(Arc::clone(&resyncing)).unwrap();
    informer
        .add_event_handler_with_resync(Arc::clone(&quiet), Duration::ZERO)
        .unwrap();
    let running = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();
    // Two full resyncs of the 20 pods reach the handler that asked, and none the other.
    let resynced = wait_until(Duration::from_secs(10), || {
        resyncing.resyncs.load(Ordering::SeqCst) >= 40
    })
    .await;
    assert!(
        resynced,
        "{} resyncs",
        resyncing.resyncs.load(Ordering::SeqCst)
    );
    assert_eq!(quiet.resyncs.load(Ordering::SeqCst), 0);
    informer.shutdown();
    running.await.unwrap().unwrap();
}

struct Blocked {
    gate: Mutex<std::sync::mpsc::Receiver<()>>,
}

impl EventHandler<Pod> for Blocked {
    fn on_add(&self, _: &Arc<Pod>, _: bool) {
        // Holds this handler's task until the test lets go (or drops the sender).
        let _released = self.gate.lock().unwrap().recv();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stuck_handler_delays_neither_the_cache_nor_other_handlers() {
    let sim = sim(50).await;
    let informer = informer(&sim, Config::default());
    let (release, gate) = std::sync::mpsc::channel();
    let stuck: Registration = informer
        .add_event_handler(Blocked {
            gate: Mutex::new(gate),
        })
        .unwrap();
    let mirror = Arc::new(Mirror::default());
    let fine = informer.add_event_handler(Arc::clone(&mirror)).unwrap();
    let running = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();
    fine.wait_synced().await.unwrap();
    assert_eq!(mirror.state.lock().unwrap().len(), 50);
    assert!(!stuck.has_synced());
    assert!(stuck.pending() >= 49, "its backlog waits in its own buffer");
    drop(release);
    stuck.wait_synced().await.unwrap();
    informer.shutdown();
    running.await.unwrap().unwrap();
}

/// Records deletes, and whether each was a tombstone.
#[derive(Default)]
struct Deletes(Mutex<Vec<(String, bool)>>);

impl EventHandler<Pod> for Deletes {
    fn on_delete(&self, state: &DeletedState<Pod>) {
        let key = match state {
            DeletedState::Unknown { key, .. } => key.clone(),
            _ => object_key(&**state.object()),
        };
        self.0.lock().unwrap().push((key, state.is_tombstone()));
    }
}

async fn missed_delete_becomes_a_tombstone(queue: QueueKind) {
    use kinformer_sim::{Fault, FaultKind, ObjectOp};

    let sim = sim(10).await;
    let informer = informer(&sim, Config::default().with_queue(queue));
    let deletes = Arc::new(Deletes::default());
    informer.add_event_handler(Arc::clone(&deletes)).unwrap();
    let running = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();
    let victim = informer.indexer().list()[0].clone();
    let (ns, name) = (
        victim.namespace().unwrap().to_owned(),
        victim.name().to_owned(),
    );
    // The watch breaks and cannot be reopened, so the reflector relists; the relist is served
    // only after the delete below, which no watch ever reports.
    sim.add_faults([
        Fault::new(FaultKind::status(500))
            .verbs(["watch"])
            .resources(["pods"]),
        Fault::new(FaultKind::Delay { seconds: 1.0 })
            .verbs(["list"])
            .resources(["pods"]),
    ])
    .await;
    sim.drop_watches(DropMode::Abrupt).await;
    sim.objects(&[ObjectOp::delete("pods", ns.clone(), name.clone())])
        .await;
    let key = format!("{ns}/{name}");
    wait_until(Duration::from_secs(10), || {
        !deletes.0.lock().unwrap().is_empty()
    })
    .await;
    assert_eq!(*deletes.0.lock().unwrap(), [(key.clone(), true)]);
    assert!(informer.indexer().get_by_key(&key).is_none());
    informer.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missed_delete_arrives_as_a_tombstone_with_delta_fifo() {
    missed_delete_becomes_a_tombstone(QueueKind::DeltaFifo).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missed_delete_arrives_as_a_tombstone_with_the_in_order_queue() {
    missed_delete_becomes_a_tombstone(QueueKind::RealFifo).await;
}
