//! Against kinformer-sim: kubeconfig + TLS + token, lists and watches, and every fault kind.

use std::time::Duration;

use futures_util::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kinformer_core::{ListOptions, WatchEvent};
use kinformer_rest::{Client, Config, Kubeconfig, KubeconfigOptions, RestClient, WatchStream};
use kinformer_sim::{Fault, FaultKind, ObjectOp, OpKind, Sim, SimHandle};

fn config_for(sim: &SimHandle) -> Config {
    let kubeconfig = Kubeconfig::from_yaml(&sim.kubeconfig(), None).unwrap();
    Config::from_custom_kubeconfig(kubeconfig, &KubeconfigOptions::default()).unwrap()
}

/// A client on the sim's network endpoint, configured from its kubeconfig.
fn network(sim: &SimHandle) -> RestClient {
    RestClient::new(Client::from_config(&config_for(sim)).unwrap(), "", "v1")
}

/// A client on the sim's in-process service (no socket), with the full layer stack.
fn in_process(sim: &SimHandle) -> RestClient {
    let client = Client::from_config_with_transport(&config_for(sim), sim.service()).unwrap();
    RestClient::new(client, "", "v1")
}

fn configmap(name: &str) -> serde_json::Value {
    serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}, "data": {"k": name}})
}

async fn watch_pods(rc: &RestClient, rv: &str) -> WatchStream<Pod> {
    let opts = ListOptions::default()
        .resource_version(rv)
        .bookmarks(true)
        .timeout_seconds(60);
    rc.get()
        .resource("pods")
        .versioned_params(&opts)
        .watch::<Pod>()
        .await
        .unwrap()
}

async fn next<K>(stream: &mut WatchStream<K>) -> Option<kinformer_rest::Result<WatchEvent<K>>>
where
    K: serde::de::DeserializeOwned + 'static,
{
    tokio::time::timeout(Duration::from_secs(20), stream.next())
        .await
        .expect("watch event in time")
}

#[tokio::test]
async fn tls_token_list_and_watch_over_the_network() {
    let sim = Sim::builder()
        .pods(30)
        .namespaces(3)
        .seed(1)
        .tls(true)
        .token("s3cret")
        .start()
        .await
        .unwrap();
    let rc = network(&sim);
    let list = rc
        .get()
        .resource("pods")
        .versioned_params(&ListOptions::default().limit(20))
        .list::<Pod>()
        .await
        .unwrap();
    assert_eq!(list.items.len(), 20);
    assert!(list.continue_token.is_some());
    let rest = rc
        .get()
        .resource("pods")
        .versioned_params(
            &ListOptions::default().continue_token(list.continue_token.clone().unwrap()),
        )
        .list::<Pod>()
        .await
        .unwrap();
    assert_eq!(rest.items.len(), 10);

    let mut watch = watch_pods(&rc, &list.resource_version).await;
    let pod = list.items[0].clone();
    let mut changed = serde_json::to_value(&*pod).unwrap();
    changed["metadata"]["labels"] = serde_json::json!({"changed": "yes"});
    sim.apply(ObjectOp::new(OpKind::Update, "pods", changed))
        .await
        .unwrap();
    let event = next(&mut watch).await.unwrap().unwrap();
    let WatchEvent::Modified(p) = event else {
        panic!("unexpected {event:?}")
    };
    assert_eq!(p.metadata.name, pod.metadata.name);

    // A wrong token is a 401.
    let mut bad = config_for(&sim);
    bad = bad.with_auth(kinformer_rest::auth::Auth::Bearer(
        kinformer_rest::auth::Secret::new("wrong"),
    ));
    let rc_bad = RestClient::new(Client::from_config(&bad).unwrap(), "", "v1");
    assert!(
        rc_bad
            .get()
            .resource("pods")
            .list::<Pod>()
            .await
            .unwrap_err()
            .is_unauthorized()
    );
}

