//! ListWatch against a canned HTTP service: URLs, options, decoding, the streaming opt-out.

use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use k8s_openapi::api::core::v1::{Node, Pod};
use kinformer_core::{
    ApiError, ApiResource, DynamicObject, ListOptions, Lister, ListerWatcher, Object, Scope,
    WatchEvent, Watcher,
};
use kinformer_rest::{Body, Client};

use crate::{Error, ListWatch};

/// A service answering lists with one pod, watches with an ADDED event and a bookmark, and
/// `410` for `resourceVersion=1`; it records every URI.
fn canned() -> (Client, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let service = tower::service_fn(move |req: http::Request<Body>| {
        let uri = req.uri().to_string();
        log.lock().unwrap().push(uri.clone());
        async move {
            let pod = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns","resourceVersion":"5","labels":{"app":"web"}}}"#;
            let (status, body) = if uri.contains("resourceVersion=1&")
                || uri.ends_with("resourceVersion=1")
            {
                (410, r#"{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"too old"}"#.to_owned())
            } else if uri.contains("watch=true") {
                (
                    200,
                    format!(
                        "{{\"type\":\"ADDED\",\"object\":{pod}}}\n{{\"type\":\"BOOKMARK\",\"object\":{{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{{\"resourceVersion\":\"9\",\"annotations\":{{\"k8s.io/initial-events-end\":\"true\"}}}},\"spec\":{{\"containers\":null}}}}}}\n"
                    ),
                )
            } else {
                (
                    200,
                    format!(
                        r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"7","continue":"c1"}},"items":[{pod}]}}"#
                    ),
                )
            };
            let response = http::Response::builder()
                .status(status)
                .header("content-type", "application/json")
                .body(Body::from(body))
                .unwrap();
            Ok::<_, std::convert::Infallible>(response)
        }
    });
    (Client::new(service), seen)
}

#[tokio::test]
async fn list_sends_path_selectors_and_caller_options_and_decodes() {
    let (client, seen) = canned();
    let lw = ListWatch::<Pod, _>::for_type(client)
        .with_namespace("ns")
        .unwrap()
        .with_label_selector("app=web")
        .unwrap()
        .with_field_selector("spec.nodeName=n1")
        .unwrap();
    let list = lw
        .list(&ListOptions::default().resource_version("0").limit(500))
        .await
        .unwrap();
    assert_eq!(list.resource_version, "7");
    assert_eq!(list.continue_token.as_deref(), Some("c1"));
    assert_eq!(list.items[0].name(), "p");
    assert_eq!(
        seen.lock().unwrap()[0],
        "/api/v1/namespaces/ns/pods?labelSelector=app%3Dweb&fieldSelector=spec.nodeName%3Dn1&resourceVersion=0&limit=500"
    );
}

#[tokio::test]
async fn watch_adds_watch_true_and_yields_typed_events_and_the_end_bookmark() {
    let (client, seen) = canned();
    let lw = ListWatch::<Pod, _>::for_type(client);
    let options = ListOptions::default()
        .send_initial_events(true)
        .resource_version_match(kinformer_core::ResourceVersionMatch::NotOlderThan)
        .bookmarks(true);
    let events: Vec<_> = lw.watch(&options).await.unwrap().collect().await;
    assert!(matches!(&events[0], Ok(WatchEvent::Added(p)) if p.name() == "p"));
    assert!(matches!(
        &events[1],
        Ok(WatchEvent::Bookmark(b)) if b.resource_version == "9" && b.initial_events_end
    ));
    assert_eq!(
        seen.lock().unwrap()[0],
        "/api/v1/pods?resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true&watch=true"
    );
}

#[tokio::test]
async fn the_modifier_runs_last_and_may_override() {
    let (client, seen) = canned();
    let lw = ListWatch::<Pod, _>::for_type(client)
        .with_label_selector("app=web")
        .unwrap()
        .with_options_modifier(|o| {
            o.label_selector = Some("tier=db".into());
            o.limit = None;
        });
    lw.list(&ListOptions::default().limit(500)).await.unwrap();
    assert_eq!(
        seen.lock().unwrap()[0],
        "/api/v1/pods?labelSelector=tier%3Ddb"
    );
}

