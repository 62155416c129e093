//! Both encodings against kinformer-sim: the same lists, gets and watches read by a JSON client
//! and by a protobuf client give equal objects, and the protobuf client's answers were protobuf.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kinformer_core::{DynamicObject, Fields, ListOptions, PartialObjectMetadata};
use kinformer_rest::{Client, ContentType, RestClient, WatchStream};
use kinformer_sim::{ObjectOp, OpKind, Sim, SimHandle};
use serde::de::DeserializeOwned;
use tower::ServiceExt;

/// The `Content-Type`s the sim answered with.
type Seen = Arc<Mutex<Vec<String>>>;

/// A client on the sim's in-process service preferring `content_type`, recording the
/// `Content-Type` of every answer.
fn client(sim: &SimHandle, content_type: ContentType) -> (RestClient, Seen) {
    let seen = Seen::default();
    let record = Arc::clone(&seen);
    let service = ServiceExt::<http::Request<kinformer_rest::Body>>::map_response(
        sim.service(),
        move |response: http::Response<kinformer_sim::SimBody>| {
            let media = response.headers().get(http::header::CONTENT_TYPE);
            let media = media.map(|v| v.to_str().unwrap().to_owned());
            record.lock().unwrap().push(media.unwrap_or_default());
            response
        },
    );
    let client = Client::new(service).with_content_type(content_type);
    (RestClient::new(client, "", "v1"), seen)
}

/// The parts of a list a client reads.
async fn list<K: DeserializeOwned + Clone + 'static>(
    rest: &RestClient,
    resource: &str,
    options: &ListOptions,
    fields: Fields,
    accept: Option<&str>,
) -> (String, Option<String>, Vec<K>) {
    let mut request = rest
        .get()
        .resource(resource)
        .versioned_params(options)
        .fields(fields);
    if let Some(accept) = accept {
        request = request.header("accept", accept);
    }
    let list = request.list::<K>().await.unwrap();
    let items = list.items.iter().map(|i| K::clone(i)).collect();
    (list.resource_version, list.continue_token, items)
}

/// The next `n` events of `stream`, as they print.
async fn events<K: DeserializeOwned + std::fmt::Debug + 'static>(
    stream: &mut WatchStream<K>,
    n: usize,
) -> Vec<String> {
    let mut out = Vec::new();
    while out.len() < n {
        let event = tokio::time::timeout(Duration::from_secs(20), stream.next())
            .await
            .expect("a watch event in time")
            .expect("an open watch")
            .unwrap();
        out.push(format!("{event:?}"));
    }
    out
}

