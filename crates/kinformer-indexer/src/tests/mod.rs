//! Tests of the indexer and listers.

mod compact;
#[cfg(feature = "compression")]
mod compression;
mod concurrency;
mod model;
mod tiered;
mod unit;
mod whole;

use std::sync::Arc;

use k8s_openapi::api::core::v1::{Pod, PodSpec};

use crate::{Compact, Config, IndexFunc, Indexer};

/// A pod `ns/name` (cluster-scoped when `ns` is empty) with `app=<app>` and a node.
pub(super) fn pod(ns: &str, name: &str, app: &str, node: &str) -> Arc<Pod> {
    let mut pod = Pod::default();
    if !ns.is_empty() {
        pod.metadata.namespace = Some(ns.into());
    }
    pod.metadata.name = Some(name.into());
    if !app.is_empty() {
        pod.metadata.labels = Some([("app".to_owned(), app.to_owned())].into());
    }
    pod.spec = Some(PodSpec {
        node_name: (!node.is_empty()).then(|| node.to_owned()),
        ..PodSpec::default()
    });
    Arc::new(pod)
}

pub(super) fn by_node() -> IndexFunc<Pod> {
    IndexFunc::new(|pod: &Pod| {
        Ok(pod
            .spec
            .as_ref()
            .and_then(|s| s.node_name.clone())
            .into_iter()
            .collect())
    })
}

/// Indexes by `app` label; an app of `bad` cannot be indexed.
pub(super) fn by_app() -> IndexFunc<Pod> {
    IndexFunc::new(|pod: &Pod| {
        let app = pod.metadata.labels.as_ref().and_then(|l| l.get("app"));
        match app.map(String::as_str) {
            Some("bad") => Err("app label is bad".to_owned()),
            other => Ok(other.map(str::to_owned).into_iter().collect()),
        }
    })
}

pub(super) fn indexer() -> Indexer<Pod> {
    Indexer::new(config())
}

/// [`indexer`] in compact mode.
pub(super) fn compact_indexer() -> Indexer<Pod> {
    Indexer::new(config().with_compact(Compact::json()))
}

/// [`compact_indexer`] keeping `hot` recently read objects decoded.
pub(super) fn tiered_indexer(hot: usize) -> Indexer<Pod> {
    let hot = std::num::NonZeroUsize::new(hot).expect("a non-zero hot set");
    Indexer::new(config().with_compact(Compact::json()).with_hot_objects(hot))
}

pub(super) fn config() -> Config<Pod> {
    Config::default()
        .with_index("node", by_node())
        .with_index("app", by_app())
}
