//! An informer's events as a stream: every notification in order, a reader that does not read
//! delaying no other handler, and the stream ending with the informer.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_core::{DeletedState, Object};
use kinformer_informer::{Config, Event, HandlerFns, SharedIndexInformer};
use kinformer_listwatch::ListWatch;
use kinformer_rest::Client;
use kinformer_sim::{ObjectOp, OpKind, Sim};
use serde_json::json;

mod common;

use common::{spawn_run, wait_until};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_sees_every_change_in_order_and_an_unread_one_delays_nothing() {
    let sim = Sim::builder().configmaps(3).start().await.unwrap();
    let source = ListWatch::<ConfigMap, _>::for_type(Client::new(sim.service()));
    let informer = SharedIndexInformer::new(source, Config::default()).unwrap();
    let mut events = informer.events().unwrap();
    let idle = informer.events().unwrap();
    let seen = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&seen);
    let count = move || {
        counted.fetch_add(1, Ordering::SeqCst);
    };
    let (on_add, on_update, on_delete) = (count.clone(), count.clone(), count);
    informer
        .add_event_handler(
            HandlerFns::new()
                .add_fn(move |_: &Arc<ConfigMap>, _| on_add())
                .update_fn(move |_, _| on_update())
                .delete_fn(move |_| on_delete()),
        )
        .unwrap();
    let running = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();

    let cm = |v: &str| json!({"metadata": {"name": "x", "namespace": "default"}, "data": {"v": v}});
    for (op, v) in [
        (OpKind::Create, "1"),
        (OpKind::Update, "2"),
        (OpKind::Delete, "2"),
    ] {
        sim.apply(ObjectOp::new(op, "configmaps", cm(v)))
            .await
            .unwrap();
    }
    // The counting handler gets all six calls though `idle` is never read.
    assert!(wait_until(Duration::from_secs(20), || seen.load(Ordering::SeqCst) == 6).await);

    let mut initial = 0;
    let mut rest = Vec::new();
    while rest.len() < 3 {
        match events.next().await.expect("the informer runs") {
            Event::Added {
                in_initial_list: true,
                ..
            } => initial += 1,
            other => rest.push(other),
        }
    }
    assert_eq!(initial, 3);
    let Event::Added {
        object,
        in_initial_list: false,
    } = &rest[0]
    else {
        panic!("{:?}", rest[0])
    };
    assert_eq!(object.name(), "x");
    let Event::Updated { old, new } = &rest[1] else {
        panic!("{:?}", rest[1])
    };
    assert_eq!(
        (
            old.data.as_ref().unwrap()["v"].as_str(),
            new.data.as_ref().unwrap()["v"].as_str()
        ),
        ("1", "2")
    );
    let Event::Deleted(DeletedState::Known(last)) = &rest[2] else {
        panic!("{:?}", rest[2])
    };
    assert_eq!(last.data.as_ref().unwrap()["v"], "2");

    informer.shutdown();
    running.await.unwrap().unwrap();
    assert!(
        events.next().await.is_none(),
        "the stream ends with the informer"
    );
    drop(idle);
}
