//! The Prometheus metrics of an informer running against the sim (the `prometheus` feature).

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::ApiResource;
use kinformer_listwatch::ListWatch;
use kinformer_rest::Client;
use kinformer_sim::{DropMode, Sim};
use prometheus_client::registry::Registry;

use kinformer_informer::{Config, HandlerFns, InformerMetrics, SharedIndexInformer};

fn scrape(registry: &Registry) -> String {
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, registry).unwrap();
    text
}

/// The value of the sample whose line starts with `prefix`.
fn sample(text: &str, prefix: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(prefix))
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
}

async fn until_scraped(registry: &Registry, limit: Duration, wanted: &str) {
    tokio::time::timeout(limit, async {
        while !scrape(registry).contains(wanted) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("never scraped {wanted}:\n{}", scrape(registry)));
}

const REFLECTOR: &str = r#"{name="pods",resource_type="Pod"}"#;
const INFORMER: &str = r#"{name="pods",group="",version="v1",resource="pods"}"#;
const HANDLER: &str = r#"{name="pods",group="",version="v1",resource="pods",handler="slow"}"#;

/// client-go's reflector, fifo and listener metrics providers (component-base's
/// `reflector_*`, `informer_queued_items`, `informer_processing_latency_seconds`,
/// `informer_store_resource_version`, `informer_pending_notifications`, and
/// `informer_event_process_duration_seconds`), fed by one informer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_informer_reports_client_gos_reflector_and_informer_metrics() {
    let sim = Sim::builder().pods(30).seed(4).start().await.unwrap();
    let mut registry = Registry::default();
    let metrics = InformerMetrics::register(&mut registry);
    let pods = ApiResource::of::<Pod>();
    let source = ListWatch::<Pod, _>::for_type(Client::new(sim.service()));
    let informer = SharedIndexInformer::new(
        source,
        Config::default()
            .with_name("pods")
            .with_metrics(metrics.for_informer("pods", &pods)),
    )
    .unwrap();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let released = Mutex::new(released);
    let slow = informer
        .add_event_handler(HandlerFns::new().add_fn(move |_: &Arc<Pod>, _| {
            // 50 ms of blocking work per pod, until the test drops `release`.
            let _ = released
                .lock()
                .unwrap()
                .recv_timeout(Duration::from_millis(50));
        }))
        .unwrap();
    metrics.track_handler("pods", &pods, "slow", &slow);
    let runner = common::spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();
    // The slow handler has most of the initial list in its buffer.
    let text = scrape(&registry);
    let pending = format!("informer_pending_notifications{HANDLER}");
    let backlog = sample(&text, &pending).expect("the handler's backlog is reported");
    assert!(backlog >= 10.0, "{text}");
    drop(release);
    assert!(
        text.contains(&format!("reflector_lists_total{REFLECTOR} 1")),
        "{text}"
    );
    assert!(text.contains(&format!(
        "reflector_list_duration_seconds_count{REFLECTOR} 1"
    )));
    assert!(
        text.contains(&format!("reflector_listed_items{REFLECTOR} 30")),
        "{text}"
    );
    // Set as items are processed, so possibly just after the sync is seen.
    until_scraped(
        &registry,
        Duration::from_secs(5),
        &format!("informer_store_items{INFORMER} 30"),
    )
    .await;
    let rv = sim.stats().await.revision;
    until_scraped(
        &registry,
        Duration::from_secs(5),
        &format!("reflector_last_resource_version{REFLECTOR} {rv}"),
    )
    .await;
    let text = scrape(&registry);
    assert!(
        text.contains(&format!("informer_store_resource_version{INFORMER} {rv}")),
        "{text}"
    );
    assert!(
        text.contains(&format!("informer_queued_items{INFORMER} 0")),
        "{text}"
    );
    let processed = sample(
        &text,
        &format!("informer_processing_latency_seconds_count{INFORMER}"),
    );
    assert!(processed.is_some_and(|n| n >= 1.0), "{text}");
    // Every call of the tracked handler is timed, once its backlog drains.
    let calls = format!("informer_event_process_duration_seconds_count{HANDLER} 30");
    until_scraped(&registry, Duration::from_secs(10), &calls).await;

    // A 410 on the watch ends it and makes the reflector list again: a relist.
    tokio::time::timeout(Duration::from_secs(10), async {
        while sim.stats().await.open_watches == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap();
    sim.drop_watches(DropMode::Error410).await;
    let relisted = format!("reflector_relists_total{REFLECTOR} 1");
    until_scraped(&registry, Duration::from_secs(20), &relisted).await;
    let text = scrape(&registry);
    assert!(
        text.contains(&format!("reflector_lists_total{REFLECTOR} 2")),
        "{text}"
    );
    let watches = sample(&text, &format!("reflector_watches_total{REFLECTOR}"));
    assert!(watches.is_some_and(|n| n >= 1.0), "{text}");
    let watch_ends = sample(
        &text,
        &format!("reflector_watch_duration_seconds_count{REFLECTOR}"),
    );
    assert!(watch_ends.is_some_and(|n| n >= 1.0), "{text}");

    // A removed handler is no longer reported.
    informer.remove_event_handler(&slow);
    let text = scrape(&registry);
    assert!(!text.contains("informer_pending_notifications"), "{text}");
    assert!(
        !text.contains("informer_event_process_duration_seconds"),
        "{text}"
    );
    informer.shutdown();
    runner.await.unwrap().unwrap();
}