#[tokio::test]
async fn many_concurrent_watches_on_one_client() {
    let sim = Sim::builder()
        .pods(5)
        .seed(2)
        .tls(true)
        .start()
        .await
        .unwrap();
    let rc = network(&sim);
    let list = rc.get().resource("pods").list::<Pod>().await.unwrap();
    let mut watches = Vec::new();
    for _ in 0..64 {
        watches.push(watch_pods(&rc, &list.resource_version).await);
    }
    assert_eq!(sim.stats().await.open_watches, 64);
    sim.apply(ObjectOp::new(
        OpKind::Create,
        "configmaps",
        configmap("unrelated"),
    ))
    .await
    .unwrap();
    let mut created = serde_json::to_value(&*list.items[0]).unwrap();
    created["metadata"] = serde_json::json!({"name": "new-pod", "namespace": "default"});
    sim.apply(ObjectOp::new(OpKind::Create, "pods", created))
        .await
        .unwrap();
    for w in &mut watches {
        let event = next(w).await.unwrap().unwrap();
        assert_eq!(
            event.object().unwrap().metadata.name.as_deref(),
            Some("new-pod")
        );
    }
    drop(watches);
}

/// A predicate an error must satisfy.
type Check = fn(&kinformer_rest::Error) -> bool;

#[tokio::test]
async fn status_faults_map_to_predicates() {
    let sim = Sim::builder().pods(3).seed(3).start().await.unwrap();
    let rc = in_process(&sim);
    let cases: Vec<(FaultKind, Check)> = vec![
        (FaultKind::status(500), |e| e.is_internal_error()),
        (
            FaultKind::Status {
                code: 503,
                retry_after: None,
                plain_text: true,
                message: None,
            },
            |e| e.is_service_unavailable(),
        ),
        (FaultKind::status(410), |e| {
            e.is_gone() && e.is_resource_expired()
        }),
        (FaultKind::status(404), |e| e.is_not_found()),
        (FaultKind::status(409), |e| e.is_conflict()),
        (
            FaultKind::Status {
                code: 401,
                retry_after: None,
                plain_text: true,
                message: None,
            },
            |e| e.is_unauthorized(),
        ),
        (FaultKind::TooLarge, |e| {
            e.is_too_large_resource_version() && e.is_timeout()
        }),
    ];
    for (kind, check) in cases {
        sim.add_faults([Fault::new(kind.clone()).verbs(["list"])])
            .await;
        // No retries: a 5xx with Retry-After (the too-large answer has one) would be retried.
        let Err(err) = rc.get().resource("pods").max_retries(0).list::<Pod>().await else {
            panic!("{kind:?} did not fail the list");
        };
        assert!(check(&err), "{kind:?} gave {err:?}");
        assert!(err.status().is_some(), "{kind:?}");
    }
    // The same faults on a watch request.
    sim.add_faults([Fault::new(FaultKind::Status {
        code: 429,
        retry_after: None,
        plain_text: true,
        message: None,
    })
    .verbs(["watch"])])
        .await;
    let err = rc.get().resource("pods").watch::<Pod>().await.unwrap_err();
    assert!(err.is_too_many_requests());
}

#[tokio::test(start_paused = true)]
async fn retry_after_429_is_honoured_then_succeeds() {
    let sim = Sim::builder().pods(3).seed(4).start().await.unwrap();
    let rc = in_process(&sim);
    sim.add_faults([Fault::new(FaultKind::Status {
        code: 429,
        retry_after: Some(3),
        plain_text: true,
        message: None,
    })
    .count(2)
    .verbs(["list"])])
        .await;
    let start = tokio::time::Instant::now();
    let list = rc.get().resource("pods").list::<Pod>().await.unwrap();
    assert_eq!(list.items.len(), 3);
    assert_eq!(start.elapsed().as_secs(), 6);
    // Exhausting the retries surfaces the 429 with its delay.
    sim.add_faults([Fault::new(FaultKind::Status {
        code: 503,
        retry_after: Some(1),
        plain_text: false,
        message: None,
    })
    .count(-1)
    .verbs(["list"])])
        .await;
    let err = rc
        .get()
        .resource("pods")
        .max_retries(2)
        .list::<Pod>()
        .await
        .unwrap_err();
    assert!(err.is_service_unavailable());
    assert_eq!(err.retry_after(), Some(Duration::from_secs(1)));
    sim.clear_faults().await;
}

#[tokio::test(start_paused = true)]
async fn delay_fault_hits_the_client_timeout() {
    let sim = Sim::builder().pods(1).seed(5).start().await.unwrap();
    let rc = in_process(&sim);
    sim.add_faults([Fault::new(FaultKind::Delay { seconds: 30.0 }).verbs(["list"])])
        .await;
    let err = rc
        .get()
        .resource("pods")
        .timeout(Duration::from_secs(5))
        .list::<Pod>()
        .await
        .unwrap_err();
    assert!(err.is_timeout() && !err.is_transport());
}

