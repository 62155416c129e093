use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use bytes::Bytes;

use futures_util::StreamExt;
use http_body_util::{Full, StreamBody};
use k8s_openapi::api::core::v1::Pod;
use kinformer_core::WatchEvent;

use super::*;
use crate::error::BoxError;
use crate::{ByteStream, RestClient, WatchStream};

type Seen = Arc<Mutex<Vec<String>>>;

/// A client whose service answers every request with `status` and `body`, recording URIs.
fn fixed(status: u16, body: &'static str) -> (RestClient, Seen) {
    let seen = Seen::default();
    let s2 = seen.clone();
    let svc = tower::service_fn(move |req: http::Request<Body>| {
        s2.lock()
            .unwrap()
            .push(format!("{} {}", req.method(), req.uri()));
        async move {
            let mut resp = http::Response::new(Full::new(Bytes::from_static(body.as_bytes())));
            *resp.status_mut() = http::StatusCode::from_u16(status).unwrap();
            Ok::<_, Infallible>(resp)
        }
    });
    (RestClient::new(Client::new(svc), "", "v1"), seen)
}

#[test]
fn url_layout_and_encoding() {
    let (rc, _) = fixed(200, "{}");
    let url = rc
        .get()
        .namespace("foo")
        .resource("Pods")
        .name("bar")
        .sub_resource("status")
        .param("fieldSelector", "spec.nodeName=n 1")
        .timeout(Duration::from_secs(90))
        .url()
        .unwrap();
    assert_eq!(
        url,
        "/api/v1/namespaces/foo/pods/bar/status?fieldSelector=spec.nodeName%3Dn+1&timeout=1m30s"
    );
    let all = rc
        .get()
        .resource("pods")
        .versioned_params(&ListOptions::default().resource_version("").limit(0));
    assert_eq!(all.url().unwrap(), "/api/v1/pods");
    let client = rc.client().clone().with_base_url("https://h:6443/prefix/");
    let url = RestClient::new(client, "apps", "v1")
        .get()
        .resource("deployments")
        .url()
        .unwrap();
    assert_eq!(url, "https://h:6443/prefix/apis/apps/v1/deployments");
}

#[test]
fn builder_errors_stick() {
    let (rc, _) = fixed(200, "{}");
    assert!(
        rc.get()
            .namespace("a/b")
            .resource("pods")
            .url()
            .unwrap_err()
            .is_invalid_request()
    );
    assert!(rc.get().namespace("a").namespace("b").url().is_err());
    assert!(rc.get().name("").url().is_err());
    assert!(rc.get().resource("..").url().is_err());
    assert!(rc.get().sub_resource("a/%").url().is_err());
    assert!(
        rc.get()
            .resource("pods")
            .header("bad header", "v")
            .url()
            .is_err()
    );
}