/// `objects` as JSON, with every `null` member left out.
fn without_nulls(objects: &[DynamicObject]) -> Vec<serde_json::Value> {
    fn strip(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                map.retain(|_, v| !v.is_null());
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    objects
        .iter()
        .map(|o| {
            let mut value = serde_json::to_value(o).unwrap();
            strip(&mut value);
            value
        })
        .collect()
}

fn protobuf_answers(seen: &Seen) -> usize {
    let seen = seen.lock().unwrap();
    seen.iter()
        .filter(|m| m.starts_with("application/vnd.kubernetes.protobuf"))
        .count()
}

#[tokio::test]
async fn lists_and_gets_of_realistic_pods_are_equal_in_both_encodings() {
    let sim = Sim::builder()
        .pods(60)
        .namespaces(3)
        .seed(23)
        .start()
        .await
        .unwrap();
    let (json, _) = client(&sim, ContentType::Json);
    let (protobuf, seen) = client(&sim, ContentType::Protobuf);
    let all = ListOptions::default().resource_version("0");
    for fields in [Fields::All, Fields::WithoutManagedFields] {
        let expected = list::<Pod>(&json, "pods", &all, fields.clone(), None).await;
        assert_eq!(expected.2.len(), 60);
        let got = list::<Pod>(&protobuf, "pods", &all, fields.clone(), None).await;
        assert!(got == expected, "lists differ with fields {fields:?}");
    }
    // Dynamic objects too (list items carry no apiVersion or kind in either encoding). A zero
    // time that JSON writes as `null` (a condition's lastProbeTime) is left out by the protobuf
    // decoder: typed objects are equal either way, so the JSON values are compared without nulls.
    let expected = list::<DynamicObject>(&json, "pods", &all, Fields::All, None).await;
    let got = list::<DynamicObject>(&protobuf, "pods", &all, Fields::All, None).await;
    assert_eq!((&got.0, &got.1), (&expected.0, &expected.1));
    assert_eq!(without_nulls(&got.2), without_nulls(&expected.2));
    // Pages: the same continue tokens, the same items.
    let mut options = ListOptions::default().limit(25);
    loop {
        let expected = list::<Pod>(&json, "pods", &options, Fields::All, None).await;
        let got = list::<Pod>(&protobuf, "pods", &options, Fields::All, None).await;
        assert!(got == expected, "pages differ");
        match expected.1 {
            Some(token) => options = options.continue_token(&token),
            None => break,
        }
    }
    let name = list::<Pod>(&json, "pods", &all, Fields::All, None).await.2[7].clone();
    let (namespace, name) = (
        name.metadata.namespace.unwrap(),
        name.metadata.name.unwrap(),
    );
    let get = |rest: RestClient| {
        let (namespace, name) = (namespace.clone(), name.clone());
        async move {
            rest.get()
                .namespace(&namespace)
                .resource("pods")
                .name(&name)
                .into::<Pod>()
                .await
                .unwrap()
        }
    };
    assert_eq!(get(protobuf.clone()).await, get(json.clone()).await);
    // Every answer to the protobuf client was protobuf: 3 lists, 3 pages, 1 get.
    assert_eq!(protobuf_answers(&seen), 7, "{:?}", seen.lock().unwrap());
}

#[tokio::test]
async fn metadata_only_lists_are_equal_in_both_encodings() {
    let sim = Sim::builder()
        .pods(20)
        .configmaps(5)
        .seed(5)
        .start()
        .await
        .unwrap();
    let (json, _) = client(&sim, ContentType::Json);
    let (protobuf, seen) = client(&sim, ContentType::Protobuf);
    let json_form = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
    let protobuf_form = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
    let all = ListOptions::default();
    for resource in ["pods", "configmaps"] {
        let expected =
            list::<PartialObjectMetadata>(&json, resource, &all, Fields::All, Some(json_form))
                .await;
        let got = list::<PartialObjectMetadata>(
            &protobuf,
            resource,
            &all,
            Fields::All,
            Some(protobuf_form),
        )
        .await;
        assert!(!expected.2.is_empty());
        assert!(got == expected, "{resource}");
    }
    assert_eq!(protobuf_answers(&seen), 2, "{:?}", seen.lock().unwrap());
}

#[tokio::test]
async fn watches_and_streaming_lists_are_equal_in_both_encodings() {
    let sim = Sim::builder()
        .pods(15)
        .configmaps(3)
        .seed(9)
        .start()
        .await
        .unwrap();
    let (json, _) = client(&sim, ContentType::Json);
    let (protobuf, seen) = client(&sim, ContentType::Protobuf);

    // A streaming list: every pod, then the bookmark that ends the initial events.
    let streaming = ListOptions::default()
        .send_initial_events(true)
        .bookmarks(true)
        .resource_version_match(kinformer_core::ResourceVersionMatch::NotOlderThan);
    let open = |rest: RestClient, options: ListOptions| async move {
        rest.get()
            .resource("pods")
            .versioned_params(&options)
            .watch::<Pod>()
            .await
            .unwrap()
    };
    let expected = events(&mut open(json.clone(), streaming.clone()).await, 16).await;
    let got = events(&mut open(protobuf.clone(), streaming).await, 16).await;
    assert!(expected[15].starts_with("Bookmark"), "{}", expected[15]);
    assert!(got == expected, "streaming lists differ");

    // A watch of ConfigMaps from a list's revision, through writes.
    let rv = list::<ConfigMap>(
        &json,
        "configmaps",
        &ListOptions::default(),
        Fields::All,
        None,
    )
    .await
    .0;
    let from = ListOptions::default()
        .resource_version(&rv)
        .timeout_seconds(60);
    let watch = |rest: RestClient| {
        let from = from.clone();
        async move {
            rest.get()
                .resource("configmaps")
                .versioned_params(&from)
                .watch::<ConfigMap>()
                .await
                .unwrap()
        }
    };
    let (mut json_events, mut protobuf_events) = (watch(json).await, watch(protobuf).await);
    let mut ops: Vec<ObjectOp> = (0..3)
        .map(|i| {
            let object = serde_json::json!({"metadata": {"name": format!("w{i}"), "namespace": "default", "labels": {"i": i.to_string()}}, "data": {"k": "v"}});
            ObjectOp::new(OpKind::Create, "configmaps", object)
        })
        .collect();
    ops.push(ObjectOp::delete("configmaps", "default", "w1"));
    for result in sim.objects(&ops).await {
        assert!(result.code < 300, "{result:?}");
    }
    let expected = events(&mut json_events, 4).await;
    assert!(expected[3].starts_with("Deleted"), "{}", expected[3]);
    assert_eq!(events(&mut protobuf_events, 4).await, expected);
    // The streaming list and the watch were protobuf frames.
    let seen = seen.lock().unwrap();
    let frames = seen
        .iter()
        .filter(|m| m.as_str() == "application/vnd.kubernetes.protobuf;stream=watch");
    assert_eq!(frames.count(), 2, "{seen:?}");
}

#[tokio::test]
async fn an_error_answer_to_a_protobuf_client_carries_the_status() {
    let sim = Sim::builder().configmaps(1).seed(2).start().await.unwrap();
    let (protobuf, seen) = client(&sim, ContentType::Protobuf);
    let err = protobuf
        .get()
        .namespace("default")
        .resource("configmaps")
        .name("missing")
        .into::<ConfigMap>()
        .await
        .unwrap_err();
    assert!(err.is_not_found(), "{err}");
    let message = err
        .status()
        .and_then(|s| s.message.clone())
        .unwrap_or_default();
    assert!(message.contains("missing"), "{message}");
    // The Status came as protobuf, as kube-apiserver answers a protobuf-first Accept.
    assert_eq!(protobuf_answers(&seen), 1, "{:?}", seen.lock().unwrap());
}
