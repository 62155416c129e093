//! Discovery against a server that answers only the legacy documents, written as a real
//! kube-apiserver writes them (`tests/fixtures`): every resource is found, names qualified
//! with a version resolve, and a document that does not decode is reported as that failure,
//! never as a missing resource.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::Full;
use kinformer_core::Scope;
use kinformer_discovery::{Discovery, Error, Form};
use kinformer_rest::{Body, Client};

/// The documents of a server that predates aggregated discovery, by path.
fn documents() -> HashMap<&'static str, &'static str> {
    HashMap::from([
        ("/api", include_str!("fixtures/api.json")),
        ("/api/v1", include_str!("fixtures/api-v1.json")),
        ("/apis", include_str!("fixtures/apis.json")),
        (
            "/apis/apiregistration.k8s.io/v1",
            include_str!("fixtures/apis-apiregistration-v1.json"),
        ),
        ("/apis/apps/v1", include_str!("fixtures/apis-apps-v1.json")),
        (
            "/apis/autoscaling/v2",
            include_str!("fixtures/apis-autoscaling-v2.json"),
        ),
        (
            "/apis/autoscaling/v1",
            include_str!("fixtures/apis-autoscaling-v1.json"),
        ),
        (
            "/apis/metrics.k8s.io/v1beta1",
            include_str!("fixtures/apis-metrics-v1beta1.json"),
        ),
    ])
}

type Seen = Arc<Mutex<Vec<String>>>;

/// A client of a server answering `documents` in plain JSON whatever `Accept` asks for (and a
/// plain-text 404 elsewhere, as kube-apiserver answers an unknown path), recording the paths.
fn legacy_server(documents: HashMap<&'static str, &'static str>) -> (Client, Seen) {
    let seen = Seen::default();
    let log = seen.clone();
    let documents = Arc::new(documents);
    let service = tower::service_fn(move |req: http::Request<Body>| {
        let path = req.uri().path().to_owned();
        log.lock().unwrap().push(path.clone());
        let found = documents.get(path.as_str()).copied();
        async move {
            let (status, content_type, body) = match found {
                Some(body) => (200, "application/json", body),
                None => (404, "text/plain; charset=utf-8", "404 page not found\n"),
            };
            let response = http::Response::builder()
                .status(status)
                .header("content-type", content_type)
                .body(Full::new(Bytes::from_static(body.as_bytes())))
                .unwrap();
            Ok::<_, Infallible>(response)
        }
    });
    (Client::new(service), seen)
}

#[tokio::test]
async fn every_resource_of_a_legacy_only_server_is_found() {
    let (client, seen) = legacy_server(documents());
    // Asked for aggregated discovery first, as client-go asks: the plain answers fall back.
    let discovery = Discovery::new(client);
    let resources = discovery.server_resources().await.unwrap();
    assert!(resources.failed.is_empty(), "{:?}", resources.failed);
    let mut paths = seen.lock().unwrap().clone();
    paths.sort();
    let mut expected: Vec<&str> = documents().into_keys().collect();
    expected.sort_unstable();
    assert_eq!(paths, expected);

    let groups: Vec<&str> = resources.groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(
        groups,
        [
            "",
            "apiregistration.k8s.io",
            "apps",
            "autoscaling",
            "metrics.k8s.io"
        ]
    );
    let pods = discovery.find("pods").await.unwrap();
    assert_eq!((pods.group.as_str(), pods.version.as_str()), ("", "v1"));
    assert_eq!(pods.categories, ["all"]);
    let subresources: Vec<(&str, &str)> = pods
        .subresources
        .iter()
        .map(|s| (s.name.as_str(), s.kind.as_str()))
        .collect();
    assert_eq!(
        subresources,
        [
            ("attach", "PodAttachOptions"),
            ("binding", "Binding"),
            ("ephemeralcontainers", "Pod"),
            ("eviction", "Eviction"),
            ("exec", "PodExecOptions"),
            ("log", "Pod"),
            ("status", "Pod"),
        ]
    );
    assert_eq!(
        discovery.resolve("sa").await.unwrap().kind,
        "ServiceAccount"
    );
    assert_eq!(discovery.resolve("ns").await.unwrap().scope, Scope::Cluster);
    // The preferred version is the server's, not the first listed alphabetically.
    assert_eq!(discovery.resolve("hpa").await.unwrap().version, "v2");
    // An aggregated API server's resources carry no singular name: the kind stands in.
    let node_metrics = discovery.find("nodes.metrics.k8s.io").await.unwrap();
    assert_eq!(node_metrics.singular, "nodemetrics");
    // The core group comes first.
    assert_eq!(discovery.resolve("pods").await.unwrap().group, "");
}

