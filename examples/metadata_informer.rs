//! A metadata-only informer of pods: the server sends `PartialObjectMetadata` (names, labels,
//! annotations, owners, versions), so neither the wire nor the cache carries a spec or a status.
//! Controllers that only need to know what exists and who owns it (garbage collection, quota,
//! owner lookups) cache a fraction of the bytes this way.

use std::io::Write as _;
use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use kinformer::core::{ApiResource, PartialObjectMetadata, StoreRead as _};
use kinformer::indexer::IndexFunc;
use kinformer::indexer::IndexRead;
use kinformer::informer::{Config, HandlerFns, SharedIndexInformer};
use kinformer::listwatch::ListWatch;
use kinformer::rest::RestClient;
use kinformer::sim::Sim;
use kinformer_examples::connect;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let conn = connect(Sim::builder().pods(1_000).namespaces(4).seed(5)).await?;
    let pods = ApiResource::of::<Pod>();
    let source = ListWatch::metadata(RestClient::for_resource(conn.client.clone(), &pods), pods);
    // Pods by the name of the object that owns them (a ReplicaSet, say).
    let by_owner = IndexFunc::new(|pod: &PartialObjectMetadata| {
        Ok(pod
            .metadata
            .owner_references
            .iter()
            .flatten()
            .map(|owner| owner.name.clone())
            .collect())
    });
    let informer = SharedIndexInformer::new(
        source,
        Config::default()
            .with_name("pods")
            .with_index("owner", by_owner)?,
    )?;
    informer.add_event_handler(HandlerFns::new().add_fn(|_: &Arc<PartialObjectMetadata>, _| {}))?;
    let running = tokio::spawn({
        let informer = informer.clone();
        async move { informer.run().await }
    });
    informer.wait_for_cache_sync().await?;

    let indexer = informer.indexer();
    let owners = indexer.list_index_func_values("owner");
    let busiest = owners
        .iter()
        .map(|owner| Ok((indexer.by_index("owner", owner)?.len(), owner.clone())))
        .collect::<anyhow::Result<Vec<_>>>()?
        .into_iter()
        .max();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} pods cached as metadata, owned by {} objects",
        indexer.len(),
        owners.len()
    )?;
    if let Some((count, owner)) = busiest {
        writeln!(out, "busiest owner: {owner} with {count} pods")?;
    }
    let sample = &indexer.list()[0];
    writeln!(
        out,
        "each is a {} of {}",
        sample.kind(),
        sample.api_version()
    )?;
    drop(out);
    informer.shutdown();
    running.await??;
    Ok(())
}
