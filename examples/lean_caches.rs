//! Two lean pod caches side by side over the same pods: a projected informer (the parser keeps
//! metadata, the node, the phase and the containers' names and images, and skips every other
//! field without building it) and a compact one (whole pods, each held as its JSON and decoded
//! when read). A node-placement controller that needs only where pods run and what they run
//! takes the first; one that needs whole pods but reads few of them takes the second.

use std::io::Write as _;

use k8s_openapi::api::core::v1::Pod;
use kinformer::core::{Fields, Holding, Object, ObjectShape, Projection, StoreRead as _};
use kinformer::indexer::IndexFunc;
use kinformer::indexer::IndexRead;
use kinformer::informer::{Config, SharedIndexInformer};
use kinformer::listwatch::ListWatch;
use kinformer::sim::Sim;
use kinformer_examples::connect;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let conn = connect(Sim::builder().pods(1_000).namespaces(4).seed(6)).await?;
    let by_node = || {
        IndexFunc::new(|pod: &Pod| {
            Ok(pod
                .spec
                .as_ref()
                .and_then(|spec| spec.node_name.clone())
                .into_iter()
                .collect())
        })
    };
    let keep = Projection::keep([
        "spec.nodeName",
        "status.phase",
        "spec.containers[].name",
        "spec.containers[].image",
    ])?;
    let projected = SharedIndexInformer::new(
        ListWatch::<Pod, _>::for_type(conn.client.clone()),
        Config::default()
            .with_name("pods")
            .with_index("node", by_node())?
            .with_shape(ObjectShape::default().with_fields(Fields::projected(keep))),
    )?;
    let compact = SharedIndexInformer::new(
        ListWatch::<Pod, _>::for_type(conn.client.clone()),
        Config::default()
            .with_name("pods")
            .with_index("node", by_node())?
            .with_shape(ObjectShape::default().with_holding(Holding::Compact)),
    )?;
    let running = [projected.clone(), compact.clone()]
        .map(|informer| tokio::spawn(async move { informer.run().await }));
    projected.wait_for_cache_sync().await?;
    compact.wait_for_cache_sync().await?;

    let mut out = std::io::stdout().lock();
    let node = projected
        .indexer()
        .list_index_func_values("node")
        .into_iter()
        .next()
        .unwrap_or_default();
    let placed = projected.indexer().by_index("node", &node)?;
    writeln!(
        out,
        "projected: {} pods cached, {} on {node}",
        projected.indexer().len(),
        placed.len()
    )?;
    let sample = &placed[0];
    let spec = sample.spec.as_ref();
    let container = spec.and_then(|s| s.containers.first());
    writeln!(
        out,
        "projected: {} runs {} ({}); env kept: {}, volumes kept: {}",
        sample.name(),
        container.and_then(|c| c.image.as_deref()).unwrap_or("?"),
        sample
            .status
            .as_ref()
            .and_then(|s| s.phase.as_deref())
            .unwrap_or("?"),
        container.is_some_and(|c| c.env.is_some()),
        spec.is_some_and(|s| s.volumes.is_some()),
    )?;

    // The compact cache answers the index without decoding, and decodes the pods it returns.
    let whole = compact.indexer().by_index("node", &node)?;
    writeln!(
        out,
        "compact: {} pods cached, {} on {node}, read back whole: {}",
        compact.indexer().len(),
        whole.len(),
        whole
            .iter()
            .all(|pod| pod.spec.as_ref().is_some_and(|s| s.volumes.is_some())),
    )?;
    drop(out);
    projected.shutdown();
    compact.shutdown();
    for informer in running {
        informer.await??;
    }
    Ok(())
}
