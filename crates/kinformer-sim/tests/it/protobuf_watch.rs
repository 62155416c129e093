//! Protobuf watch streams (`application/vnd.kubernetes.protobuf;stream=watch`): frames of a
//! 4-byte big-endian length and a `WatchEvent`, for every event type, streaming lists and their
//! end bookmark, the metadata-only form, selectors, and ERROR events carrying a `Status`.

use std::time::Duration;

use bytes::{Buf, BytesMut};
use http::Method;
use http_body_util::BodyExt;
use k8s_openapi::List;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;
use kinformer_protobuf::{WATCH_MEDIA_TYPE, envelope};
use kinformer_sim::{Compaction, ObjectOp, OpKind, Sim, SimHandle};
use serde::de::DeserializeOwned;
use serde_json::json;

use crate::common::{Body, client, cm, rv_of};
use crate::protobuf::{CLIENT_GO, METADATA, Partial, decode};

/// Splits a protobuf watch stream into its frames.
struct Frames {
    body: Body,
    buf: BytesMut,
}

/// One frame: its event type, and its object's apiVersion, kind and message as `T`.
type Frame<T> = (String, String, String, T);

impl Frames {
    async fn open(sim: &SimHandle, path: &str, accept: &str) -> Self {
        let resp = client(sim)
            .raw_with_headers(Method::GET, path, None, &[("accept", accept)])
            .await;
        assert_eq!(resp.status(), 200, "{path}");
        assert_eq!(resp.headers()["content-type"], WATCH_MEDIA_TYPE);
        Self {
            body: resp.into_body(),
            buf: BytesMut::new(),
        }
    }

    /// The next frame's bytes; `None` when the stream ends.
    async fn raw(&mut self) -> Option<BytesMut> {
        loop {
            if self.buf.len() >= 4 {
                let len = u32::from_be_bytes(self.buf[..4].try_into().unwrap()) as usize;
                if self.buf.len() >= 4 + len {
                    self.buf.advance(4);
                    return Some(self.buf.split_to(len));
                }
            }
            let frame = tokio::time::timeout(Duration::from_secs(30), self.body.frame())
                .await
                .expect("a frame in time")?
                .expect("a clean stream");
            if let Ok(data) = frame.into_data() {
                self.buf.extend_from_slice(&data);
            }
        }
    }

    /// The next event, its object decoded as `T`.
    async fn next<T: DeserializeOwned>(&mut self) -> Frame<T> {
        let raw = self.raw().await.expect("an event");
        let event = envelope::decode_watch_frame(&raw).unwrap();
        let (api_version, kind, object) = decode(event.object);
        (event.event_type.to_owned(), api_version, kind, object)
    }
}

async fn write(sim: &SimHandle, kind: OpKind, name: &str, body: serde_json::Value) -> u64 {
    let op = ObjectOp::new(kind, "configmaps", body).namespace("w");
    let op = if matches!(kind, OpKind::Create) {
        op
    } else {
        op.name(name)
    };
    rv_of(&sim.apply(op).await.unwrap())
}

#[tokio::test]
async fn every_event_type_arrives_as_a_frame() {
    let sim = Sim::builder()
        .bookmark_interval(Duration::from_secs(1))
        .compact_interval(None)
        .start()
        .await
        .unwrap();
    write(&sim, OpKind::Create, "a", cm("a", json!({}))).await;
    let list = client(&sim).get("/api/v1/configmaps").await.json();
    let path = format!(
        "/api/v1/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion={}",
        rv_of(&list)
    );
    let mut frames = Frames::open(&sim, &path, CLIENT_GO).await;
    let created = write(&sim, OpKind::Create, "b", cm("b", json!({"x": "1"}))).await;
    let modified = write(&sim, OpKind::Patch, "b", json!({"data": {"k": "2"}})).await;
    let deleted = write(&sim, OpKind::Delete, "b", json!({})).await;
    let expected = [
        ("ADDED", created),
        ("MODIFIED", modified),
        ("DELETED", deleted),
    ];
    for (event_type, rv) in expected {
        let (got, api_version, kind, object): Frame<ConfigMap> = frames.next().await;
        assert_eq!(
            (got.as_str(), api_version.as_str(), kind.as_str()),
            (event_type, "v1", "ConfigMap")
        );
        assert_eq!(object.metadata.name.as_deref(), Some("b"));
        assert_eq!(object.metadata.resource_version, Some(rv.to_string()));
    }
    let (event_type, _, kind, bookmark): Frame<ConfigMap> = frames.next().await;
    assert_eq!(
        (event_type.as_str(), kind.as_str()),
        ("BOOKMARK", "ConfigMap")
    );
    assert_eq!(
        bookmark.metadata.resource_version,
        Some(deleted.to_string())
    );
}

