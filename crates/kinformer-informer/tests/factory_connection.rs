//! Many informers over one client, against the sim over real TLS: one HTTP/2 connection, one
//! rate limiter, and a slow handler that delays nobody else.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{ConfigMap, Pod, Secret};
use kinformer_core::{ApiResource, DynamicObject, Scope, StoreRead};
use kinformer_rest::{
    Client, Config as RestConfig, Kubeconfig, KubeconfigOptions, RateLimit, TokenBucket,
};
use kinformer_sim::{CustomResource, ObjectOp, OpKind, Sim, SimHandle};
use serde_json::json;

use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
use kinformer_informer::{HandlerFns, SharedIndexInformer};

const CUSTOM_TYPES: usize = 47;

async fn sim_with_many_types() -> SimHandle {
    let sim = Sim::builder()
        .tls(true)
        .token("connection-test-token")
        .pods(200)
        .configmaps(20)
        .namespaces(2)
        .seed(21)
        .start()
        .await
        .unwrap();
    for i in 0..CUSTOM_TYPES {
        let plural = format!("gadget{i}s");
        sim.register(CustomResource::new(
            "example.com",
            "v1",
            format!("Gadget{i}"),
            plural.clone(),
            Scope::Namespaced,
        ))
        .await
        .unwrap();
        let object = json!({
            "apiVersion": "example.com/v1",
            "kind": format!("Gadget{i}"),
            "metadata": {"name": "g", "namespace": "default"},
        });
        sim.apply(ObjectOp::new(
            OpKind::Create,
            format!("{plural}.example.com"),
            object,
        ))
        .await
        .unwrap();
    }
    sim
}

fn client_for(sim: &SimHandle, rate_limit: RateLimit) -> Client {
    let kubeconfig = Kubeconfig::from_yaml(&sim.kubeconfig(), None).unwrap();
    let config = RestConfig::from_custom_kubeconfig(kubeconfig, &KubeconfigOptions::default())
        .unwrap()
        .with_rate_limit(rate_limit);
    Client::from_config(&config).unwrap()
}

fn gadget(i: usize) -> ApiResource {
    ApiResource::new(
        "example.com",
        "v1",
        format!("Gadget{i}"),
        format!("gadget{i}s"),
        Scope::Namespaced,
    )
}

/// client-go's promise, kept: fifty informers of fifty types are fifty streams on one
/// connection, paced by the client's one token bucket.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_informers_share_one_connection_and_one_rate_limiter() {
    let sim = sim_with_many_types().await;
    let (qps, burst) = (20.0, 10);
    // Lists are throttled; a watch's first attempt is not (client-go), so list+watch here.
    let factory = SharedInformerFactory::new(
        client_for(
            &sim,
            RateLimit::TokenBucket(TokenBucket::new(qps, burst).unwrap()),
        ),
        FactoryConfig::default()
            .with_reflector(kinformer_reflector::Config::default().with_streaming_list(false)),
    );
    let _pods = factory.informer_for::<Pod>();
    let _configmaps = factory.informer_for::<ConfigMap>();
    let _secrets = factory.informer_for::<Secret>();
    let gadgets: Vec<SharedIndexInformer<DynamicObject>> = (0..CUSTOM_TYPES)
        .map(|i| factory.dynamic_informer(gadget(i)))
        .collect();
    sim.clear_requests().await;
    let started = Instant::now();
    factory.start();
    tokio::time::timeout(Duration::from_secs(60), factory.wait_for_cache_sync())
        .await
        .unwrap()
        .unwrap();
    let elapsed = started.elapsed();
    let synced = factory.sync_status();
    assert_eq!(synced.len(), CUSTOM_TYPES + 3);
    assert!(synced.values().all(|s| *s), "{synced:?}");
    assert!(gadgets.iter().all(|g| g.indexer().len() == 1));

    // Synced after the lists; the watches follow.
    let stats = all_watching(&sim).await;
    assert_eq!(stats.connections_accepted, 1, "{stats:?}");
    assert_eq!(stats.connections_open, 1, "{stats:?}");
    // Each informer lists once; a limiter per informer would let them all go at once, the shared
    // bucket spaces those beyond the burst at 1/qps.
    let requests = sim
        .requests()
        .await
        .iter()
        .filter(|r| !r.path.contains("watch=true"))
        .count();
    assert!(requests >= CUSTOM_TYPES + 3, "{requests} lists");
    let floor = Duration::from_secs_f32((requests as f32 - burst as f32) / qps * 0.9);
    assert!(
        elapsed >= floor,
        "{requests} lists in {elapsed:?}: the rate limiter was not shared (floor {floor:?})"
    );

    // A server restart cuts every watch at once; they all come back over one new connection.
    sim.restart(Duration::from_millis(300)).await.unwrap();
    let stats = all_watching(&sim).await;
    assert_eq!(stats.connections_accepted, 2, "{stats:?}");
    assert_eq!(stats.connections_open, 1, "{stats:?}");
    factory.shutdown().await;
}