#[tokio::test]
async fn errors_carry_the_status_for_the_reflector() {
    let (client, _) = canned();
    let lw = ListWatch::<Pod, _>::for_type(client);
    let err = lw
        .watch(&ListOptions::default().resource_version("1"))
        .await
        .unwrap_err();
    assert!(err.is_expired());
}

#[tokio::test]
async fn cluster_scoped_resources_ignore_the_namespace_and_dynamic_objects_work() {
    let (client, seen) = canned();
    let nodes = ListWatch::<Node, _>::for_type(client.clone())
        .with_namespace("ns")
        .unwrap();
    assert_eq!(nodes.collection_path(), "/api/v1/nodes");

    let resource = ApiResource::new("", "v1", "Pod", "pods", Scope::Namespaced);
    let dynamic = ListWatch::<DynamicObject, _>::from_client(client, resource)
        .with_namespace("ns")
        .unwrap();
    let list = dynamic.list(&ListOptions::default()).await.unwrap();
    assert_eq!(list.items[0].labels().unwrap()["app"], "web");
    assert_eq!(seen.lock().unwrap()[0], "/api/v1/namespaces/ns/pods");
}

#[test]
fn streaming_support_can_be_declared_absent() {
    let (client, _) = canned();
    let lw = ListWatch::<Pod, _>::for_type(client);
    assert!(lw.supports_streaming_list());
    assert!(!lw.with_streaming_list(false).supports_streaming_list());
}

/// The `Accept` of each request a service answering like `canned` receives.
fn accepts() -> (Client, Arc<Mutex<Vec<String>>>) {
    let (inner, _) = canned();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let service = tower::service_fn(move |req: http::Request<Body>| {
        let accept = req.headers().get("accept").unwrap().to_str().unwrap();
        log.lock().unwrap().push(accept.to_owned());
        let inner = inner.clone();
        async move {
            // The canned answers, read through a client of their own.
            let rest = kinformer_rest::RestClient::new(inner, "", "v1");
            let mut request = rest.get().resource("pods");
            if req.uri().query().unwrap_or_default().contains("watch=true") {
                request = request.param("watch", "true");
            }
            let body = request.do_raw().await.unwrap();
            let response = http::Response::builder()
                .header("content-type", "application/json")
                .body(Body::from(body))
                .unwrap();
            Ok::<_, std::convert::Infallible>(response)
        }
    });
    (Client::new(service), seen)
}

#[tokio::test]
async fn a_protobuf_client_asks_for_protobuf_first_in_the_metadata_form_too() {
    use kinformer_core::PartialObjectMetadata;
    use kinformer_rest::ContentType;

    use crate::{METADATA_LIST_ACCEPT_PROTOBUF, METADATA_WATCH_ACCEPT_PROTOBUF};

    for content_type in [ContentType::Json, ContentType::Protobuf] {
        let (client, seen) = accepts();
        let client = client.with_content_type(content_type);
        let pods = ApiResource::of::<Pod>();
        let metadata = ListWatch::<PartialObjectMetadata, _>::metadata(
            kinformer_rest::RestClient::for_resource(client.clone(), &pods),
            pods,
        );
        let list = metadata.list(&ListOptions::default()).await.unwrap();
        assert_eq!(list.items[0].metadata.name.as_deref(), Some("p"));
        let mut events = metadata.watch(&ListOptions::default()).await.unwrap();
        assert!(matches!(
            events.next().await,
            Some(Ok(WatchEvent::Added(_)))
        ));
        ListWatch::<Pod, _>::for_type(client)
            .list(&ListOptions::default())
            .await
            .unwrap();
        let expected = match content_type {
            ContentType::Json => [
                crate::METADATA_LIST_ACCEPT,
                crate::METADATA_WATCH_ACCEPT,
                "application/json, */*",
            ],
            _ => [
                METADATA_LIST_ACCEPT_PROTOBUF,
                METADATA_WATCH_ACCEPT_PROTOBUF,
                "application/vnd.kubernetes.protobuf,application/json",
            ],
        };
        assert_eq!(*seen.lock().unwrap(), expected, "{content_type:?}");
    }
}