#[tokio::test]
async fn a_streaming_list_sends_every_object_then_the_initial_events_end_bookmark() {
    let sim = Sim::builder().pods(25).namespaces(2).start().await.unwrap();
    let json: List<Pod> =
        serde_json::from_slice(&client(&sim).get("/api/v1/pods").await.body).unwrap();
    let path = "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true";
    let mut frames = Frames::open(&sim, path, CLIENT_GO).await;
    for expected in &json.items {
        let (event_type, api_version, kind, pod): Frame<Pod> = frames.next().await;
        assert_eq!(
            (event_type.as_str(), api_version.as_str(), kind.as_str()),
            ("ADDED", "v1", "Pod")
        );
        assert_eq!(&pod, expected);
    }
    let (event_type, _, kind, bookmark): Frame<Pod> = frames.next().await;
    assert_eq!((event_type.as_str(), kind.as_str()), ("BOOKMARK", "Pod"));
    assert_eq!(
        bookmark.metadata.resource_version,
        json.metadata.resource_version
    );
    let annotations = bookmark.metadata.annotations.unwrap();
    assert_eq!(annotations["k8s.io/initial-events-end"], "true");
}

#[tokio::test]
async fn metadata_only_watches_send_partial_object_metadata_frames() {
    let sim = Sim::builder().compact_interval(None).start().await.unwrap();
    write(&sim, OpKind::Create, "a", cm("a", json!({"app": "web"}))).await;
    let path = "/api/v1/configmaps?watch=true&allowWatchBookmarks=true";
    let mut frames = Frames::open(&sim, path, METADATA).await;
    let (event_type, api_version, kind, object): Frame<Partial> = frames.next().await;
    assert_eq!(
        (event_type.as_str(), api_version.as_str(), kind.as_str()),
        ("ADDED", "meta.k8s.io/v1", "PartialObjectMetadata")
    );
    assert_eq!(object.metadata.labels.unwrap()["app"], "web");
    let (event_type, _, kind, end): Frame<Partial> = frames.next().await;
    assert_eq!(
        (event_type.as_str(), kind.as_str()),
        ("BOOKMARK", "PartialObjectMetadata")
    );
    assert_eq!(
        end.metadata.annotations.unwrap()["k8s.io/initial-events-end"],
        "true"
    );
    let rv = write(
        &sim,
        OpKind::Patch,
        "a",
        json!({"metadata": {"labels": {"app": "api"}}}),
    )
    .await;
    let (event_type, _, _, object): Frame<Partial> = frames.next().await;
    assert_eq!(event_type, "MODIFIED");
    assert_eq!(object.metadata.labels.unwrap()["app"], "api");
    assert_eq!(object.metadata.resource_version, Some(rv.to_string()));
}

#[tokio::test]
async fn objects_leaving_a_selector_arrive_as_deleted_frames() {
    let sim = Sim::builder().compact_interval(None).start().await.unwrap();
    write(&sim, OpKind::Create, "a", cm("a", json!({"app": "web"}))).await;
    let path = "/api/v1/configmaps?watch=true&labelSelector=app%3Dweb";
    let mut frames = Frames::open(&sim, path, CLIENT_GO).await;
    let (event_type, ..): Frame<ConfigMap> = frames.next().await;
    assert_eq!(event_type, "ADDED");
    let rv = write(
        &sim,
        OpKind::Patch,
        "a",
        json!({"metadata": {"labels": {"app": "api"}}}),
    )
    .await;
    let (event_type, _, _, left): Frame<ConfigMap> = frames.next().await;
    assert_eq!(event_type, "DELETED");
    assert_eq!(
        left.metadata.labels.unwrap()["app"],
        "web",
        "the state before"
    );
    assert_eq!(left.metadata.resource_version, Some(rv.to_string()));
}

#[tokio::test]
async fn a_compacted_resource_version_gets_an_error_frame_with_a_410_status() {
    let sim = Sim::builder().compact_interval(None).start().await.unwrap();
    let old = write(&sim, OpKind::Create, "a", cm("a", json!({}))).await;
    write(&sim, OpKind::Patch, "a", json!({"data": {"k": "2"}})).await;
    sim.compact(Compaction::all()).await;
    let path = format!("/api/v1/configmaps?watch=true&resourceVersion={}", old - 1);
    let mut frames = Frames::open(&sim, &path, CLIENT_GO).await;
    let (event_type, api_version, kind, status): Frame<Status> = frames.next().await;
    assert_eq!(
        (event_type.as_str(), api_version.as_str(), kind.as_str()),
        ("ERROR", "v1", "Status")
    );
    assert_eq!(
        (status.code, status.reason.as_deref()),
        (Some(410), Some("Expired"))
    );
    assert!(frames.raw().await.is_none(), "the stream ends");
}
