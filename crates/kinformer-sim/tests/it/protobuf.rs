//! Kubernetes protobuf on the wire (`application/vnd.kubernetes.protobuf`): lists with paging,
//! gets, the metadata-only list, errors, protobuf request bodies, and custom resources falling
//! back to JSON, each decoded with kinformer-protobuf and compared with what the same request
//! answers in JSON. Watches are in `protobuf_watch`.

use bytes::{Bytes, BytesMut};
use http::Method;
use k8s_openapi::List;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ListMeta, ObjectMeta, Status};
use kinformer_protobuf::{MEDIA_TYPE, Schema, envelope};
use kinformer_sim::{CustomResource, ObjectOp, OpKind, Sim};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::json;

use crate::common::{Client, Resp, WIDGETS, client, in_process};

/// client-go's `Accept` for built-in types.
pub(crate) const CLIENT_GO: &str = "application/vnd.kubernetes.protobuf, application/json";
/// The metadata-only list in protobuf, as client-go's metadata client asks first.
pub(crate) const METADATA_LIST: &str =
    "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
/// One object's metadata in protobuf.
pub(crate) const METADATA: &str =
    "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

/// A `PartialObjectMetadata`.
#[derive(Debug, Deserialize, PartialEq)]
pub(crate) struct Partial {
    pub(crate) metadata: ObjectMeta,
}

/// A `PartialObjectMetadataList`.
#[derive(Debug, Deserialize, PartialEq)]
pub(crate) struct PartialList {
    pub(crate) metadata: ListMeta,
    pub(crate) items: Vec<Partial>,
}

/// An enveloped object: its apiVersion and kind, and its message decoded as `T`.
pub(crate) fn decode<T: DeserializeOwned>(body: &[u8]) -> (String, String, T) {
    let unknown = envelope::decode(body).expect("a k8s\\0 envelope");
    let schema = Schema::kubernetes();
    let id = schema
        .message_for(unknown.api_version, unknown.kind)
        .or_else(|_| schema.message("k8s.io.apimachinery.pkg.apis.meta.v1.Status"))
        .unwrap();
    let value = kinformer_protobuf::from_slice(schema, id, unknown.raw)
        .unwrap_or_else(|e| panic!("{} {}: {e}", unknown.api_version, unknown.kind));
    (
        unknown.api_version.to_owned(),
        unknown.kind.to_owned(),
        value,
    )
}

/// A GET with this `Accept`, answered in protobuf.
async fn get_protobuf(c: &Client<'_>, path: &str, accept: &str) -> Resp {
    let resp = c.get_accepting(path, accept).await;
    assert_eq!(resp.status, 200, "{path}: {:?}", resp.body);
    assert_eq!(resp.headers["content-type"], MEDIA_TYPE, "{path}");
    resp
}

/// An object in protobuf with its envelope, as kubectl sends a built-in type.
pub(crate) fn enveloped(api_version: &str, kind: &str, object: &serde_json::Value) -> Bytes {
    let schema = Schema::kubernetes();
    let id = schema.message_for(api_version, kind).unwrap();
    let raw = kinformer_protobuf::to_vec(schema, id, object).unwrap();
    let mut out = Vec::new();
    envelope::encode(api_version, kind, &raw, &mut out);
    Bytes::from(out)
}

/// A request with a protobuf body, answered as `accept` asks.
async fn send_protobuf(
    c: &Client<'_>,
    method: Method,
    path: &str,
    body: Bytes,
    accept: &str,
) -> Resp {
    let headers = [("content-type", MEDIA_TYPE), ("accept", accept)];
    c.send_bytes(method, path, body, &headers).await
}

#[tokio::test]
async fn a_protobuf_list_of_pods_decodes_to_the_json_list() {
    let sim = Sim::builder().pods(40).namespaces(3).start().await.unwrap();
    let c = client(&sim);
    let json: List<Pod> = serde_json::from_slice(&c.get("/api/v1/pods").await.body).unwrap();
    assert_eq!(json.items.len(), 40);
    for accept in [MEDIA_TYPE, CLIENT_GO] {
        let resp = get_protobuf(&c, "/api/v1/pods", accept).await;
        let (api_version, kind, list): (_, _, List<Pod>) = decode(&resp.body);
        assert_eq!((api_version.as_str(), kind.as_str()), ("v1", "PodList"));
        assert_eq!(
            list.metadata.resource_version,
            json.metadata.resource_version
        );
        assert_eq!(list.items, json.items, "realistic pods survive protobuf");
    }

    // One namespace's pods, and one pod.
    let ns_json: List<Pod> =
        serde_json::from_slice(&c.get("/api/v1/namespaces/ns-1/pods").await.body).unwrap();
    let resp = get_protobuf(&c, "/api/v1/namespaces/ns-1/pods", MEDIA_TYPE).await;
    let (_, _, ns_list): (_, _, List<Pod>) = decode(&resp.body);
    assert_eq!(ns_list.items, ns_json.items);
    let first = &json.items[0];
    let path = format!(
        "/api/v1/namespaces/{}/pods/{}",
        first.metadata.namespace.as_deref().unwrap(),
        first.metadata.name.as_deref().unwrap()
    );
    let resp = get_protobuf(&c, &path, CLIENT_GO).await;
    let (api_version, kind, pod): (_, _, Pod) = decode(&resp.body);
    assert_eq!((api_version.as_str(), kind.as_str()), ("v1", "Pod"));
    assert_eq!(&pod, first);
}

