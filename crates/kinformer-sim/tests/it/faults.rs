//! Every fault kind, with counts and verb/resource matchers.

use std::time::{Duration, Instant};

use kinformer_sim::{Fault, FaultKind, ObjectOp, OpKind, Sim, SimHandle};
use serde_json::json;

use crate::common::{Next, client, cm, event_rv};

async fn sim() -> SimHandle {
    let sim = Sim::builder().start().await.unwrap();
    for i in 0..5 {
        sim.apply(ObjectOp::new(
            OpKind::Create,
            "configmaps",
            cm(&format!("c{i}"), json!({})),
        ))
        .await
        .unwrap();
    }
    sim
}

/// A `Status` fault with a `Retry-After` and/or a plain-text body, which `FaultKind::status`
/// (JSON, no `Retry-After`) cannot express.
fn status_with(code: u16, retry_after: Option<u64>, plain_text: bool) -> FaultKind {
    FaultKind::Status {
        code,
        retry_after,
        plain_text,
        message: None,
    }
}

/// Status faults answer with the API server's JSON `Status` (or plain text) and `Retry-After`,
/// honour verb/resource matchers, and fire `count` times (`-1`: until cleared).
#[tokio::test]
async fn status_faults_with_retry_after_json_and_plain_text_and_counts() {
    let sim = sim().await;
    let c = client(&sim);
    sim.add_faults([Fault::new(status_with(429, Some(2), false))
        .verbs(["list"])
        .resources(["configmaps"])])
        .await;
    assert_eq!(
        c.get("/api/v1/pods").await.status,
        200,
        "other resources are not affected"
    );
    let r = c.get("/api/v1/configmaps").await;
    assert_eq!(r.status, 429);
    assert_eq!(r.headers["retry-after"], "2");
    let s = r.json();
    assert_eq!(
        (
            s["reason"].as_str(),
            s["details"]["retryAfterSeconds"].as_u64()
        ),
        (Some("TooManyRequests"), Some(2))
    );
    assert_eq!(
        c.get("/api/v1/configmaps").await.status,
        200,
        "count 1 is used up"
    );

    sim.add_faults([Fault::new(status_with(429, Some(1), true)).count(2)])
        .await;
    for _ in 0..2 {
        let r = c.get("/api/v1/configmaps").await;
        assert_eq!(r.status, 429);
        assert!(
            r.headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/plain")
        );
        assert_eq!(&r.body[..], b"Too many requests, please try again later.\n");
    }
    assert_eq!(c.get("/api/v1/configmaps").await.status, 200);

    for code in [500, 503] {
        sim.add_faults([Fault::new(FaultKind::status(code)).verbs(["get"])])
            .await;
        assert_eq!(
            c.get("/api/v1/configmaps").await.status,
            200,
            "verbs matcher: list is not get"
        );
        let r = c.get("/api/v1/namespaces/default/configmaps/c1").await;
        assert_eq!(r.status.as_u16(), code);
        assert_eq!(r.json()["code"], code);
    }
    sim.add_faults([Fault::new(FaultKind::status(500)).count(-1)])
        .await;
    for _ in 0..3 {
        assert_eq!(c.get("/api/v1/configmaps").await.status, 500);
    }
    sim.clear_faults().await;
    assert_eq!(c.get("/api/v1/configmaps").await.status, 200);
}

/// A 410 on a continue page is an `Expired` Status carrying a fresh continue token, as the
/// API server answers when a paginated list's snapshot was compacted.
#[tokio::test]
async fn status_410_on_a_continue_page_is_expired_with_a_fresh_token() {
    let sim = sim().await;
    let c = client(&sim);
    let first = c.get("/api/v1/configmaps?limit=2").await.json();
    let token = first["metadata"]["continue"].as_str().unwrap().to_owned();
    sim.add_faults([Fault::new(FaultKind::status(410)).verbs(["list"])])
        .await;
    let r = c
        .get(&format!("/api/v1/configmaps?limit=2&continue={token}"))
        .await;
    assert_eq!(r.status, 410);
    let s = r.json();
    assert_eq!(s["reason"], "Expired");
    assert!(s["metadata"]["continue"].is_string());
    sim.add_faults([Fault::new(FaultKind::status(410)).verbs(["list"])])
        .await;
    let r = c.get("/api/v1/configmaps?limit=2").await;
    assert_eq!(
        (
            r.status.as_u16(),
            r.json()["reason"].as_str().map(str::to_owned)
        ),
        (410, Some("Expired".to_owned()))
    );
}

