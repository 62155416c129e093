//! Optimistic concurrency, retry on conflict, patches, dry runs and delete preconditions.

use std::sync::atomic::{AtomicU32, Ordering};

use kinformer_api::{
    DeleteParams, Error, JsonPatchOp, Patch, PatchParams, PostParams, retry_on_conflict,
};
use kinformer_core::Backoff;
use serde_json::json;

use crate::common::{NS, configmap, configmaps, deployment, rv, sim};

#[tokio::test]
async fn a_stale_resource_version_is_a_conflict() {
    let (_sim, client) = sim().await;
    let api = configmaps(&client);
    let first = api
        .create(&PostParams::default(), &configmap("a", &[("k", "1")]))
        .await
        .unwrap();
    let mut newer = first.clone();
    newer
        .data
        .get_or_insert_default()
        .insert("k".into(), "2".into());
    api.replace("a", &PostParams::default(), &newer)
        .await
        .unwrap();

    let mut stale = first;
    stale
        .data
        .get_or_insert_default()
        .insert("k".into(), "3".into());
    let err = api
        .replace("a", &PostParams::default(), &stale)
        .await
        .unwrap_err();
    let Error::Conflict {
        field_conflicts, ..
    } = &err
    else {
        panic!("expected a conflict, got {err:?}");
    };
    assert!(field_conflicts.is_empty());
    assert_eq!(api.get("a").await.unwrap().data.unwrap()["k"], "2");
}

#[tokio::test]
async fn retry_on_conflict_succeeds_after_a_concurrent_write() {
    let (_sim, client) = sim().await;
    let api = configmaps(&client);
    api.create(&PostParams::default(), &configmap("counter", &[("n", "0")]))
        .await
        .unwrap();
    let tries = AtomicU32::new(0);
    let done = retry_on_conflict(Backoff::DEFAULT_RETRY, || async {
        let mut cm = api.get("counter").await?;
        if tries.fetch_add(1, Ordering::Relaxed) == 0 {
            // Another writer gets in between this read and this write.
            let mut other = cm.clone();
            other
                .data
                .get_or_insert_default()
                .insert("n".into(), "10".into());
            api.replace("counter", &PostParams::default(), &other)
                .await?;
        }
        let data = cm.data.get_or_insert_default();
        let n: u32 = data["n"].parse().expect("a number");
        data.insert("n".into(), (n + 1).to_string());
        api.replace("counter", &PostParams::default(), &cm).await
    })
    .await
    .unwrap();
    assert_eq!(tries.load(Ordering::Relaxed), 2);
    assert_eq!(done.data.unwrap()["n"], "11");
}

#[tokio::test]
async fn json_merge_and_strategic_patches() {
    let (_sim, client) = sim().await;
    let api = configmaps(&client);
    api.create(
        &PostParams::default(),
        &configmap("a", &[("k", "1"), ("gone", "x")]),
    )
    .await
    .unwrap();
    let merge = Patch::Merge(json!({"data": {"gone": null, "m": "2"}}));
    let cm = api
        .patch("a", &PatchParams::default(), &merge)
        .await
        .unwrap();
    let data = cm.data.unwrap();
    assert_eq!((data.get("gone"), data["m"].as_str()), (None, "2"));

    let ops = Patch::Json(vec![
        JsonPatchOp::test("/data/k", "1"),
        JsonPatchOp::replace("/data/k", "json"),
    ]);
    let cm = api.patch("a", &PatchParams::default(), &ops).await.unwrap();
    assert_eq!(cm.data.unwrap()["k"], "json");
    let failed_test = Patch::Json(json!([{"op": "test", "path": "/data/k", "value": "1"}]));
    assert!(
        api.patch("a", &PatchParams::default(), &failed_test)
            .await
            .is_err()
    );

    // A strategic merge patch merges the containers list by name instead of replacing it.
    let deployments = kinformer_api::Api::namespaced(client.clone(), NS);
    deployments
        .create(&PostParams::default(), &deployment("web", 1))
        .await
        .unwrap();
    let sidecar = Patch::Strategic(json!({"spec": {"template": {"spec": {"containers": [
        {"name": "sidecar", "image": "envoy:1"}
    ]}}}}));
    let web: k8s_openapi::api::apps::v1::Deployment = deployments
        .patch("web", &PatchParams::default(), &sidecar)
        .await
        .unwrap();
    let containers = web.spec.template.spec.unwrap().containers;
    let names: Vec<&str> = containers.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.contains(&"web") && names.contains(&"sidecar"));
}