#[tokio::test]
async fn protobuf_pages_follow_continue_tokens_as_json_pages_do() {
    let sim = Sim::builder().pods(23).start().await.unwrap();
    let c = client(&sim);
    let all: List<Pod> = serde_json::from_slice(&c.get("/api/v1/pods").await.body).unwrap();
    let first_json: List<Pod> =
        serde_json::from_slice(&c.get("/api/v1/pods?limit=5").await.body).unwrap();
    let mut items = Vec::new();
    let mut token: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &token {
            Some(t) => format!("/api/v1/pods?limit=5&continue={t}"),
            None => "/api/v1/pods?limit=5".to_owned(),
        };
        let resp = get_protobuf(&c, &path, MEDIA_TYPE).await;
        let (_, kind, page): (_, String, List<Pod>) = decode(&resp.body);
        assert_eq!(kind, "PodList");
        if pages == 0 {
            assert_eq!(page.metadata.remaining_item_count, Some(18));
            assert_eq!(
                page.metadata.remaining_item_count,
                first_json.metadata.remaining_item_count
            );
        }
        pages += 1;
        items.extend(page.items);
        token = page.metadata.continue_.filter(|t| !t.is_empty());
        if token.is_none() {
            assert_eq!(page.metadata.remaining_item_count, None);
            break;
        }
    }
    assert_eq!(pages, 5);
    assert_eq!(items, all.items);
}

#[tokio::test]
async fn metadata_only_lists_and_gets_in_protobuf_for_every_resource() {
    let sim = Sim::builder().pods(12).start().await.unwrap();
    let c = client(&sim);
    let json_accept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
    let json: PartialList =
        serde_json::from_slice(&c.get_accepting("/api/v1/pods", json_accept).await.body).unwrap();
    let resp = get_protobuf(&c, "/api/v1/pods", METADATA_LIST).await;
    let (api_version, kind, list): (_, _, PartialList) = decode(&resp.body);
    assert_eq!(
        (api_version.as_str(), kind.as_str()),
        ("meta.k8s.io/v1", "PartialObjectMetadataList")
    );
    assert_eq!(list, json);
    assert!(
        list.items
            .iter()
            .all(|p| p.metadata.managed_fields.is_some())
    );

    // A custom resource has no protobuf of its own, but its metadata does.
    sim.register(CustomResource::example_widgets())
        .await
        .unwrap();
    let widget =
        json!({"metadata": {"name": "w1", "labels": {"size": "big"}}, "spec": {"size": 3}});
    sim.apply(ObjectOp::new(OpKind::Create, "widgets", widget).namespace("default"))
        .await
        .unwrap();
    let resp = get_protobuf(&c, WIDGETS, METADATA_LIST).await;
    let (_, _, widgets): (_, _, PartialList) = decode(&resp.body);
    assert_eq!(widgets.items.len(), 1);
    assert_eq!(
        widgets.items[0].metadata.labels.as_ref().unwrap()["size"],
        "big"
    );
    let resp = get_protobuf(&c, &format!("{WIDGETS}/w1"), METADATA).await;
    let (api_version, kind, one): (_, _, Partial) = decode(&resp.body);
    assert_eq!(
        (api_version.as_str(), kind.as_str()),
        ("meta.k8s.io/v1", "PartialObjectMetadata")
    );
    assert_eq!(one, widgets.items.into_iter().next().unwrap());
}

#[tokio::test]
async fn custom_resources_get_json_when_it_is_acceptable_and_406_when_only_protobuf_is() {
    let sim = Sim::builder().start().await.unwrap();
    sim.register(CustomResource::example_widgets())
        .await
        .unwrap();
    let c = client(&sim);
    let resp = c.get_accepting(WIDGETS, CLIENT_GO).await;
    assert_eq!(resp.status, 200);
    assert_eq!(resp.headers["content-type"], "application/json");
    assert_eq!(resp.json()["kind"], "WidgetList");
    let resp = c.get_accepting(WIDGETS, MEDIA_TYPE).await;
    assert_eq!(resp.status, 406);
    assert_eq!(resp.json()["reason"], "NotAcceptable");
    // Nor does it take a protobuf body.
    let body = enveloped("v1", "ConfigMap", &json!({"metadata": {"name": "w"}}));
    let resp = send_protobuf(&c, Method::POST, WIDGETS, body, "application/json").await;
    assert_eq!(resp.status, 415);
}

