//! The order in which a relist reaches handlers: the in-order queue (the default, as in
//! client-go 1.36) reports a vanished object's delete before the relist's updates and adds;
//! DeltaFIFO, kept as an option, reports it last.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_core::{DeletedState, Object, StoreRead};
use kinformer_informer::{Config, EventHandler, QueueKind, SharedIndexInformer};
use kinformer_listwatch::ListWatch;
use kinformer_rest::Client;
use kinformer_sim::{DropMode, Fault, FaultKind, ObjectOp, OpKind, Sim};
use serde_json::json;

use common::{spawn_run, wait_until};

/// Logs every notification after the initial list, as `verb name`.
#[derive(Default)]
struct Log(Mutex<Vec<String>>);

impl EventHandler<ConfigMap> for Log {
    fn on_add(&self, obj: &Arc<ConfigMap>, is_in_initial_list: bool) {
        if !is_in_initial_list {
            self.0.lock().unwrap().push(format!("add {}", obj.name()));
        }
    }
    fn on_update(&self, _: &Arc<ConfigMap>, new: &Arc<ConfigMap>) {
        self.0
            .lock()
            .unwrap()
            .push(format!("update {}", new.name()));
    }
    fn on_delete(&self, state: &DeletedState<ConfigMap>) {
        let verb = if state.is_tombstone() {
            "tombstone"
        } else {
            "delete"
        };
        let name = state.object().name();
        self.0.lock().unwrap().push(format!("{verb} {name}"));
    }
}

fn sorted(events: &[String]) -> Vec<String> {
    let mut events = events.to_vec();
    events.sort();
    events
}

fn configmap(name: &str, value: &str) -> ObjectOp {
    let body = json!({"metadata": {"name": name, "namespace": "default"}, "data": {"v": value}});
    ObjectOp::new(OpKind::Upsert, "configmaps", body)
}

/// Three configmaps; while the watch is down and the relist is held back, `b` is deleted, `a`
/// updated and `c` created; returns what the handler heard of the relist.
async fn relist_log(queue: QueueKind) -> Vec<String> {
    let sim = Sim::builder().seed(5).start().await.unwrap();
    sim.objects(&[configmap("a", "1"), configmap("b", "1")])
        .await;
    let source = ListWatch::<ConfigMap, _>::for_type(Client::new(sim.service()));
    let informer =
        SharedIndexInformer::new(source, Config::default().with_name("cm").with_queue(queue))
            .unwrap();
    let log = Arc::new(Log::default());
    informer.add_event_handler(Arc::clone(&log)).unwrap();
    let running = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();

    // The watch cannot be reopened (410), so the reflector relists; the list is held back a
    // second, so it is served after the writes below, which no watch reports.
    let expired = FaultKind::status(410);
    sim.add_faults([
        Fault::new(expired)
            .verbs(["watch"])
            .resources(["configmaps"]),
        Fault::new(FaultKind::Delay { seconds: 1.0 })
            .verbs(["list"])
            .resources(["configmaps"]),
    ])
    .await;
    sim.drop_watches(DropMode::Abrupt).await;
    sim.objects(&[
        ObjectOp::delete("configmaps", "default", "b"),
        configmap("a", "2"),
        configmap("c", "1"),
    ])
    .await;
    let heard_all = wait_until(Duration::from_secs(20), || log.0.lock().unwrap().len() >= 3).await;
    assert!(heard_all, "heard {:?}", log.0.lock().unwrap());
    assert!(informer.indexer().get_by_key("default/b").is_none());
    informer.shutdown();
    running.await.unwrap().unwrap();
    log.0.lock().unwrap().clone()
}

/// client-go 1.36 (InOrderInformers, GA): `RealFIFO.Replace` queues the deletions of known
/// objects missing from the new list before the listed objects (`TestRealFIFO_ReplaceMakesDeletions`:
/// "the deletes of known items should happen BEFORE newItems are added").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_queue_delivers_a_relists_delete_first() {
    assert_eq!(Config::<ConfigMap>::default().queue(), QueueKind::RealFifo);
    let heard = relist_log(QueueKind::default()).await;
    // A streaming relist's objects come in no particular order; the delete comes before them.
    assert_eq!(heard[0], "tombstone b", "{heard:?}");
    assert_eq!(sorted(&heard[1..]), ["add c", "update a"]);
}

/// client-go's DeltaFIFO (`TestDeltaFIFO_ReplaceMakesDeletions`): the listed keys are queued
/// first, the deletions inferred from the known objects after them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delta_fifo_delivers_a_relists_delete_last() {
    let heard = relist_log(QueueKind::DeltaFifo).await;
    assert_eq!(sorted(&heard[..2]), ["add c", "update a"], "{heard:?}");
    assert_eq!(heard[2], "tombstone b");
}
