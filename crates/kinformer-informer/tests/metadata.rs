//! Metadata-only informers (client-go's metadatainformer) against the sim: lists and watches
//! ask for `PartialObjectMetadata`, the cache converges under churn and after a 410 relist, in
//! both list modes, with selectors and indexes; the sim answers as the API server does.

mod common;

use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{ApiResource, Object, PartialObjectMetadata, StoreRead};
use kinformer_indexer::IndexFunc;
use kinformer_indexer::IndexRead;
use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
use kinformer_informer::{Config, SharedIndexInformer};
use kinformer_listwatch::{ListWatch, METADATA_LIST_ACCEPT, METADATA_WATCH_ACCEPT};
use kinformer_reflector::Config as ReflectorConfig;
use kinformer_rest::{Client, RestClient};
use kinformer_sim::{Churn, DropMode, Sim, SimHandle};
use serde_json::Value;

use common::{converges_to_the_sims_pods, spawn_run, wait_until};

async fn sim(pods: usize) -> SimHandle {
    Sim::builder()
        .pods(pods)
        .namespaces(3)
        .seed(17)
        .start()
        .await
        .unwrap()
}

fn metadata_source(sim: &SimHandle) -> ListWatch<PartialObjectMetadata, RestClient> {
    let pods = ApiResource::of::<Pod>();
    let rest = RestClient::for_resource(Client::new(sim.service()), &pods);
    ListWatch::metadata(rest, pods)
}

async fn follows_churn_and_a_relist(streaming: bool) {
    let sim = sim(60).await;
    let informer = SharedIndexInformer::new(
        metadata_source(&sim),
        Config::default()
            .with_name("pods")
            .with_reflector(ReflectorConfig::default().with_streaming_list(streaming)),
    )
    .unwrap();
    let running = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();
    converges_to_the_sims_pods(&sim, &informer).await;
    let some = informer.indexer().list()[0].clone();
    assert_eq!(some.kind(), "PartialObjectMetadata");
    assert_eq!(some.api_version(), "meta.k8s.io/v1");
    assert!(some.metadata.labels.is_some(), "metadata comes whole");
    assert!(
        some.metadata.managed_fields.is_none(),
        "skipped while decoding"
    );

    sim.churn_start(Churn::new(500.0).count(200).seed(2))
        .await
        .unwrap();
    let churned = wait_until(Duration::from_secs(10), || {
        futures_util::FutureExt::now_or_never(sim.churn_status()).is_some_and(|s| s.done >= 200)
    })
    .await;
    assert!(churned);
    converges_to_the_sims_pods(&sim, &informer).await;

    // A 410 on the watch: the informer relists, metadata only, and converges again.
    sim.drop_watches(DropMode::Error410).await;
    sim.churn_start(Churn::new(500.0).count(50).seed(3))
        .await
        .unwrap();
    converges_to_the_sims_pods(&sim, &informer).await;
    informer.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_metadata_informer_follows_churn_and_relists_with_a_streaming_list() {
    follows_churn_and_a_relist(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_metadata_informer_follows_churn_and_relists_with_list_and_watch() {
    follows_churn_and_a_relist(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selectors_and_indexes_work_on_metadata() {
    let sim = sim(60).await;
    let by_app = IndexFunc::new(|o: &PartialObjectMetadata| {
        Ok(o.labels()
            .and_then(|l| l.get("app"))
            .cloned()
            .into_iter()
            .collect())
    });
    let informer = SharedIndexInformer::new(
        metadata_source(&sim)
            .with_label_selector("tier=frontend")
            .unwrap(),
        Config::default()
            .with_name("pods")
            .with_index("app", by_app)
            .unwrap(),
    )
    .unwrap();
    let running = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();
    let cached = informer.indexer().list();
    assert!(!cached.is_empty());
    let truth = sim.state("pods", true).await.unwrap();
    let frontend = truth
        .items
        .iter()
        .filter(|i| i["labels"]["tier"] == "frontend")
        .count();
    assert_eq!(cached.len(), frontend);
    let app = cached[0].labels().unwrap()["app"].clone();
    let same_app = informer.indexer().by_index("app", &app).unwrap();
    assert!(same_app.iter().all(|o| o.labels().unwrap()["app"] == app));
    informer.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_factory_gives_a_metadata_informer_beside_the_typed_one() {
    let sim = sim(20).await;
    let factory = SharedInformerFactory::new(Client::new(sim.service()), FactoryConfig::default());
    let typed = factory.informer_for::<Pod>();
    let metadata = factory.metadata_informer(ApiResource::of::<Pod>());
    factory.start();
    factory.wait_for_cache_sync().await.unwrap();
    let synced = factory.sync_status();
    assert_eq!(synced.get("v1/pods"), Some(&true));
    assert_eq!(synced.get("v1/pods (metadata)"), Some(&true));
    assert_eq!(typed.indexer().len(), 20);
    assert_eq!(metadata.indexer().len(), 20);
    factory.shutdown().await;
}

/// The sim answers the metadata media types as the API server does: the list's kind and
/// apiVersion, each item's, and 406 NotAcceptable for what it cannot serve.
#[tokio::test]
async fn the_sim_serves_metadata_lists_and_refuses_what_it_cannot_serve() {
    let sim = sim(5).await;
    let rest = RestClient::for_resource(Client::new(sim.service()), &ApiResource::of::<Pod>());
    let list = rest
        .get()
        .resource("pods")
        .header("accept", METADATA_LIST_ACCEPT);
    let list: Value = serde_json::from_slice(&list.do_raw().await.unwrap()).unwrap();
    assert_eq!(list["kind"], "PartialObjectMetadataList");
    assert_eq!(list["apiVersion"], "meta.k8s.io/v1");
    assert!(list["metadata"]["resourceVersion"].is_string());
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 5);
    assert_eq!(items[0]["kind"], "PartialObjectMetadata");
    assert_eq!(items[0]["apiVersion"], "meta.k8s.io/v1");
    assert!(items[0].get("spec").is_none() && items[0]["metadata"]["name"].is_string());

    // Protobuf and Tables are served (the sim's own tests cover them); a Table in protobuf, and
    // a metadata form on the wrong verb, are not.
    for (accept, watch) in [
        (
            "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io",
            false,
        ),
        (METADATA_WATCH_ACCEPT, false),
        (METADATA_LIST_ACCEPT, true),
    ] {
        let mut request = rest.get().resource("pods").header("accept", accept);
        if watch {
            request = request.param("watch", "true");
        }
        let err = request.do_raw().await.unwrap_err();
        assert_eq!(err.status_code(), Some(406), "{accept}: {err}");
        let reason = err.status().and_then(|s| s.reason.as_deref());
        assert_eq!(reason, Some("NotAcceptable"), "{accept}: {err}");
    }
}
