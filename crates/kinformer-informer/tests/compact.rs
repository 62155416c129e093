//! Compact-mode informers against the sim: the cache holds each pod packed (in protobuf) and
//! decodes on read, a tiered one keeps the pods read last decoded; it converges under churn and after a 410 relist in both list modes, with selectors
//! and indexes, while handlers receive typed objects (an update's old one included).

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{Holding, Object, StoreRead, object_key};
use kinformer_indexer::IndexRead;
use kinformer_indexer::{IndexFunc, NAMESPACE_INDEX};
use kinformer_informer::{Config, HandlerFns, QueueKind, SharedIndexInformer};
use kinformer_listwatch::ListWatch;
use kinformer_reflector::Config as ReflectorConfig;
use kinformer_rest::{Client, RestClient};
use kinformer_selector::LabelSelector;
use kinformer_sim::{Churn, DropMode, Sim, SimHandle};

use common::{converges_to_the_sims_pods, spawn_run, wait_until};

async fn sim(pods: usize) -> SimHandle {
    Sim::builder()
        .pods(pods)
        .namespaces(3)
        .seed(23)
        .start()
        .await
        .unwrap()
}

fn source(sim: &SimHandle) -> ListWatch<Pod, RestClient> {
    ListWatch::for_type(Client::new(sim.service()))
}

async fn churn(sim: &SimHandle, count: u64, seed: u64) {
    sim.churn_start(Churn::new(500.0).count(count).seed(seed))
        .await
        .unwrap();
    let churned = wait_until(Duration::from_secs(10), || {
        futures_util::FutureExt::now_or_never(sim.churn_status()).is_some_and(|s| s.done >= count)
    })
    .await;
    assert!(churned);
}

/// (old resourceVersion, new resourceVersion) of every update a handler saw.
type Updates = Arc<Mutex<Vec<(String, String)>>>;

/// Whole pods: a spec and a status (a listed object is packed as it arrives, and handlers
/// still receive it whole).
fn whole(pod: &Pod) -> bool {
    pod.spec.is_some() && pod.status.is_some()
}

/// Records updates; counts adds, failing the count for any pod that is not whole.
fn recording(updates: &Updates, adds: &Arc<Mutex<usize>>) -> HandlerFns<Pod> {
    let updates = Arc::clone(updates);
    let adds = Arc::clone(adds);
    HandlerFns::new()
        .add_fn(move |pod: &Arc<Pod>, _| {
            assert!(whole(pod), "an add hands on a whole pod");
            *adds.lock().unwrap() += 1;
        })
        .update_fn(move |old: &Arc<Pod>, new: &Arc<Pod>| {
            assert!(whole(old) && whole(new), "an update hands on whole pods");
            let rv = |p: &Pod| p.resource_version().unwrap_or("").to_owned();
            updates.lock().unwrap().push((rv(old), rv(new)));
        })
}

async fn follows_churn_and_a_relist(streaming: bool, queue: QueueKind) {
    follows_churn_and_a_relist_holding(streaming, queue, Holding::Compact).await;
}

async fn follows_churn_and_a_relist_holding(streaming: bool, queue: QueueKind, holding: Holding) {
    let sim = sim(60).await;
    let informer = SharedIndexInformer::new(
        source(&sim),
        Config::default()
            .with_name("pods")
            .with_shape(kinformer_core::ObjectShape::default().with_holding(holding))
            .with_queue(queue)
            .with_reflector(ReflectorConfig::default().with_streaming_list(streaming)),
    )
    .unwrap();
    let (updates, adds) = (Updates::default(), Arc::new(Mutex::new(0)));
    let registration = informer
        .add_event_handler(recording(&updates, &adds))
        .unwrap();
    let running = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();
    registration.wait_synced().await.unwrap();
    assert_eq!(
        *adds.lock().unwrap(),
        60,
        "every listed pod was added, whole"
    );
    converges_to_the_sims_pods(&sim, &informer).await;
    let held = informer.indexer().list_cached();
    assert!(
        held.iter().all(|pod| pod.decoded().is_none()),
        "held packed"
    );
    assert!(informer.indexer().iter().all(|pod| whole(&pod)));
    let some = informer.indexer().list()[0].clone();
    assert!(
        some.spec.is_some() && some.status.is_some(),
        "pods come whole"
    );
    assert!(
        some.metadata.managed_fields.is_none(),
        "skipped while decoding"
    );

    // Every pod read once: a tiered cache holds the last ones read decoded through the churn.
    for key in informer.indexer().list_keys() {
        assert!(informer.indexer().get_by_key(&key).is_some());
    }
    churn(&sim, 200, 2).await;
    converges_to_the_sims_pods(&sim, &informer).await;
    let seen = updates.lock().unwrap().clone();
    assert!(!seen.is_empty(), "handlers saw updates");
    assert!(
        seen.iter().all(|(old, new)| old != new && !old.is_empty()),
        "an update's old object is the decoded previous revision"
    );

    // A 410 on the watch: the informer relists into the compact cache and converges again.
    sim.drop_watches(DropMode::Error410).await;
    churn(&sim, 50, 3).await;
    converges_to_the_sims_pods(&sim, &informer).await;
    assert!(informer.indexer().list().iter().all(|pod| whole(pod)));
    informer.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compact_informer_follows_churn_and_relists_with_a_streaming_list() {
    follows_churn_and_a_relist(true, QueueKind::RealFifo).await;
}

/// Through client-go's classic DeltaFIFO, listed objects arrive packed as `Replaced` deltas one
/// key at a time and are stored from their packed bytes all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compact_informer_works_through_the_delta_fifo() {
    follows_churn_and_a_relist(true, QueueKind::DeltaFifo).await;
}

