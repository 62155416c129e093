//! A custom resource registered at run time, cached as `DynamicObject`s.

use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use kinformer::core::{ApiResource, DynamicObject, Object, Scope, StoreRead as _};
use kinformer::informer::{Config, HandlerFns, SharedIndexInformer};
use kinformer::listwatch::ListWatch;
use kinformer::sim::{CustomResource, ObjectOp, OpKind, Sim};
use kinformer_examples::connect;
use serde_json::json;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let conn = connect(Sim::builder()).await?;
    if let Some(sim) = &conn.sim {
        sim.register(CustomResource::new(
            "example.com",
            "v1",
            "Widget",
            "widgets",
            Scope::Namespaced,
        ))
        .await?;
        for i in 0..5 {
            let widget = json!({
                "apiVersion": "example.com/v1", "kind": "Widget",
                "metadata": {"name": format!("w{i}"), "namespace": "default", "labels": {"size": if i % 2 == 0 { "small" } else { "large" }}},
                "spec": {"replicas": i}
            });
            sim.apply(ObjectOp::new(OpKind::Create, "widgets", widget).namespace("default"))
                .await?;
        }
    }
    let resource = ApiResource::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced);
    let informer: SharedIndexInformer<DynamicObject> = SharedIndexInformer::new(
        ListWatch::<DynamicObject, _>::from_client(conn.client.clone(), resource),
        Config::default().with_name("widgets"),
    )?;
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&seen);
    let registration = informer.add_event_handler(HandlerFns::new().add_fn(
        move |_: &Arc<DynamicObject>, _| {
            counter.fetch_add(1, Ordering::Relaxed);
        },
    ))?;
    let running = tokio::spawn({
        let informer = informer.clone();
        async move { informer.run().await }
    });
    informer.wait_for_cache_sync().await?;
    // The handler runs on its own task: wait until it has seen the initial list too.
    registration.wait_synced().await?;
    let mut out = std::io::stdout().lock();
    let mut widgets = informer.indexer().list();
    widgets.sort_by(|a, b| a.name().cmp(b.name()));
    for w in &widgets {
        writeln!(
            out,
            "{}/{} replicas={}",
            w.namespace().unwrap_or(""),
            w.name(),
            w.data["spec"]["replicas"]
        )?;
    }
    writeln!(
        out,
        "{} widgets cached, {} adds handled",
        widgets.len(),
        seen.load(Ordering::Relaxed)
    )?;
    if conn.sim.is_some() {
        anyhow::ensure!(widgets.len() == 5, "expected the 5 widgets created above");
    }
    informer.shutdown();
    running.await??;
    Ok(())
}