#[test]
fn protobuf_objects_of_built_in_types_come_exactly_sized() {
    use kinformer_core::{DynamicObject, Fields, ListerWatcher, PartialObjectMetadata, Projection};
    use kinformer_rest::ContentType;

    let (client, _) = canned();
    let json = ListWatch::<Pod, _>::for_type(client.clone().with_content_type(ContentType::Json));
    assert!(
        !json.decodes_exactly_sized(),
        "JSON lists keep spare capacity"
    );
    let protobuf = client.with_content_type(ContentType::Protobuf);
    let mut pods = ListWatch::<Pod, _>::for_type(protobuf.clone());
    assert!(pods.decodes_exactly_sized());
    pods.set_fields(&Fields::WithoutManagedFields).unwrap();
    assert!(
        pods.decodes_exactly_sized(),
        "managedFields are skipped on the wire"
    );
    pods.set_fields(&Fields::projected(
        Projection::keep(["spec.nodeName"]).unwrap(),
    ))
    .unwrap();
    assert!(
        !pods.decodes_exactly_sized(),
        "a projection goes through serde"
    );
    let resource = ApiResource::of::<Pod>();
    let metadata = ListWatch::<PartialObjectMetadata, _>::metadata(
        kinformer_rest::RestClient::for_resource(protobuf.clone(), &resource),
        resource.clone(),
    );
    assert!(!metadata.decodes_exactly_sized());
    let dynamic = ListWatch::<DynamicObject, _>::new(
        kinformer_rest::RestClient::for_resource(protobuf, &resource),
        resource,
    );
    assert!(!dynamic.decodes_exactly_sized(), "only generated types");
}

#[test]
fn a_namespace_is_a_dns1123_label_and_the_empty_one_is_not_all() {
    let (client, _) = canned();
    let pods = ListWatch::<Pod, _>::for_type(client);
    for bad in ["", "Prod", "prod.eu", "-prod", "prod-", &"n".repeat(64)] {
        assert_eq!(
            pods.clone().with_namespace(bad).unwrap_err(),
            Error::InvalidNamespace {
                namespace: bad.to_owned()
            }
        );
    }
    let ok = pods.with_namespace("n".repeat(63)).unwrap();
    assert_eq!(ok.namespace(), Some("n".repeat(63).as_str()));
}

#[test]
fn selectors_are_checked_with_the_api_servers_syntax_and_never_empty() {
    let (client, _) = canned();
    let pods = ListWatch::<Pod, _>::for_type(client);
    // An empty value selects objects without one: the API server takes it.
    assert!(pods.clone().with_field_selector("spec.nodeName=").is_ok());
    assert!(pods.clone().with_label_selector("app=").is_ok());
    for (setting, refused) in [
        (
            "label_selector",
            pods.clone().with_label_selector("app in ()"),
        ),
        ("label_selector", pods.clone().with_label_selector("a=b=c")),
        (
            "field_selector",
            pods.clone().with_field_selector("spec.nodeName"),
        ),
    ] {
        let Err(Error::InvalidSelector { setting: s, .. }) = refused else {
            panic!("{setting}: {refused:?}");
        };
        assert_eq!(s, setting);
    }
    for (setting, refused) in [
        ("label_selector", pods.clone().with_label_selector("")),
        ("label_selector", pods.clone().with_label_selector("  ")),
        ("field_selector", pods.clone().with_field_selector("")),
    ] {
        assert_eq!(refused.unwrap_err(), Error::EmptySelector { setting });
    }
    assert_eq!(pods.label_selector(), None, "a refusal sets nothing");
}