/// Waits until every informer of [`sim_with_many_types`] has a watch open.
async fn all_watching(sim: &SimHandle) -> kinformer_sim::SimStats {
    tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let stats = sim.stats().await;
            if stats.open_watches >= CUSTOM_TYPES + 3 {
                return stats;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("every informer watches")
}

/// A handler blocking its thread for every object of one informer holds back neither the
/// handlers of the other informers of the same factory nor a fast handler on the same informer.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_slow_handler_delays_no_other_informer() {
    let sim = sim_with_many_types().await;
    let factory = SharedInformerFactory::new(
        client_for(&sim, RateLimit::Unlimited),
        FactoryConfig::default(),
    );
    let pods = factory.informer_for::<Pod>();
    let slow_seen = Arc::new(AtomicUsize::new(0));
    let counter = slow_seen.clone();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let released = std::sync::Mutex::new(released);
    let slow = pods
        .add_event_handler(HandlerFns::new().add_fn(move |_: &Arc<Pod>, _| {
            // 50 ms of blocking work per pod (10 s for all), until the test drops `release`.
            let _ = released
                .lock()
                .unwrap()
                .recv_timeout(Duration::from_millis(50));
            counter.fetch_add(1, Ordering::SeqCst);
        }))
        .unwrap();
    let fast_on_pods = pods.add_event_handler(HandlerFns::new()).unwrap();
    let configmaps = factory.informer_for::<ConfigMap>();
    let fast_on_configmaps = configmaps.add_event_handler(HandlerFns::new()).unwrap();
    let gadget_registrations: Vec<_> = (0..CUSTOM_TYPES)
        .map(|i| {
            factory
                .dynamic_informer(gadget(i))
                .add_event_handler(HandlerFns::new())
                .unwrap()
        })
        .collect();
    factory.start();

    tokio::time::timeout(Duration::from_secs(30), async {
        fast_on_pods.wait_synced().await.unwrap();
        fast_on_configmaps.wait_synced().await.unwrap();
        for registration in &gadget_registrations {
            registration.wait_synced().await.unwrap();
        }
    })
    .await
    .expect("fast handlers synced while the slow one was still working");
    assert!(!slow.has_synced());
    assert!(slow_seen.load(Ordering::SeqCst) < 200);

    // A live change on another informer reaches its handler while the slow handler still works.
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    configmaps
        .add_event_handler(
            HandlerFns::new().add_fn(move |cm: &Arc<ConfigMap>, initial| {
                if !initial && cm.metadata.name.as_deref() == Some("late") {
                    counter.fetch_add(1, Ordering::SeqCst);
                }
            }),
        )
        .unwrap();
    let late = json!({"apiVersion": "v1", "kind": "ConfigMap",
                      "metadata": {"name": "late", "namespace": "default"}});
    sim.apply(ObjectOp::new(OpKind::Create, "configmaps", late))
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), async {
        while seen.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the new configmap reached its handler");
    assert!(!slow.has_synced(), "the slow handler is still blocked");
    drop(release);
    assert!(
        tokio::time::timeout(Duration::from_secs(30), slow.wait_synced())
            .await
            .unwrap()
            .is_ok()
    );
    assert_eq!(slow_seen.load(Ordering::SeqCst), 200);
    factory.shutdown().await;
}
