//! Server-side apply: create, update, no-op, conflicts and force.

use kinformer_api::{Error, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::common::{configmap, configmaps, rv, sim};

fn desired(data: Value) -> Patch<Value> {
    Patch::Apply(json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "applied"},
        "data": data,
    }))
}

#[tokio::test]
async fn apply_creates_then_updates_and_an_unchanged_apply_changes_nothing() {
    let (sim, client) = sim().await;
    let api = configmaps(&client);
    let params = PatchParams::apply("controller-a").unwrap();
    let created = api
        .patch("applied", &params, &desired(json!({"k": "1"})))
        .await
        .unwrap();
    assert_eq!(created.data.as_ref().unwrap()["k"], "1");
    let managers: Vec<&str> = created
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .filter_map(|m| m.manager.as_deref())
        .collect();
    assert_eq!(managers, ["controller-a"]);

    let updated = api
        .patch("applied", &params, &desired(json!({"k": "2"})))
        .await
        .unwrap();
    assert_eq!(updated.data.as_ref().unwrap()["k"], "2");
    assert_ne!(rv(&updated.metadata), rv(&created.metadata));

    sim.clear_requests().await;
    let again = api
        .patch("applied", &params, &desired(json!({"k": "2"})))
        .await
        .unwrap();
    assert_eq!(rv(&again.metadata), rv(&updated.metadata));
    assert_eq!(sim.requests().await.len(), 1);
}

#[tokio::test]
async fn an_apply_conflict_names_the_managers_and_fields_and_force_takes_them() {
    let (_sim, client) = sim().await;
    let api = configmaps(&client);
    api.patch(
        "applied",
        &PatchParams::apply("a").unwrap(),
        &desired(json!({"k": "a"})),
    )
    .await
    .unwrap();
    let err = api
        .patch(
            "applied",
            &PatchParams::apply("b").unwrap(),
            &desired(json!({"k": "b"})),
        )
        .await
        .unwrap_err();
    let Error::Conflict {
        field_conflicts, ..
    } = &err
    else {
        panic!("expected an apply conflict, got {err:?}");
    };
    let named: Vec<(&str, &str)> = field_conflicts
        .iter()
        .map(|c| (c.manager.as_str(), c.field.as_str()))
        .collect();
    assert_eq!(named, [("a", ".data.k")]);

    let forced = api
        .patch(
            "applied",
            &PatchParams::apply("b").unwrap().with_force(true),
            &desired(json!({"k": "b"})),
        )
        .await
        .unwrap();
    assert_eq!(forced.data.unwrap()["k"], "b");
}

#[tokio::test]
async fn an_apply_takes_fields_from_an_update_only_with_force() {
    let (_sim, client) = sim().await;
    let api = configmaps(&client);
    api.create(
        &PostParams::default().with_field_manager("editor").unwrap(),
        &configmap("applied", &[("k", "edited")]),
    )
    .await
    .unwrap();
    let err = api
        .patch(
            "applied",
            &PatchParams::apply("ctl").unwrap(),
            &desired(json!({"k": "mine"})),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Conflict { field_conflicts, .. }
            if field_conflicts.iter().any(|c| c.manager == "editor")),
        "{err:?}"
    );
}

#[tokio::test]
async fn apply_without_a_field_manager_is_refused_unsent() {
    let (sim, client) = sim().await;
    let api = configmaps(&client);
    sim.clear_requests().await;
    let err = api
        .patch("applied", &PatchParams::default(), &desired(json!({})))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Usage(_)), "{err:?}");
    assert!(sim.requests().await.is_empty());
}
