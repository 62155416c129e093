//! Size limits against the simulator: an object over the limit fails a list and a watch with a
//! typed error, over a real socket, while objects within it pass.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_core::{ListOptions, WatchEvent};
use kinformer_rest::{Client, Config, RestClient};
use kinformer_sim::{ObjectOp, OpKind, Sim};

const LIMIT: usize = 16 * 1024;

fn big_configmap(name: &str, bytes: usize) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "default"},
        "data": {"blob": "x".repeat(bytes)},
    })
}

#[tokio::test]
async fn an_object_over_the_limit_fails_list_and_watch_with_a_typed_error() {
    let sim = Sim::builder().configmaps(3).start().await.unwrap();
    let mut config = Config::new(sim.url().parse().unwrap());
    config = config.with_max_watch_frame(LIMIT).unwrap();
    config = config.with_max_list_item(LIMIT).unwrap();
    let rc = RestClient::new(Client::from_config(&config).unwrap(), "", "v1");
    let before = rc
        .get()
        .resource("configmaps")
        .list::<ConfigMap>()
        .await
        .unwrap();
    assert_eq!(before.items.len(), 3);

    let opts = ListOptions::default()
        .resource_version(&before.resource_version)
        .timeout_seconds(30);
    let mut watch = rc
        .get()
        .resource("configmaps")
        .versioned_params(&opts)
        .watch::<ConfigMap>()
        .await
        .unwrap();
    let create =
        |name: &str, bytes| ObjectOp::new(OpKind::Create, "configmaps", big_configmap(name, bytes));
    sim.apply(create("fits", LIMIT / 2)).await.unwrap();
    sim.apply(create("huge", 4 * LIMIT)).await.unwrap();

    let first = tokio::time::timeout(Duration::from_secs(20), watch.next())
        .await
        .unwrap();
    assert!(matches!(first, Some(Ok(WatchEvent::Added(_)))), "{first:?}");
    let err = tokio::time::timeout(Duration::from_secs(20), watch.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap_err();
    assert!(
        err.is_response_too_large() && !err.is_transport(),
        "{err:?}"
    );
    assert!(err.to_string().contains("16384 bytes"), "{err}");
    let end = tokio::time::timeout(Duration::from_secs(20), watch.next())
        .await
        .unwrap();
    assert!(end.is_none(), "the watch ends after the error");
    // With a per-request limit that fits, the same events arrive.
    let mut roomy = rc
        .get()
        .resource("configmaps")
        .versioned_params(&opts)
        .max_watch_frame(8 * LIMIT)
        .watch::<ConfigMap>()
        .await
        .unwrap();
    for name in ["fits", "huge"] {
        let event = tokio::time::timeout(Duration::from_secs(20), roomy.next())
            .await
            .unwrap();
        let Some(Ok(WatchEvent::Added(cm))) = event else {
            panic!("{event:?}")
        };
        assert_eq!(cm.metadata.name.as_deref(), Some(name));
    }

    let err = rc
        .get()
        .resource("configmaps")
        .list::<ConfigMap>()
        .await
        .unwrap_err();
    assert!(err.is_response_too_large(), "{err:?}");

    // The same list passes with a per-request limit that fits, and a body limit below the
    // body's size fails it again.
    let list = rc
        .get()
        .resource("configmaps")
        .max_list_item(8 * LIMIT)
        .list::<ConfigMap>()
        .await
        .unwrap();
    assert_eq!(list.items.len(), 5);
    let err = rc
        .get()
        .resource("configmaps")
        .max_list_item(8 * LIMIT)
        .max_list_body(Some(2 * LIMIT))
        .list::<ConfigMap>()
        .await
        .unwrap_err();
    assert!(err.is_response_too_large(), "{err:?}");
}

/// A 500 whose body is 1.6 GB, made lazily as it is read; `sent` counts the bytes handed out.
fn endless_500(sent: Arc<AtomicUsize>) -> crate::server::Handler {
    use http_body_util::BodyExt as _;
    Arc::new(move |_req| {
        let chunk = bytes::Bytes::from(vec![b'x'; 16 * 1024]);
        let sent = sent.clone();
        let frames = (0..100_000).map(move |_| {
            sent.fetch_add(chunk.len(), Ordering::Relaxed);
            Ok::<_, std::convert::Infallible>(hyper::body::Frame::data(chunk.clone()))
        });
        let body = http_body_util::StreamBody::new(futures_util::stream::iter(frames));
        let mut resp = http::Response::new(body.boxed_unsync());
        *resp.status_mut() = http::StatusCode::INTERNAL_SERVER_ERROR;
        resp
    })
}

#[tokio::test]
async fn an_endless_error_body_is_cut_at_the_object_limit() {
    let sent = Arc::new(AtomicUsize::new(0));
    let server = crate::server::serve(Default::default(), endless_500(sent.clone())).await;
    let mut config = Config::new(server.url("http"));
    config = config.with_max_list_item(256 * 1024).unwrap();
    config = config.with_max_retries(0);
    let rc = RestClient::new(Client::from_config(&config).unwrap(), "", "v1");
    let list = rc.get().resource("configmaps").list::<ConfigMap>();
    let err = tokio::time::timeout(Duration::from_secs(20), list)
        .await
        .unwrap()
        .unwrap_err();
    assert!(err.is_internal_error(), "{err:?}");
    // What was read is the limit plus what socket buffers took in before the client hung up.
    let read = sent.load(Ordering::Relaxed);
    assert!(read < 64 << 20, "{read} bytes were produced");
    let watch = rc.get().resource("configmaps").watch::<ConfigMap>();
    let err = tokio::time::timeout(Duration::from_secs(20), watch)
        .await
        .unwrap()
        .unwrap_err();
    assert!(err.is_internal_error(), "{err:?}");
}
