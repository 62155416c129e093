//! Factory tests against the in-process simulator that need crate-private items (the scripted
//! queue, `informer_with_queue`); public-API ones live in `tests/factory.rs`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kinformer_core::StoreRead;
use kinformer_sim::Sim;

use super::*;
use crate::testing::ScriptedQueue;
use crate::{Error, HandlerFns};

fn pods(factory: &SharedInformerFactory) -> SharedIndexInformer<Pod> {
    factory.informer_with_queue(ResourceOptions::typed(), |_| ScriptedQueue::new())
}

fn configmaps(factory: &SharedInformerFactory) -> SharedIndexInformer<ConfigMap> {
    factory.informer_with_queue(ResourceOptions::typed(), |_| ScriptedQueue::new())
}

#[tokio::test]
async fn one_informer_per_type_started_synced_and_shut_down() {
    let sim = Sim::builder()
        .pods(40)
        .configmaps(10)
        .namespaces(2)
        .seed(3)
        .start()
        .await
        .unwrap();
    let factory = SharedInformerFactory::new(
        Client::new(sim.service()),
        FactoryConfig::default().with_transform_metadata(|meta| meta.annotations = None),
    );
    let adds = Arc::new(AtomicUsize::new(0));
    let counter = adds.clone();
    pods(&factory)
        .add_event_handler(HandlerFns::new().add_fn(move |_: &Arc<Pod>, initial| {
            assert!(initial);
            counter.fetch_add(1, Ordering::SeqCst);
        }))
        .unwrap();
    let cms = configmaps(&factory);
    factory.start();
    factory.start();
    tokio::time::timeout(Duration::from_secs(30), factory.wait_for_cache_sync())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        factory.sync_status(),
        BTreeMap::from([
            ("v1/configmaps".to_owned(), true),
            ("v1/pods".to_owned(), true)
        ])
    );
    // The same type gives the same informer, with the same cache.
    let again = pods(&factory);
    assert_eq!(again.indexer().len(), 40);
    assert_eq!(cms.indexer().len(), 10);
    assert!(
        again
            .indexer()
            .list()
            .iter()
            .all(|p| p.metadata.annotations.is_none() && p.metadata.managed_fields.is_none())
    );
    let registration = again.add_event_handler(HandlerFns::new()).unwrap();
    registration.wait_synced().await.unwrap();
    assert_eq!(adds.load(Ordering::SeqCst), 40);
    factory.shutdown().await;
    assert!(again.is_stopped() && cms.is_stopped());
    // After shutdown nothing starts.
    factory.start();
    assert!(factory.sync_status().values().all(|s| *s));
}

#[tokio::test]
async fn namespace_and_tweaks_reach_the_list_watch() {
    let sim = Sim::builder()
        .pods(30)
        .namespaces(3)
        .seed(5)
        .start()
        .await
        .unwrap();
    let all = sim.state("pods", true).await.unwrap();
    let factory = SharedInformerFactory::new(
        Client::new(sim.service()),
        FactoryConfig::default()
            .with_reflector(kinformer_reflector::Config::default().with_streaming_list(false))
            .with_namespace("ns-1")
            .unwrap()
            .with_tweak_list_options(|o| o.field_selector = Some("metadata.namespace=ns-1".into()))
            .with_resync_for::<Pod>(Duration::from_secs(60)),
    );
    assert_eq!(
        factory.config().resync_for(&ApiResource::of::<Pod>()),
        Duration::from_secs(60)
    );
    let informer = pods(&factory);
    factory.start();
    tokio::time::timeout(Duration::from_secs(30), informer.wait_for_cache_sync())
        .await
        .unwrap()
        .unwrap();
    let cached = informer.indexer().list();
    assert!(!cached.is_empty());
    assert!(
        cached
            .iter()
            .all(|p| p.metadata.namespace.as_deref() == Some("ns-1"))
    );
    let expected = all
        .items
        .iter()
        .filter(|item| item["namespace"] == "ns-1" || item["metadata"]["namespace"] == "ns-1")
        .count();
    assert_eq!(cached.len(), expected);
    assert!(expected < all.items.len());
    factory.shutdown().await;
}

/// Informers, factories and their futures cross tasks and threads.
#[test]
fn public_types_and_futures_are_send_and_sync() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    fn send<T: Send>(_: &T) {}
    let factory = SharedInformerFactory::new(
        Client::new(tower::service_fn(
            |_: http::Request<kinformer_rest::Body>| async {
                Ok::<_, std::convert::Infallible>(
                    http::Response::new(kinformer_rest::Body::empty()),
                )
            },
        )),
        FactoryConfig::default(),
    );
    send_sync(&factory);
    send(&factory.wait_for_cache_sync());
    send(&factory.shutdown());
    let informer = factory.informer_for::<Pod>();
    send_sync(&informer);
    send(&informer.run());
    send(&informer.wait_for_cache_sync());
    let registration = informer.add_event_handler(HandlerFns::new()).unwrap();
    send_sync(&registration);
    send(&registration.wait_synced());
    let queue: kinformer_workqueue::RateLimitingQueue<String> = Default::default();
    send_sync(&queue);
    send(&queue.get());
    send(&queue.shutdown_with_drain());
}

#[tokio::test]
async fn informers_that_stop_before_syncing_are_named() {
    // A server that never answers a list: nothing can sync.
    let factory = SharedInformerFactory::new(
        Client::new(tower::service_fn(
            |_: http::Request<kinformer_rest::Body>| async {
                Ok::<_, std::convert::Infallible>(
                    http::Response::builder()
                        .status(503)
                        .body(kinformer_rest::Body::empty())
                        .unwrap(),
                )
            },
        )),
        FactoryConfig::default(),
    );
    let informer = factory.informer_for::<Pod>();
    factory.start();
    let waiting = tokio::spawn({
        let factory = factory.clone();
        async move { factory.wait_for_cache_sync().await }
    });
    factory.shutdown().await;
    match waiting.await.unwrap() {
        Err(Error::NotSynced { informers }) => assert_eq!(informers, ["v1/pods"]),
        other => panic!("expected NotSynced, got {other:?}"),
    }
    assert!(matches!(
        informer.wait_for_cache_sync().await,
        Err(Error::Stopped)
    ));
}