/// Opens a watch from the list's revision with one watch fault armed after one event, then
/// makes two changes.
async fn faulted_watch(
    sim: &SimHandle,
    rc: &RestClient,
    kind: FaultKind,
) -> WatchStream<ConfigMap> {
    let list = rc
        .get()
        .resource("configmaps")
        .list::<ConfigMap>()
        .await
        .unwrap();
    sim.add_faults([Fault::new(kind).verbs(["watch"])]).await;
    let opts = ListOptions::default().resource_version(list.resource_version.clone());
    let stream = rc
        .get()
        .resource("configmaps")
        .versioned_params(&opts)
        .watch::<ConfigMap>()
        .await
        .unwrap();
    for name in ["a", "b"] {
        let name = format!("{name}-{}", list.resource_version);
        sim.apply(ObjectOp::new(
            OpKind::Create,
            "configmaps",
            configmap(&name),
        ))
        .await
        .unwrap();
    }
    stream
}

#[tokio::test]
async fn watch_faults_surface_as_typed_items() {
    let sim = Sim::builder().seed(6).tls(true).start().await.unwrap();
    for rc in [network(&sim), in_process(&sim)] {
        // Drop: one event, then a transport error.
        let mut w = faulted_watch(&sim, &rc, FaultKind::WatchDrop { after_events: 1 }).await;
        let first = next(&mut w).await;
        assert!(
            matches!(first, Some(Ok(WatchEvent::Added(_)))),
            "{:?}",
            first.map(|r| r.map(|e| e.type_name()))
        );
        let err = next(&mut w).await.unwrap().unwrap_err();
        assert!(err.is_transport(), "{err:?}");
        assert!(next(&mut w).await.is_none());

        // Clean close: one event, then the end.
        let mut w = faulted_watch(&sim, &rc, FaultKind::WatchClose { after_events: 1 }).await;
        assert!(matches!(next(&mut w).await, Some(Ok(WatchEvent::Added(_)))));
        assert!(next(&mut w).await.is_none());

        // Malformed: one event, one decode error, then the end (never a silent skip).
        let mut w = faulted_watch(&sim, &rc, FaultKind::WatchMalformed { after_events: 1 }).await;
        assert!(matches!(next(&mut w).await, Some(Ok(WatchEvent::Added(_)))));
        let err = next(&mut w).await.unwrap().unwrap_err();
        assert!(err.is_decode(), "{err:?}");
        assert!(next(&mut w).await.is_none());

        // Error event: its Status arrives as an event, then the end.
        let mut w = faulted_watch(
            &sim,
            &rc,
            FaultKind::WatchError {
                after_events: 1,
                code: 410,
            },
        )
        .await;
        assert!(matches!(next(&mut w).await, Some(Ok(WatchEvent::Added(_)))));
        match next(&mut w).await {
            Some(Ok(WatchEvent::Error(status))) => {
                let err = kinformer_rest::Error::from_watch_status(*status);
                assert!(err.is_gone() && err.is_watch_error_event());
            }
            other => panic!("expected an ERROR event, got {other:?}"),
        }
        assert!(next(&mut w).await.is_none());

        // Stall: both events still arrive after the pause.
        let mut w = faulted_watch(
            &sim,
            &rc,
            FaultKind::WatchStall {
                after_events: 1,
                seconds: 0.2,
            },
        )
        .await;
        assert!(matches!(next(&mut w).await, Some(Ok(WatchEvent::Added(_)))));
        assert!(matches!(next(&mut w).await, Some(Ok(WatchEvent::Added(_)))));
        sim.clear_faults().await;
    }
}

#[tokio::test]
async fn streaming_list_ends_with_the_annotated_bookmark() {
    let sim = Sim::builder().pods(7).seed(8).start().await.unwrap();
    let rc = in_process(&sim);
    let opts = ListOptions::default()
        .send_initial_events(true)
        .bookmarks(true)
        .resource_version_match(kinformer_core::ResourceVersionMatch::NotOlderThan);
    let mut w = rc
        .get()
        .resource("pods")
        .versioned_params(&opts)
        .watch::<Pod>()
        .await
        .unwrap();
    let mut added = 0;
    loop {
        match next(&mut w).await.unwrap().unwrap() {
            WatchEvent::Added(_) => added += 1,
            WatchEvent::Bookmark(b) if b.initial_events_end => break,
            WatchEvent::Bookmark(_) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(added, 7);
}