#[tokio::test]
async fn errors_are_protobuf_statuses_when_protobuf_was_negotiated() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let resp = c
        .get_accepting("/api/v1/namespaces/default/pods/missing", CLIENT_GO)
        .await;
    assert_eq!(resp.status, 404);
    assert_eq!(resp.headers["content-type"], MEDIA_TYPE);
    let (api_version, kind, status): (_, _, Status) = decode(&resp.body);
    assert_eq!((api_version.as_str(), kind.as_str()), ("v1", "Status"));
    assert_eq!(
        (status.code, status.reason.as_deref()),
        (Some(404), Some("NotFound"))
    );
    assert_eq!(
        status.message.as_deref(),
        Some("pods \"missing\" not found")
    );
    let details = status.details.unwrap();
    assert_eq!(details.name.as_deref(), Some("missing"));
    // A bad list option, before anything is read.
    let resp = c
        .get_accepting("/api/v1/pods?resourceVersionMatch=Exact", MEDIA_TYPE)
        .await;
    assert_eq!(resp.status, 422);
    let (_, _, status): (_, _, Status) = decode(&resp.body);
    assert_eq!(status.reason.as_deref(), Some("Invalid"));
}

#[tokio::test]
async fn writes_take_and_answer_protobuf_as_kubectl_sends_them() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let path = "/api/v1/namespaces/default/configmaps";
    let cm = json!({"metadata": {"name": "from-protobuf"}, "data": {"a": "b"}});
    let resp = send_protobuf(
        &c,
        Method::POST,
        path,
        enveloped("v1", "ConfigMap", &cm),
        CLIENT_GO,
    )
    .await;
    assert_eq!(resp.status, 201, "{:?}", resp.body);
    assert_eq!(resp.headers["content-type"], MEDIA_TYPE);
    let (_, kind, created): (_, String, ConfigMap) = decode(&resp.body);
    assert_eq!(kind, "ConfigMap");
    assert_eq!(created.data.as_ref().unwrap()["a"], "b");
    let stored = c.get(&format!("{path}/from-protobuf")).await.json();
    assert_eq!(stored["data"], json!({"a": "b"}));
    assert_eq!(
        stored["metadata"]["uid"].as_str(),
        created.metadata.uid.as_deref()
    );

    // An update with a resourceVersion precondition, answered in JSON when JSON is asked for.
    let rv = created.metadata.resource_version.unwrap();
    let update =
        json!({"metadata": {"name": "from-protobuf", "resourceVersion": rv}, "data": {"a": "c"}});
    let resp = send_protobuf(
        &c,
        Method::PUT,
        &format!("{path}/from-protobuf"),
        enveloped("v1", "ConfigMap", &update),
        "application/json",
    )
    .await;
    assert_eq!(resp.status, 200, "{:?}", resp.body);
    assert_eq!(resp.json()["data"]["a"], "c");

    // A body of another kind, or one that is not protobuf, is a 400.
    let pod = enveloped("v1", "Pod", &json!({"metadata": {"name": "p"}}));
    let resp = send_protobuf(&c, Method::POST, path, pod, CLIENT_GO).await;
    assert_eq!(resp.status, 400);
    let mut garbage = BytesMut::from(&b"k8s\0"[..]);
    garbage.extend_from_slice(b"\x0a\xff");
    let resp = send_protobuf(&c, Method::POST, path, garbage.freeze(), "application/json").await;
    assert_eq!(resp.status, 400);
    assert!(
        resp.json()["message"]
            .as_str()
            .unwrap()
            .contains("not a Kubernetes protobuf object")
    );
}

#[tokio::test]
async fn kubectl_creates_built_in_objects_in_protobuf() {
    let Some((sim, k)) = crate::kubectl::tls_sim_with_kubectl("protobuf").await else {
        return;
    };
    // kubectl's typed creates send `Content-Type: application/vnd.kubernetes.protobuf`.
    let out = k
        .run(&["create", "configmap", "x", "--from-literal=a=b"])
        .await;
    assert_eq!(out.trim(), "configmap/x created");
    let out = k
        .run(&["run", "p", "--image=app:1", "--labels=app=p"])
        .await;
    assert_eq!(out.trim(), "pod/p created");
    let out = k
        .run(&[
            "create",
            "deployment",
            "web",
            "--image=app:1",
            "--replicas=2",
        ])
        .await;
    assert_eq!(out.trim(), "deployment.apps/web created");
    assert_eq!(k.run(&["get", "pods", "-o", "name"]).await.trim(), "pod/p");
    let c = in_process(&sim);
    let stored = c
        .get("/api/v1/namespaces/default/configmaps/x")
        .await
        .json();
    assert_eq!(stored["data"], json!({"a": "b"}));
    let pod = c.get("/api/v1/namespaces/default/pods/p").await.json();
    assert_eq!(pod["spec"]["containers"][0]["image"], "app:1");
    assert_eq!(pod["metadata"]["labels"]["app"], "p");
    let web = c
        .get("/apis/apps/v1/namespaces/default/deployments/web")
        .await
        .json();
    assert_eq!(web["spec"]["replicas"], 2);
    assert_eq!(web["spec"]["selector"]["matchLabels"]["app"], "web");
}
