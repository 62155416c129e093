//! get, get_opt, list, create, replace, delete, delete_collection.

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_api::{Api, DeleteParams, Either, Error, PostParams};
use kinformer_core::ListOptions;
use kinformer_sim::{Fault, FaultKind};

use crate::common::{NS, configmap, configmaps, rv, sim, sorted_names};

#[tokio::test]
async fn create_get_replace_round_trip() {
    let (_sim, client) = sim().await;
    let api = configmaps(&client);
    let created = api
        .create(&PostParams::default(), &configmap("a", &[("k", "1")]))
        .await
        .unwrap();
    assert_eq!(created.metadata.namespace.as_deref(), Some(NS));
    assert!(created.metadata.uid.is_some());

    let mut read = api.get("a").await.unwrap();
    assert_eq!(read.metadata.uid, created.metadata.uid);
    read.data
        .get_or_insert_default()
        .insert("k".into(), "2".into());
    let replaced = api
        .replace("a", &PostParams::default(), &read)
        .await
        .unwrap();
    assert_eq!(replaced.data.unwrap()["k"], "2");
    assert_ne!(rv(&replaced.metadata), rv(&created.metadata));
}

#[tokio::test]
async fn missing_objects_are_not_found_and_get_opt_is_none() {
    let (_sim, client) = sim().await;
    let api = configmaps(&client);
    let err = api.get("nope").await.unwrap_err();
    assert!(matches!(err, Error::NotFound(_)), "{err:?}");
    assert_eq!(err.status().and_then(|s| s.code), Some(404));
    assert!(api.get_opt("nope").await.unwrap().is_none());
    let err = api
        .replace("nope", &PostParams::default(), &configmap("nope", &[]))
        .await
        .unwrap_err();
    assert!(err.is_not_found(), "{err:?}");
    let err = api
        .delete("nope", &DeleteParams::default())
        .await
        .unwrap_err();
    assert!(err.is_not_found(), "{err:?}");
}

#[tokio::test]
async fn creating_an_existing_name_is_already_exists() {
    let (_sim, client) = sim().await;
    let api = configmaps(&client);
    api.create(&PostParams::default(), &configmap("a", &[]))
        .await
        .unwrap();
    let err = api
        .create(&PostParams::default(), &configmap("a", &[]))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::AlreadyExists(_)), "{err:?}");
}

#[tokio::test]
async fn list_follows_every_page_across_namespaces() {
    let (_sim, client) = sim().await;
    for ns in ["one", "two"] {
        let api: Api<ConfigMap> = Api::namespaced(client.clone(), ns);
        for i in 0..7 {
            let mut cm = configmap(&format!("cm-{i}"), &[]);
            cm.metadata.labels = Some([("parity".to_owned(), (i % 2).to_string())].into());
            api.create(&PostParams::default(), &cm).await.unwrap();
        }
    }
    let all: Api<ConfigMap> = Api::all(client.clone());
    let list = all.list(&ListOptions::default().limit(3)).await.unwrap();
    assert_eq!(list.items.len(), 14);
    assert!(!list.resource_version.is_empty());
    assert!(list.continue_token.is_none());

    let one: Api<ConfigMap> = Api::namespaced(client, "one");
    let even = one
        .list(&ListOptions::default().labels("parity=0").limit(2))
        .await
        .unwrap();
    assert_eq!(sorted_names(&even), ["cm-0", "cm-2", "cm-4", "cm-6"]);
}

#[tokio::test]
async fn delete_answers_the_object_or_a_status() {
    let (_sim, client) = sim().await;
    let api = configmaps(&client);
    api.create(&PostParams::default(), &configmap("a", &[]))
        .await
        .unwrap();
    match api.delete("a", &DeleteParams::background()).await.unwrap() {
        Either::Left(cm) => assert_eq!(cm.metadata.name.as_deref(), Some("a")),
        Either::Right(status) => assert_eq!(status.status.as_deref(), Some("Success")),
    }
    assert!(api.get_opt("a").await.unwrap().is_none());
}

#[tokio::test]
async fn delete_collection_deletes_what_the_selector_matches() {
    let (_sim, client) = sim().await;
    let api = configmaps(&client);
    for (name, team) in [("a", "red"), ("b", "red"), ("c", "blue")] {
        let mut cm = configmap(name, &[]);
        cm.metadata.labels = Some([("team".to_owned(), team.to_owned())].into());
        api.create(&PostParams::default(), &cm).await.unwrap();
    }
    let red = ListOptions::default().labels("team=red");
    api.delete_collection(&DeleteParams::default().with_dry_run(true), &red)
        .await
        .unwrap();
    assert_eq!(
        api.list(&ListOptions::default()).await.unwrap().items.len(),
        3
    );
    let answer = api
        .delete_collection(&DeleteParams::default(), &red)
        .await
        .unwrap();
    // kube-apiserver answers the list of the objects it deleted.
    let Either::Left(deleted) = answer else {
        panic!("a Status, not the deleted list: {answer:?}")
    };
    assert_eq!(sorted_names(&deleted), ["a", "b"]);
    let left = api.list(&ListOptions::default()).await.unwrap();
    assert_eq!(sorted_names(&left), ["c"]);
}

#[tokio::test]
async fn one_namespaced_object_through_api_all_is_refused_unsent() {
    let (sim, client) = sim().await;
    let all: Api<ConfigMap> = Api::all(client);
    sim.clear_requests().await;
    assert!(matches!(all.get("a").await, Err(Error::Usage(_))));
    assert!(matches!(
        all.create(&PostParams::default(), &configmap("a", &[]))
            .await,
        Err(Error::Usage(_))
    ));
    assert!(sim.requests().await.is_empty());
}

#[tokio::test]
async fn a_refused_write_is_forbidden_and_other_failures_keep_the_rest_error() {
    let (sim, client) = sim().await;
    let api = configmaps(&client);
    sim.add_faults([Fault::new(FaultKind::status(403))
        .verbs(["create"])
        .count(1)])
        .await;
    let err = api
        .create(&PostParams::default(), &configmap("a", &[]))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Forbidden(_)), "{err:?}");

    sim.add_faults([Fault::new(FaultKind::status(500)).verbs(["get"]).count(1)])
        .await;
    let err = api.get("a").await.unwrap_err();
    let Error::Api(rest) = &err else {
        panic!("expected Error::Api, got {err:?}");
    };
    assert!(rest.is_internal_error());
}