/// A tiered cache with a small hot set: hot objects are never read stale through churn and a
/// relist.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tiered_informer_follows_churn_and_relists() {
    let hot = std::num::NonZeroUsize::new(16).unwrap();
    follows_churn_and_a_relist_holding(true, QueueKind::RealFifo, Holding::Tiered { hot }).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compact_informer_follows_churn_and_relists_with_list_and_watch() {
    follows_churn_and_a_relist(false, QueueKind::RealFifo).await;
}

/// The compact and tiered caches (pods held in protobuf) read back exactly what a typed cache
/// of the same pods holds; a tiered cache hands out a hot pod without decoding it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compact_cache_reads_back_what_a_typed_cache_holds() {
    reads_back_what_a_typed_cache_holds(Holding::Compact).await;
    reads_back_what_a_typed_cache_holds(Holding::tiered()).await;
}

async fn reads_back_what_a_typed_cache_holds(holding: Holding) {
    let sim = sim(40).await;
    let typed =
        SharedIndexInformer::new(source(&sim), Config::default().with_name("pods")).unwrap();
    let compact = SharedIndexInformer::new(
        source(&sim),
        Config::default()
            .with_name("pods")
            .with_shape(kinformer_core::ObjectShape::default().with_holding(holding)),
    )
    .unwrap();
    let (a, b) = (spawn_run(&typed), spawn_run(&compact));
    typed.wait_for_cache_sync().await.unwrap();
    compact.wait_for_cache_sync().await.unwrap();
    converges_to_the_sims_pods(&sim, &typed).await;
    converges_to_the_sims_pods(&sim, &compact).await;
    for pod in typed.indexer().list() {
        let key = object_key(&*pod);
        let read = compact.indexer().get_by_key(&key).unwrap();
        assert_eq!(*read, *pod);
        let again = compact.indexer().get_by_key(&key).unwrap();
        assert_eq!(
            Arc::ptr_eq(&read, &again),
            matches!(holding, Holding::Tiered { .. }),
            "{holding:?}: only a tiered cache keeps a read pod decoded"
        );
    }
    typed.shutdown();
    compact.shutdown();
    a.await.unwrap().unwrap();
    b.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selectors_indexes_and_listers_work_on_a_compact_cache() {
    let sim = sim(60).await;
    let by_app = IndexFunc::new(|p: &Pod| {
        Ok(p.labels()
            .and_then(|l| l.get("app"))
            .cloned()
            .into_iter()
            .collect())
    });
    let informer = SharedIndexInformer::new(
        source(&sim).with_label_selector("tier=frontend").unwrap(),
        Config::default()
            .with_name("pods")
            .with_shape(
                kinformer_core::ObjectShape::default()
                    .with_holding(kinformer_core::Holding::Compact),
            )
            .with_index("app", by_app)
            .unwrap(),
    )
    .unwrap();
    let running = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();
    let cached = informer.indexer().list();
    let truth = sim.state("pods", true).await.unwrap();
    let frontend: Vec<_> = truth
        .items
        .iter()
        .filter(|i| i["labels"]["tier"] == "frontend")
        .collect();
    assert!(!cached.is_empty());
    assert_eq!(cached.len(), frontend.len());
    let app = cached[0].labels().unwrap()["app"].clone();
    let same_app = informer.indexer().by_index("app", &app).unwrap();
    assert!(!same_app.is_empty());
    assert!(same_app.iter().all(|o| o.labels().unwrap()["app"] == app));
    let namespace = cached[0].namespace().unwrap().to_owned();
    let in_namespace = informer
        .indexer()
        .by_index(NAMESPACE_INDEX, &namespace)
        .unwrap();
    let lister = informer.lister().namespaced(namespace.clone());
    assert_eq!(
        lister.list(&LabelSelector::default()).len(),
        in_namespace.len()
    );
    let name = cached[0].name().to_owned();
    assert_eq!(*lister.get(&name).unwrap(), *cached[0]);
    informer.shutdown();
    running.await.unwrap().unwrap();
}
