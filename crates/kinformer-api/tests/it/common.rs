//! Shared setup: a simulator, a client on it, and the objects the tests write.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_api::Api;
use kinformer_core::{Object, ObjectList, ObjectMeta};
use kinformer_rest::Client;
use kinformer_sim::{Sim, SimHandle};

/// The namespace every test writes in.
pub(crate) const NS: &str = "test";

/// A running simulator with no objects, and a client on it.
pub(crate) async fn sim() -> (SimHandle, Client) {
    // As on a cluster, objects go only into namespaces that exist.
    let sim = Sim::builder()
        .create_namespace(NS)
        .create_namespace("one")
        .create_namespace("two")
        .start()
        .await
        .expect("the simulator starts");
    let client = Client::new(sim.service());
    (sim, client)
}

/// The configmaps of [`NS`].
pub(crate) fn configmaps(client: &Client) -> Api<ConfigMap> {
    Api::namespaced(client.clone(), NS)
}

/// A configmap with `data`.
pub(crate) fn configmap(name: &str, data: &[(&str, &str)]) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..ObjectMeta::default()
        },
        data: Some(
            data.iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        ),
        ..ConfigMap::default()
    }
}

/// A deployment of `replicas` nginx pods.
pub(crate) fn deployment(name: &str, replicas: i32) -> Deployment {
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
            },
        },
    }))
    .expect("a valid deployment")
}

/// The resourceVersion of an object.
pub(crate) fn rv(meta: &ObjectMeta) -> String {
    meta.resource_version
        .clone()
        .expect("a stored object has a resourceVersion")
}

/// The names of a list's items, sorted.
pub(crate) fn sorted_names<K: Object>(list: &ObjectList<K>) -> Vec<&str> {
    let mut names: Vec<&str> = list.items.iter().map(|o| o.name()).collect();
    names.sort_unstable();
    names
}