#[tokio::test]
async fn too_large_and_delay() {
    let sim = sim().await;
    let c = client(&sim);
    sim.add_faults([Fault::new(FaultKind::TooLarge)]).await;
    let r = c
        .get("/api/v1/configmaps?resourceVersion=1&resourceVersionMatch=NotOlderThan")
        .await;
    assert_eq!(r.status, 504);
    assert_eq!(
        r.json()["details"]["causes"][0]["reason"],
        "ResourceVersionTooLarge"
    );
    assert_eq!(r.headers["retry-after"], "1");
    sim.add_faults([Fault::new(FaultKind::Delay { seconds: 0.3 })])
        .await;
    let started = Instant::now();
    assert_eq!(c.get("/api/v1/configmaps").await.status, 200);
    assert!(started.elapsed() >= Duration::from_millis(300));
}

async fn watch_after(
    sim: &SimHandle,
    kind: FaultKind,
) -> (crate::common::Lines, Vec<serde_json::Value>) {
    sim.add_faults([Fault::new(kind).resources(["configmaps"])])
        .await;
    let mut w = client(sim).watch("/api/v1/configmaps?watch=1").await;
    let evs = w.events(2).await;
    (w, evs)
}

#[tokio::test]
async fn watch_faults_fire_after_k_events() {
    let sim = sim().await;
    // Faults of watch kinds never hit lists.
    sim.add_faults([Fault::new(FaultKind::WatchDrop { after_events: 0 })])
        .await;
    assert_eq!(client(&sim).get("/api/v1/configmaps").await.status, 200);
    sim.clear_faults().await;

    let (mut w, _) = watch_after(&sim, FaultKind::WatchDrop { after_events: 2 }).await;
    assert!(matches!(w.next(Duration::from_secs(5)).await, Next::Cut));

    let (mut w, _) = watch_after(&sim, FaultKind::WatchClose { after_events: 2 }).await;
    w.expect_end(Duration::from_secs(5)).await;

    let (mut w, _) = watch_after(&sim, FaultKind::WatchMalformed { after_events: 2 }).await;
    match w.next(Duration::from_secs(5)).await {
        Next::Line(l) => assert!(serde_json::from_str::<serde_json::Value>(&l).is_err()),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        w.event().await["type"],
        "ADDED",
        "the stream carries on after the broken line"
    );

    let (mut w, _) = watch_after(
        &sim,
        FaultKind::WatchError {
            after_events: 2,
            code: 500,
        },
    )
    .await;
    let e = w.event().await;
    assert_eq!(
        (e["type"].as_str(), e["object"]["code"].as_u64()),
        (Some("ERROR"), Some(500))
    );
    assert_eq!(e["object"]["reason"], "InternalError");
    w.expect_end(Duration::from_secs(5)).await;

    let started = Instant::now();
    let (mut w, _) = watch_after(
        &sim,
        FaultKind::WatchStall {
            after_events: 2,
            seconds: 0.5,
        },
    )
    .await;
    let e = w.event().await;
    assert!(
        started.elapsed() >= Duration::from_millis(450),
        "stalled before the third event"
    );
    assert_eq!(e["type"], "ADDED");
    sim.apply(ObjectOp::new(
        OpKind::Create,
        "configmaps",
        cm("live", json!({})),
    ))
    .await
    .unwrap();
    let later: Vec<_> = w.events(3).await;
    let live = later.last().unwrap();
    assert_eq!(live["object"]["metadata"]["name"], "live");
    assert_eq!(event_rv(live), sim.stats().await.revision);
}
