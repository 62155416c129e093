//! A compact cache whose object fails to decode loses no notification: the handler gets
//! `on_decode_error` with the key and the call it missed (an initial add, an update's old
//! object, a delete inferred from a relist), each logged and counted, while every other object
//! is delivered as usual.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kinformer_core::{ApiResource, Object};
use kinformer_informer::{Config, Error, HandlerFns, Metrics, Missed, SharedIndexInformer};
use kinformer_listwatch::ListWatch;
use kinformer_rest::Client;
use kinformer_sim::{ObjectOp, OpKind, Sim};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::json;

use common::{spawn_run, wait_until};

/// A ConfigMap whose encoding does not decode when it is labelled `brittle`: what a type whose
/// serde implementations do not round-trip does to a compact cache.
#[derive(Clone, Debug, Default, Deserialize)]
struct Brittle {
    metadata: ObjectMeta,
    #[serde(default)]
    data: Option<BTreeMap<String, String>>,
}

impl Serialize for Brittle {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let brittle = self.labels().is_some_and(|l| l.contains_key("brittle"));
        if brittle {
            json!({ "metadata": "not an object" }).serialize(serializer)
        } else {
            json!({ "metadata": self.metadata, "data": self.data }).serialize(serializer)
        }
    }
}

impl Object for Brittle {
    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

/// Counts the informer's decode failures.
#[derive(Default)]
struct DecodeFailures(AtomicUsize);

impl kinformer_reflector::ReflectorMetrics for DecodeFailures {}

impl Metrics for DecodeFailures {
    fn decode_failed(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

fn configmap(name: &str, brittle: bool) -> ObjectOp {
    let labels = if brittle {
        json!({ "brittle": "yes" })
    } else {
        json!({})
    };
    ObjectOp::new(
        OpKind::Create,
        "configmaps",
        json!({ "metadata": { "name": name, "namespace": "default", "labels": labels }, "data": { "v": "1" } }),
    )
}

type Log = Arc<Mutex<Vec<String>>>;

fn recorder(log: &Log) -> HandlerFns<Brittle> {
    let (a, u, d, e) = (log.clone(), log.clone(), log.clone(), log.clone());
    HandlerFns::new()
        .add_fn(move |o: &Arc<Brittle>, _| a.lock().unwrap().push(format!("add {}", o.name())))
        .update_fn(move |_, n: &Arc<Brittle>| {
            u.lock().unwrap().push(format!("update {}", n.name()))
        })
        .delete_fn(move |s| {
            d.lock()
                .unwrap()
                .push(format!("delete {}", s.object().name()))
        })
        .decode_error_fn(move |error| {
            let Error::Decode { key, missed, .. } = error else {
                panic!("unexpected error {error}");
            };
            let missed = match missed {
                Missed::Add => "add",
                Missed::Update => "update",
                Missed::Delete => "delete",
                _ => "other",
            };
            e.lock().unwrap().push(format!("error {missed} {key}"));
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_undecodable_object_reaches_the_handler_as_an_error_never_as_silence() {
    let sim = Sim::builder().seed(5).start().await.unwrap();
    for op in [configmap("a", true), configmap("b", false)] {
        sim.apply(op).await.unwrap();
    }
    let source: ListWatch<Brittle, _> =
        ListWatch::from_client(Client::new(sim.service()), ApiResource::of::<ConfigMap>());
    let failures = Arc::new(DecodeFailures::default());
    let config = Config::default()
        .with_name("configmaps")
        .with_shape(
            kinformer_core::ObjectShape::default().with_holding(kinformer_core::Holding::Compact),
        )
        .with_metrics(Arc::clone(&failures) as Arc<dyn Metrics>);
    let informer = SharedIndexInformer::new(source, config).unwrap();
    let log = Log::default();
    informer.add_event_handler(recorder(&log)).unwrap();
    let running = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();
    let logged = |n: usize| {
        let log = Arc::clone(&log);
        wait_until(Duration::from_secs(10), move || {
            log.lock().unwrap().len() >= n
        })
    };

    // The initial list: `a` is packed as it arrives and cannot be decoded for its add.
    assert!(logged(2).await);
    let mut first = log.lock().unwrap().clone();
    first.sort();
    assert_eq!(first, ["add b", "error add default/a"]);

    // An update: the new object came decoded from the watch, the old one is the packed copy.
    sim.apply(
        ObjectOp::new(OpKind::Patch, "configmaps", json!({ "data": { "v": "2" } }))
            .namespace("default")
            .name("a"),
    )
    .await
    .unwrap();
    assert!(logged(3).await);
    assert_eq!(log.lock().unwrap()[2], "error update default/a");

    // A reset empties the sim and compacts its history: the informer relists and infers both
    // deletes; `a`'s last state is the packed copy.
    sim.reset().await;
    assert!(logged(5).await);
    let mut last = log.lock().unwrap()[3..].to_vec();
    last.sort();
    assert_eq!(last, ["delete b", "error delete default/a"]);
    assert_eq!(failures.0.load(Ordering::Relaxed), 3);

    informer.shutdown();
    running.await.unwrap().unwrap();
}
