//! Size limits against the simulator: an object over the limit fails a list and a watch with a
//! typed error, over a real socket, while objects within it pass.

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
    config.max_watch_frame = LIMIT;
    config.max_list_item = LIMIT;
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
