//! A controller that owns pods as metadata only: each ReplicaSet gets the pods it asks for,
//! named after it and owned by it. The pods' informer holds `PartialObjectMetadata` (names,
//! labels, owners), which is all that counting and mapping a pod to its owner need, so a
//! controller owning 100,000 pods does not cache their specs and statuses. Deleting a
//! ReplicaSet deletes its pods: the garbage collector follows their owner references.

use std::io::Write as _;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::apps::v1::ReplicaSet;
use k8s_openapi::api::core::v1::Pod;
use kinformer::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kinformer::core::{ApiResource, Object, PartialObjectMetadata, StoreRead as _};
use kinformer::indexer::{IndexFunc, IndexRead as _};
use kinformer::informer::SharedIndexInformer;
use kinformer::informer::factory::{FactoryConfig, ResourceOptions, SharedInformerFactory};
use kinformer::rest::Client;
use kinformer::runtime::{Action, Controller, ControllerConfig};
use kinformer::sim::{Sim, wait_until};
use kinformer_examples::connect;
use serde_json::json;

const REPLICA_SETS: [(&str, i32); 3] = [("web", 3), ("api", 2), ("batch", 4)];

struct Context {
    client: Client,
    pods: SharedIndexInformer<PartialObjectMetadata>,
}

/// The pods a ReplicaSet has, counted in the metadata cache, and the ones it lacks created.
async fn reconcile(rs: Arc<ReplicaSet>, ctx: Arc<Context>) -> anyhow::Result<Action> {
    let namespace = rs.namespace().unwrap_or("default");
    let uid = rs.uid().unwrap_or_default();
    let owned = ctx.pods.indexer().by_index("owner", uid)?.len();
    let wanted = rs.spec.replicas.unwrap_or(1);
    let pods: Api<Pod> = Api::namespaced(ctx.client.clone(), namespace);
    let owner = ApiResource::of::<ReplicaSet>().controller_reference(&*rs);
    for i in owned..usize::try_from(wanted)? {
        let pod = json!({
            "metadata": {"name": format!("{}-{i}", rs.name()), "ownerReferences": [owner]},
            "spec": {"containers": [{"name": "app", "image": "nginx:latest"}]},
        });
        pods.create(&PostParams::default(), &serde_json::from_value(pod)?)
            .await?;
    }
    let status = json!({"status": {"replicas": wanted}});
    Api::<ReplicaSet>::namespaced(ctx.client.clone(), namespace)
        .patch_status(rs.name(), &PatchParams::default(), &Patch::Merge(&status))
        .await?;
    Ok(Action::await_change())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let conn = connect(Sim::builder()).await?;
    let factory = SharedInformerFactory::new(conn.client.clone(), FactoryConfig::default());
    // Pods by the uid of their controller owner: the one index this controller reads.
    let by_owner = IndexFunc::new(|pod: &PartialObjectMetadata| {
        let owners = pod.metadata.owner_references.iter().flatten();
        let controllers = owners.filter(|o| o.controller == Some(true));
        Ok(controllers.map(|o| o.uid.clone()).collect())
    });
    let pods = factory.informer_with(
        ResourceOptions::metadata(ApiResource::of::<Pod>()).with_index("owner", by_owner)?,
    )?;
    let config = ControllerConfig::default().with_name("owned-pods");
    let controller = Controller::for_type(factory.informer_for::<ReplicaSet>(), config).owns(&pods);
    factory.start();
    let context = Arc::new(Context {
        client: conn.client.clone(),
        pods: pods.clone(),
    });
    let policy = |_: Arc<ReplicaSet>, _: &anyhow::Error, _: Arc<Context>| Action::backoff();
    let running = tokio::spawn(controller.run(reconcile, policy, context));

    let sets: Api<ReplicaSet> = Api::namespaced(conn.client.clone(), "default");
    for (name, replicas) in REPLICA_SETS {
        let labels = json!({"app": name});
        let rs = json!({"metadata": {"name": name}, "spec": {"replicas": replicas,
            "selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}}}});
        sets.create(&PostParams::default(), &serde_json::from_value(rs)?)
            .await?;
    }
    let total: i32 = REPLICA_SETS.iter().map(|(_, r)| r).sum();
    let cached = || pods.indexer().len();
    wait_until("every pod created", Duration::from_secs(30), || async {
        cached() == usize::try_from(total).unwrap_or_default()
    })
    .await;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} replicasets, {} pods cached as metadata",
        REPLICA_SETS.len(),
        cached()
    )?;

    sets.delete("web", &DeleteParams::background()).await?;
    wait_until("web's pods collected", Duration::from_secs(30), || async {
        cached() == usize::try_from(total - REPLICA_SETS[0].1).unwrap_or_default()
    })
    .await;
    writeln!(out, "web deleted: its pods collected, {} left", cached())?;
    running.abort();
    factory.shutdown().await;
    Ok(())
}