#[tokio::test]
async fn names_qualified_with_a_version_resolve_as_kubectl_resolves_them() {
    let (client, _) = legacy_server(documents());
    let discovery = Discovery::new(client).with_form(Form::Legacy);
    for (name, group, version, plural) in [
        ("pods.v1.", "", "v1", "pods"),
        ("deployments.v1.apps", "apps", "v1", "deployments"),
        (
            "hpa.v1.autoscaling",
            "autoscaling",
            "v1",
            "horizontalpodautoscalers",
        ),
        (
            "horizontalpodautoscalers.v2.autoscaling",
            "autoscaling",
            "v2",
            "horizontalpodautoscalers",
        ),
        ("deploy.apps", "apps", "v1", "deployments"),
        ("Pod", "", "v1", "pods"),
    ] {
        let found = discovery.resolve(name).await.unwrap();
        assert_eq!(
            (
                found.group.as_str(),
                found.version.as_str(),
                found.plural.as_str()
            ),
            (group, version, plural),
            "{name}"
        );
    }
}

#[tokio::test]
async fn lists_written_as_null_read_as_empty() {
    let mut documents = documents();
    documents.insert(
        "/apis/metrics.k8s.io/v1beta1",
        r#"{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"metrics.k8s.io/v1beta1","resources":null}"#,
    );
    documents.insert(
        "/apis/apps/v1",
        r#"{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":null}]}"#,
    );
    let (client, _) = legacy_server(documents);
    let discovery = Discovery::new(client);
    let resources = discovery.server_resources().await.unwrap();
    assert!(resources.failed.is_empty(), "{:?}", resources.failed);
    let metrics = resources.group("metrics.k8s.io").unwrap();
    assert!(metrics.versions[0].resources.is_empty());
    assert!(
        discovery
            .find("deployments")
            .await
            .unwrap()
            .verbs
            .is_empty()
    );
}

#[tokio::test]
async fn a_document_that_does_not_decode_is_reported_as_that_failure() {
    let mut documents = documents();
    documents.insert(
        "/api/v1",
        r#"{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"pods","namespaced":"yes","kind":"Pod"}]}"#,
    );
    let (client, seen) = legacy_server(documents);
    let discovery = Discovery::new(client);
    let error = discovery.resolve("pods").await.unwrap_err();
    let Error::Incomplete { name, failed } = &error else {
        panic!("expected Incomplete, got {error:?}");
    };
    assert_eq!(name, "pods");
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0].0, "v1");
    let message = error.to_string();
    assert!(
        message.contains("/api/v1") && message.contains("invalid type: string \"yes\""),
        "{message}"
    );
    assert!(!error.is_not_found());
    // The miss refreshed discovery once before it was reported.
    let api_v1 = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|p| *p == "/api/v1")
        .count();
    assert_eq!(api_v1, 2);

    // What the other documents describe is still found by a qualified name, and a name of
    // another group that is served nowhere is a plain miss: the core group could not serve it.
    assert_eq!(
        discovery.resolve("deploy.apps").await.unwrap().plural,
        "deployments"
    );
    assert!(
        discovery
            .resolve("gizmos.apps")
            .await
            .unwrap_err()
            .is_not_found()
    );
    // While the core group is unreadable, no unqualified name resolves elsewhere: `pods`
    // would be metrics.k8s.io's PodMetrics.
    let error = discovery.resolve("pods").await.unwrap_err();
    assert!(matches!(error, Error::Incomplete { .. }), "{error:?}");
    assert_eq!(
        discovery.resolve("pods.metrics.k8s.io").await.unwrap().kind,
        "PodMetrics"
    );
    let error = discovery.resolve_kind("", "Pod", None).await.unwrap_err();
    assert!(matches!(error, Error::Incomplete { .. }), "{error:?}");
}
