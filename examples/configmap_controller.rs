//! The controller pattern: informer -> rate-limited workqueue -> two workers reconciling configmaps.
//!
//! Reconciling a configmap stamps the annotation `example.kinformer.dev/reconciled` with its
//! `data` size, by a server-side apply of that one annotation through the typed `Api`, as the
//! controller's own field manager. The stamp itself comes back as an update, is seen to be
//! current, and is not written again: reconciliation is idempotent, as a controller's must be.
//!
//! The informer and the queue report to one Prometheus registry, printed at the end as a
//! `/metrics` endpoint would serve it.

use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer::api::{Api, Patch, PatchParams};
use kinformer::core::{ApiResource, DeletedState, ObjectMeta, StoreRead as _, object_key};
use kinformer::informer::{Config, HandlerFns, InformerMetrics, SharedIndexInformer};
use kinformer::listwatch::ListWatch;
use kinformer::rest::Client;
use kinformer::sim::Sim;
use kinformer::workqueue::{
    QueueConfig, RateLimitingQueue, WorkqueueMetrics, default_controller_rate_limiter,
};
use kinformer_examples::connect;
use prometheus_client::registry::Registry;

const ANNOTATION: &str = "example.kinformer.dev/reconciled";
/// The field manager this controller applies as: it owns the annotation, nothing else.
const MANAGER: &str = "configmap-stamper";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let conn = connect(Sim::builder().configmaps(300).namespaces(4).seed(9)).await?;
    let mut registry = Registry::default();
    let informer_metrics = InformerMetrics::register(&mut registry);
    let queue_metrics = WorkqueueMetrics::register(&mut registry);
    let configmaps = ApiResource::of::<ConfigMap>();
    let informer: SharedIndexInformer<ConfigMap> = SharedIndexInformer::new(
        ListWatch::<ConfigMap, _>::for_type(conn.client.clone()),
        Config::default()
            .with_name("configmaps")
            .with_metrics(informer_metrics.for_informer("configmaps", &configmaps)),
    )?;
    let queue: RateLimitingQueue<String> = RateLimitingQueue::with_rate_limiter(
        default_controller_rate_limiter(),
        QueueConfig::default()
            .with_name("configmaps")
            .with_metrics(queue_metrics.for_queue("configmaps")),
    );
    let enqueue = |queue: &RateLimitingQueue<String>| {
        let (a, u, d) = (queue.clone(), queue.clone(), queue.clone());
        HandlerFns::new()
            .add_fn(move |cm: &Arc<ConfigMap>, _| a.add(object_key(cm.as_ref())))
            .update_fn(move |_: &Arc<ConfigMap>, cm: &Arc<ConfigMap>| {
                u.add(object_key(cm.as_ref()))
            })
            .delete_fn(move |s: &DeletedState<ConfigMap>| d.add(object_key(s.object().as_ref())))
    };
    let registration = informer.add_event_handler(enqueue(&queue))?;
    informer_metrics.track_handler("configmaps", &configmaps, "enqueue", &registration);
    let running = tokio::spawn({
        let informer = informer.clone();
        async move { informer.run().await }
    });
    informer.wait_for_cache_sync().await?;

    let writes = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let (queue, informer, client, writes) = (
                queue.clone(),
                informer.clone(),
                conn.client.clone(),
                Arc::clone(&writes),
            );
            tokio::spawn(async move {
                while let Some(key) = queue.get().await {
                    match reconcile(&client, &informer, &key).await {
                        Ok(wrote) => {
                            writes.fetch_add(usize::from(wrote), Ordering::Relaxed);
                            queue.forget(&key);
                        }
                        Err(_) => queue.add_rate_limited(key.clone()),
                    }
                    queue.done(&key);
                }
            })
        })
        .collect();

    // Wait until every cached configmap carries a current stamp.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let cached = informer.indexer().list();
        let pending = cached.iter().filter(|cm| !is_current(cm)).count();
        if pending == 0 || tokio::time::Instant::now() > deadline {
            writeln!(
                std::io::stdout().lock(),
                "reconciled {} configmaps with {} writes; {pending} pending",
                cached.len(),
                writes.load(Ordering::Relaxed)
            )?;
            anyhow::ensure!(
                pending == 0,
                "{pending} configmaps were not reconciled in time"
            );
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut scrape = String::new();
    prometheus_client::encoding::text::encode(&mut scrape, &registry)?;
    let mut out = std::io::stdout().lock();
    for line in scrape.lines().filter(|l| !l.starts_with('#')) {
        writeln!(out, "metric {line}")?;
    }
    drop(out);
    queue.shutdown_with_drain().await;
    for w in workers {
        w.await?;
    }
    informer.shutdown();
    running.await??;
    Ok(())
}

fn stamp(cm: &ConfigMap) -> String {
    cm.data.as_ref().map_or(0, |d| d.len()).to_string()
}

fn is_current(cm: &ConfigMap) -> bool {
    cm.metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(ANNOTATION))
        == Some(&stamp(cm))
}

/// Stamps the configmap unless the cached copy is current; returns whether it wrote.
async fn reconcile(
    client: &Client,
    informer: &SharedIndexInformer<ConfigMap>,
    key: &str,
) -> anyhow::Result<bool> {
    let Some(cm) = informer.indexer().get_by_key(key) else {
        return Ok(false); // deleted: nothing to do
    };
    if is_current(&cm) {
        return Ok(false);
    }
    let (Some(ns), Some(name)) = (
        cm.metadata.namespace.as_deref(),
        cm.metadata.name.as_deref(),
    ) else {
        return Ok(false);
    };
    // The apply names only the field this controller owns; the rest of the object is left to
    // whoever manages it.
    let desired = ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            annotations: Some([(ANNOTATION.to_owned(), stamp(&cm))].into()),
            ..ObjectMeta::default()
        },
        ..ConfigMap::default()
    };
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), ns);
    configmaps
        .patch(name, &PatchParams::apply(MANAGER)?, &Patch::Apply(&desired))
        .await?;
    Ok(true)
}