#[tokio::test]
async fn dry_runs_leave_nothing() {
    let (sim, client) = sim().await;
    let api = configmaps(&client);
    let dry = api
        .create(
            &PostParams::default().with_dry_run(true),
            &configmap("ghost", &[("k", "v")]),
        )
        .await
        .unwrap();
    assert_eq!(dry.data.unwrap()["k"], "v");
    assert!(api.get_opt("ghost").await.unwrap().is_none());

    let real = api
        .create(&PostParams::default(), &configmap("a", &[("k", "1")]))
        .await
        .unwrap();
    let revision = sim.stats().await.revision;
    let mut changed = real.clone();
    changed
        .data
        .get_or_insert_default()
        .insert("k".into(), "2".into());
    let answered = api
        .replace("a", &PostParams::default().with_dry_run(true), &changed)
        .await
        .unwrap();
    assert_eq!(answered.data.unwrap()["k"], "2");
    let merge = Patch::Merge(json!({"data": {"k": "3"}}));
    api.patch("a", &PatchParams::default().with_dry_run(true), &merge)
        .await
        .unwrap();
    let apply = Patch::Apply(json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "a"}, "data": {"k": "4"}}));
    api.patch(
        "a",
        &PatchParams::apply("m")
            .unwrap()
            .with_force(true)
            .with_dry_run(true),
        &apply,
    )
    .await
    .unwrap();
    api.delete("a", &DeleteParams::default().with_dry_run(true))
        .await
        .unwrap();

    let stored = api.get("a").await.unwrap();
    assert_eq!(stored.data.unwrap()["k"], "1");
    assert_eq!(rv(&stored.metadata), rv(&real.metadata));
    assert_eq!(sim.stats().await.revision, revision);
}

#[tokio::test]
async fn delete_preconditions_must_hold() {
    let (_sim, client) = sim().await;
    let api = configmaps(&client);
    let cm = api
        .create(&PostParams::default(), &configmap("a", &[]))
        .await
        .unwrap();
    let wrong_uid = DeleteParams::default().with_uid("not-the-uid");
    let err = api.delete("a", &wrong_uid).await.unwrap_err();
    assert!(err.is_conflict(), "{err:?}");

    let mut touched = cm.clone();
    touched.metadata.labels = Some([("touched".to_owned(), "yes".to_owned())].into());
    api.replace("a", &PostParams::default(), &touched)
        .await
        .unwrap();
    let stale = DeleteParams::default().with_resource_version(rv(&cm.metadata));
    let err = api.delete("a", &stale).await.unwrap_err();
    assert!(err.is_conflict(), "{err:?}");
    assert!(api.get_opt("a").await.unwrap().is_some());

    let current = api.get("a").await.unwrap();
    let exact = DeleteParams::default()
        .with_uid(current.metadata.uid.clone().unwrap())
        .with_resource_version(rv(&current.metadata));
    api.delete("a", &exact).await.unwrap();
    assert!(api.get_opt("a").await.unwrap().is_none());
}

#[tokio::test]
async fn an_invalid_object_names_its_fields() {
    let (_sim, client) = sim().await;
    let api = configmaps(&client);
    let nameless = configmap("", &[]);
    let err = api
        .create(&PostParams::default(), &nameless)
        .await
        .unwrap_err();
    let Error::Invalid { causes, .. } = &err else {
        panic!("expected Invalid, got {err:?}");
    };
    assert!(
        causes.iter().any(|c| c.field == "metadata.name"),
        "{causes:?}"
    );
}
