//! The status and scale subresources of a Deployment.

use k8s_openapi::api::apps::v1::{Deployment, DeploymentStatus};
use kinformer_api::{Api, Patch, PatchParams, PostParams};
use serde_json::json;

use crate::common::{NS, deployment, sim};

fn deployments(client: &kinformer_rest::Client) -> Api<Deployment> {
    Api::namespaced(client.clone(), NS)
}

#[tokio::test]
async fn status_writes_change_status_only_and_main_writes_spec_only() {
    let (_sim, client) = sim().await;
    let api = deployments(&client);
    let created = api
        .create(&PostParams::default(), &deployment("web", 1))
        .await
        .unwrap();
    assert_eq!(created.metadata.generation, Some(1));

    let mut web = api.get_status("web").await.unwrap();
    web.status = Some(DeploymentStatus {
        observed_generation: Some(1),
        replicas: Some(1),
        ..DeploymentStatus::default()
    });
    web.spec.replicas = Some(9); // ignored through /status
    let written = api
        .replace_status("web", &PostParams::default(), &web)
        .await
        .unwrap();
    assert_eq!(
        written.status.as_ref().unwrap().observed_generation,
        Some(1)
    );
    assert_eq!(written.spec.replicas, Some(1));
    assert_eq!(written.metadata.generation, Some(1));

    let patched = api
        .patch_status(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"readyReplicas": 1}, "spec": {"replicas": 7}})),
        )
        .await
        .unwrap();
    assert_eq!(patched.status.as_ref().unwrap().ready_replicas, Some(1));
    assert_eq!(patched.spec.replicas, Some(1));

    // The main resource ignores status, and a spec change bumps the generation.
    let main = api
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"readyReplicas": 5}, "spec": {"replicas": 2}})),
        )
        .await
        .unwrap();
    assert_eq!(main.status.as_ref().unwrap().ready_replicas, Some(1));
    assert_eq!(main.spec.replicas, Some(2));
    assert_eq!(main.metadata.generation, Some(2));
}

#[tokio::test]
async fn scale_reads_and_writes_the_replicas() {
    let (_sim, client) = sim().await;
    let api = deployments(&client);
    api.create(&PostParams::default(), &deployment("web", 2))
        .await
        .unwrap();
    let mut scale = api.get_scale("web").await.unwrap();
    assert_eq!(scale.spec.as_ref().unwrap().replicas, Some(2));
    assert_eq!(scale.metadata.name.as_deref(), Some("web"));

    scale.spec.get_or_insert_default().replicas = Some(4);
    let scale = api
        .replace_scale("web", &PostParams::default(), &scale)
        .await
        .unwrap();
    assert_eq!(scale.spec.unwrap().replicas, Some(4));
    assert_eq!(api.get("web").await.unwrap().spec.replicas, Some(4));

    let patch = Patch::Merge(json!({"spec": {"replicas": 6}}));
    let scale = api
        .patch_scale("web", &PatchParams::default(), &patch)
        .await
        .unwrap();
    assert_eq!(scale.spec.unwrap().replicas, Some(6));
    assert_eq!(api.get("web").await.unwrap().spec.replicas, Some(6));
}
