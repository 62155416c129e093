//! Decode-time field projection against the sim: the cache and the handlers hold only what the
//! projection lets through, in both list modes, through churn and a 410 relist, with selectors
//! and an index over a kept field.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{Fields, Object, ObjectShape, Projection, StoreRead, object_key};
use kinformer_indexer::IndexFunc;
use kinformer_indexer::IndexRead;
use kinformer_informer::{Config, HandlerFns, SharedIndexInformer};
use kinformer_listwatch::ListWatch;
use kinformer_reflector::Config as ReflectorConfig;
use kinformer_rest::Client;
use kinformer_sim::{Churn, DropMode, Sim};

use common::{spawn_run, wait_until};

/// What the bench's projection keeps: metadata, the node, the phase, container names and images.
fn narrow() -> Projection {
    Projection::keep([
        "spec.nodeName",
        "status.phase",
        "spec.containers[].name",
        "spec.containers[].image",
    ])
    .unwrap()
}

fn projected(pod: &Pod) -> bool {
    let spec = pod.spec.as_ref();
    let status = pod.status.as_ref();
    spec.is_some_and(|s| {
        s.node_name.is_some()
            && s.restart_policy.is_none()
            && s.containers
                .iter()
                .all(|c| c.image.is_some() && c.env.is_none() && c.ports.is_none())
    }) && status.is_some_and(|s| s.phase.is_some() && s.container_statuses.is_none())
        && pod.metadata.managed_fields.is_none()
        && pod.metadata.labels.is_some()
}

async fn projects_through_churn_and_a_relist(streaming: bool) {
    let sim = Sim::builder()
        .pods(40)
        .namespaces(2)
        .seed(12)
        .start()
        .await
        .unwrap();
    let source = ListWatch::<Pod, _>::for_type(Client::new(sim.service()));
    let informer = SharedIndexInformer::new(
        source,
        Config::default()
            .with_name("pods")
            .with_shape(ObjectShape::default().with_fields(Fields::projected(narrow())))
            .with_reflector(ReflectorConfig::default().with_streaming_list(streaming)),
    )
    .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    informer
        .add_event_handler(HandlerFns::new().update_fn(move |_, pod: &Arc<Pod>| {
            log.lock().unwrap().push(projected(pod));
        }))
        .unwrap();
    let running = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();
    assert_eq!(informer.indexer().len(), 40);
    assert!(informer.indexer().list().iter().all(|p| projected(p)));

    sim.churn_start(Churn::new(400.0).count(80).seed(4))
        .await
        .unwrap();
    sim.drop_watches(DropMode::Error410).await;
    let truth = sim.versions("pods").await.unwrap();
    let converged = wait_until(Duration::from_secs(15), || {
        let now = futures_util::FutureExt::now_or_never(sim.versions("pods"));
        let truth = now.and_then(Result::ok).unwrap_or_else(|| truth.clone());
        let cached: std::collections::BTreeMap<String, String> = informer
            .indexer()
            .list()
            .iter()
            .map(|p| {
                (
                    object_key(&**p),
                    p.resource_version().unwrap_or("").to_owned(),
                )
            })
            .collect();
        cached == truth && sim_churn_done(&sim)
    })
    .await;
    assert!(converged, "the projected cache never converged");
    assert!(informer.indexer().list().iter().all(|p| projected(p)));
    let updates = seen.lock().unwrap().clone();
    assert!(
        !updates.is_empty() && updates.iter().all(|ok| *ok),
        "handlers see projected pods"
    );
    informer.shutdown();
    running.await.unwrap().unwrap();
}

fn sim_churn_done(sim: &kinformer_sim::SimHandle) -> bool {
    futures_util::FutureExt::now_or_never(sim.churn_status()).is_some_and(|s| s.done >= 80)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_projected_informer_follows_churn_and_relists_with_a_streaming_list() {
    projects_through_churn_and_a_relist(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_projected_informer_follows_churn_and_relists_with_list_and_watch() {
    projects_through_churn_and_a_relist(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selectors_and_indexes_work_on_projected_objects() {
    let sim = Sim::builder()
        .pods(60)
        .namespaces(2)
        .seed(13)
        .start()
        .await
        .unwrap();
    let drop = Projection::drop(["spec.containers[].env", "status.containerStatuses"]).unwrap();
    let source = ListWatch::<Pod, _>::for_type(Client::new(sim.service()))
        .with_label_selector("tier=backend")
        .unwrap();
    let by_node = IndexFunc::new(|pod: &Pod| {
        Ok(pod
            .spec
            .as_ref()
            .and_then(|s| s.node_name.clone())
            .into_iter()
            .collect())
    });
    let informer = SharedIndexInformer::new(
        source,
        Config::default()
            .with_name("pods")
            .with_shape(ObjectShape::default().with_fields(Fields::projected(drop)))
            .with_index("node", by_node)
            .unwrap(),
    )
    .unwrap();
    let running = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();
    let cached = informer.indexer().list();
    let backend = sim.state("pods", true).await.unwrap();
    let expected = backend
        .items
        .iter()
        .filter(|i| i["labels"]["tier"] == "backend")
        .count();
    assert_eq!(cached.len(), expected);
    assert!(cached.iter().all(|p| {
        p.spec
            .as_ref()
            .unwrap()
            .containers
            .iter()
            .all(|c| c.env.is_none())
            && p.status.as_ref().unwrap().container_statuses.is_none()
    }));
    let node = informer.indexer().list_index_func_values("node")[0].clone();
    let on_node = informer.indexer().by_index("node", &node).unwrap();
    assert!(!on_node.is_empty());
    informer.shutdown();
    running.await.unwrap().unwrap();
}

/// The factory decodes one resource through a projection and leaves the others whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_factory_projects_the_resources_it_is_told_to() {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kinformer_informer::factory::{FactoryConfig, ResourceOptions, SharedInformerFactory};

    let sim = Sim::builder()
        .pods(10)
        .configmaps(5)
        .seed(14)
        .start()
        .await
        .unwrap();
    let factory = SharedInformerFactory::new(Client::new(sim.service()), FactoryConfig::default());
    let shape = ObjectShape::default().with_fields(Fields::projected(narrow()));
    let pods = factory
        .informer_with(ResourceOptions::<Pod>::typed().with_shape(shape))
        .unwrap();
    let configmaps = factory.informer_for::<ConfigMap>();
    factory.start();
    factory.wait_for_cache_sync().await.unwrap();
    assert_eq!(pods.indexer().len(), 10);
    assert!(pods.indexer().list().iter().all(|p| projected(p)));
    assert!(configmaps.indexer().list().iter().all(|c| c.data.is_some()));
    factory.shutdown().await;
}