#[tokio::test]
async fn an_empty_namespace_or_limit_is_refused_before_sending() {
    let (rc, seen) = fixed(200, "{}");
    for request in [
        rc.post().namespace("").resource("pods"),
        rc.get().namespace("").resource("pods").name("x"),
        rc.get().namespace("").resource("pods"),
        rc.get().resource("pods").max_watch_frame(0),
        rc.get().resource("pods").max_list_item(0),
        rc.get().resource("pods").max_list_body(Some(0)),
    ] {
        let err = request.do_raw().await.unwrap_err();
        assert!(err.is_invalid_request(), "{err}");
    }
    let err = rc.get().namespace("").url().unwrap_err();
    assert!(
        err.to_string().contains("leave the namespace unset"),
        "{err}"
    );
    assert!(seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn into_list_and_status_errors() {
    let (rc, seen) = fixed(
        200,
        r#"{"kind":"PodList","metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"a"}}]}"#,
    );
    let list = rc
        .get()
        .resource("pods")
        .versioned_params(&ListOptions::default().limit(1))
        .list::<Pod>()
        .await
        .unwrap();
    assert_eq!(list.resource_version, "9");
    assert_eq!(list.items[0].metadata.name.as_deref(), Some("a"));
    assert_eq!(seen.lock().unwrap()[0], "GET /api/v1/pods?limit=1");

    let (rc, _) = fixed(
        404,
        r#"{"kind":"Status","status":"Failure","reason":"NotFound","code":404,"message":"pods \"x\" not found"}"#,
    );
    let err = rc
        .get()
        .namespace("ns")
        .resource("pods")
        .name("x")
        .into::<Pod>()
        .await
        .unwrap_err();
    assert!(err.is_not_found());
    assert_eq!(err.to_string(), "api error (404): pods \"x\" not found");

    let (rc, _) = fixed(200, "not json");
    assert!(
        rc.get()
            .resource("pods")
            .into::<Pod>()
            .await
            .unwrap_err()
            .is_decode()
    );
}

#[tokio::test]
async fn watch_adds_watch_param_and_decodes_across_chunks() {
    let chunks: Vec<&'static [u8]> = vec![
        br#"{"type":"ADDED","object":{"metadata":{"name":"a"}}}"#,
        b"\n{\"type\":\"MODI",
        b"FIED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\n{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"5\"}}}\n",
    ];
    let seen = Seen::default();
    let s2 = seen.clone();
    let svc = tower::service_fn(move |req: http::Request<Body>| {
        s2.lock().unwrap().push(req.uri().to_string());
        let frames = chunks
            .clone()
            .into_iter()
            .map(|c| Ok::<_, Infallible>(http_body::Frame::data(Bytes::from_static(c))));
        async move {
            Ok::<_, Infallible>(http::Response::new(StreamBody::new(
                futures_util::stream::iter(frames),
            )))
        }
    });
    let rc = RestClient::new(Client::new(svc), "", "v1");
    let stream = rc
        .get()
        .resource("pods")
        .versioned_params(&ListOptions::default().resource_version("3").bookmarks(true))
        .watch::<Pod>()
        .await
        .unwrap();
    let events: Vec<_> = stream.collect().await;
    assert_eq!(events.len(), 3);
    assert!(matches!(events[2], Ok(WatchEvent::Bookmark(ref b)) if b.resource_version == "5"));
    assert_eq!(
        seen.lock().unwrap()[0],
        "/api/v1/pods?resourceVersion=3&allowWatchBookmarks=true&watch=true"
    );
}

#[tokio::test]
async fn watch_non_200_is_an_error() {
    let (rc, _) = fixed(403, "forbidden: user cannot watch pods");
    let err = rc.get().resource("pods").watch::<Pod>().await.unwrap_err();
    assert!(err.is_forbidden());
    assert_eq!(
        err.status().unwrap().message.as_deref(),
        Some("forbidden: user cannot watch pods")
    );
}

#[tokio::test(start_paused = true)]
async fn timeout_is_enforced() {
    let svc = tower::service_fn(|_req: http::Request<Body>| async {
        tokio::time::sleep(Duration::from_secs(60)).await;
        Ok::<_, Infallible>(http::Response::new(Body::empty()))
    });
    let rc = RestClient::new(Client::new(svc), "", "v1");
    let err = rc
        .get()
        .resource("pods")
        .timeout(Duration::from_secs(5))
        .do_raw()
        .await
        .unwrap_err();
    assert!(err.is_timeout());
}

#[tokio::test]
async fn stream_returns_raw_bytes() {
    let (rc, _) = fixed(200, "line1\nline2\n");
    let mut s = rc
        .get()
        .namespace("ns")
        .resource("pods")
        .name("p")
        .sub_resource("log")
        .stream()
        .await
        .unwrap();
    let mut all = Vec::new();
    while let Some(chunk) = s.next().await {
        all.extend_from_slice(&chunk.unwrap());
    }
    assert_eq!(all, b"line1\nline2\n");
}

#[test]
fn public_futures_and_streams_are_send() {
    fn send<T: Send>(_: &T) {}
    fn send_sync<T: Send + Sync>() {}
    fn stream<T: futures_core::Stream + Send + Unpin + 'static>() {}
    let (rc, _) = fixed(200, "{}");
    send(&rc.get().do_raw());
    send(&rc.get().into::<Pod>());
    send(&rc.get().list::<Pod>());
    send(&rc.get().watch::<Pod>());
    send(&rc.get().stream());
    send_sync::<Client>();
    send_sync::<RestClient>();
    send_sync::<Request>();
    stream::<WatchStream<Pod>>();
    stream::<ByteStream>();
}

mod client_go_watch;
mod content_type;
