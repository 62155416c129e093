//! The default predicate against the simulator: a controller's own status write does not
//! reconcile its object again; a change of its spec does.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use kinformer_api::{Api, Patch, PatchParams};
use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
use kinformer_rest::Client;
use kinformer_runtime::{Action, Controller, ControllerConfig, Predicate};
use kinformer_sim::{ObjectOp, OpKind, Sim};
use serde_json::json;

#[derive(Debug, thiserror::Error)]
#[error("never")]
struct Never;

const PATIENCE: Duration = Duration::from_secs(20);

async fn next(
    results: &mut kinformer_runtime::ResultStream<Never>,
) -> Option<kinformer_runtime::Outcome<Never>> {
    tokio::time::timeout(PATIENCE, results.next())
        .await
        .ok()
        .flatten()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_writes_do_not_reconcile_again_by_default() {
    let sim = Sim::builder().start().await.unwrap();
    let deployment = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}}}},
    });
    sim.apply(ObjectOp::new(OpKind::Create, "deployments", deployment))
        .await
        .unwrap();
    let client = Client::new(sim.service());
    let factory = SharedInformerFactory::new(client.clone(), FactoryConfig::default());
    let informer = factory.informer_for::<Deployment>();
    let controller = Controller::for_type(informer.clone(), ControllerConfig::default());
    factory.start();
    let calls = Arc::new(AtomicUsize::new(0));
    let reconcile = |_: Arc<Deployment>, calls: Arc<AtomicUsize>| async move {
        calls.fetch_add(1, Ordering::SeqCst);
        Ok::<_, Never>(Action::await_change())
    };
    let mut results = controller.stream(reconcile, |_, _, _| Action::backoff(), calls.clone());
    next(&mut results).await.unwrap().unwrap();

    let api: Api<Deployment> = Api::namespaced(client, "default");
    let status = json!({"status": {"observedGeneration": 1, "replicas": 1}});
    api.patch_status("web", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .unwrap();
    // The status write reached the cache, and queued nothing.
    tokio::time::timeout(PATIENCE, async {
        while informer
            .lister()
            .namespaced("default")
            .get("web")
            .unwrap()
            .status
            .is_none()
        {
            tokio::task::yield_now().await;
        }
    })
    .await
    .unwrap();
    let more = tokio::time::timeout(Duration::from_millis(300), results.next()).await;
    assert!(more.is_err(), "reconciled for a status write: {more:?}");

    let spec = json!({"spec": {"replicas": 3}});
    api.patch("web", &PatchParams::default(), &Patch::Merge(&spec))
        .await
        .unwrap();
    next(&mut results).await.unwrap().unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    drop(results);
    factory.shutdown().await;
}

#[test]
fn predicates_compose() {
    let mut old = Deployment::default();
    old.metadata.resource_version = Some("1".into());
    let mut relabelled = old.clone();
    relabelled.metadata.resource_version = Some("2".into());
    relabelled.metadata.labels = Some([("a".to_owned(), "b".to_owned())].into());
    let labels = Predicate::<Deployment>::labels_changed();
    assert!(labels.matches(&old, &relabelled));
    assert!(
        !labels
            .and(Predicate::annotations_changed())
            .matches(&old, &relabelled)
    );
    // No generation on either side: any write is a change.
    assert!(Predicate::<Deployment>::generation_changed().matches(&old, &relabelled));
    assert!(!Predicate::<Deployment>::resource_version_changed().matches(&old, &old));
}
