//! A shared pod informer with a `node` index, read through the index and a lister.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use kinformer::indexer::IndexFunc;
use kinformer::indexer::IndexRead;
use kinformer::informer::{Config, HandlerFns, SharedIndexInformer};
use kinformer::listwatch::ListWatch;
use kinformer::selector::LabelSelector;
use kinformer::sim::Sim;
use kinformer_examples::connect;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let conn = connect(Sim::builder().pods(2_000).namespaces(8).seed(42)).await?;
    let by_node = IndexFunc::new(|pod: &Pod| {
        Ok(pod
            .spec
            .as_ref()
            .and_then(|s| s.node_name.clone())
            .into_iter()
            .collect())
    });
    let informer: SharedIndexInformer<Pod> = SharedIndexInformer::new(
        ListWatch::<Pod, _>::for_type(conn.client.clone()),
        Config::default()
            .with_name("pods")
            .with_index("node", by_node)?,
    )?;
    informer.add_event_handler(HandlerFns::new().add_fn(|_: &Arc<Pod>, _initial| {}))?;
    let running = tokio::spawn({
        let informer = informer.clone();
        async move { informer.run().await }
    });
    informer.wait_for_cache_sync().await?;

    let indexer = informer.indexer();
    let mut per_node = BTreeMap::new();
    for node in indexer.list_index_func_values("node") {
        per_node.insert(node.clone(), indexer.by_index("node", &node)?.len());
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} pods cached on {} nodes",
        informer.lister().list(&LabelSelector::default()).len(),
        per_node.len()
    )?;
    for (node, count) in per_node.iter().take(5) {
        writeln!(out, "  {node}: {count} pods")?;
    }
    let selector = LabelSelector::parse("app in (web, api)")?;
    writeln!(
        out,
        "{} pods match {selector}",
        informer.lister().list(&selector).len()
    )?;
    if let Some(ns) = informer
        .lister()
        .list(&LabelSelector::default())
        .first()
        .and_then(|p| p.metadata.namespace.clone())
    {
        writeln!(
            out,
            "{} pods in namespace {ns}",
            informer
                .lister()
                .namespaced(ns.clone())
                .list(&LabelSelector::default())
                .len()
        )?;
    }
    informer.shutdown();
    running.await??;
    Ok(())
}
