//! WATCH rules: start points, ordering, 410s, bookmarks, timeouts, streaming lists, selectors,
//! single-object watches, slow watchers and dropping open watches.

use std::time::Duration;

use kinformer_sim::{Compaction, DropMode, ObjectOp, OpKind, Sim, SimHandle};
use serde_json::json;

use crate::common::{Next, client, cm, event_rv, in_process, rv_of};

async fn sim() -> SimHandle {
    Sim::builder()
        .too_large_wait(Duration::from_millis(200))
        .start()
        .await
        .unwrap()
}

async fn create(sim: &SimHandle, name: &str, labels: serde_json::Value) -> u64 {
    let v = sim
        .apply(ObjectOp::new(OpKind::Create, "configmaps", cm(name, labels)).namespace("w"))
        .await
        .unwrap();
    rv_of(&v)
}

async fn patch(sim: &SimHandle, name: &str, patch: serde_json::Value) -> u64 {
    let v = sim
        .apply(
            ObjectOp::new(OpKind::Patch, "configmaps", patch)
                .namespace("w")
                .name(name),
        )
        .await
        .unwrap();
    rv_of(&v)
}

#[tokio::test]
async fn rv_empty_and_zero_send_synthetic_added_in_key_order_then_changes() {
    let sim = sim().await;
    for n in ["c", "a", "b"] {
        create(&sim, n, json!({})).await;
    }
    for rv in ["", "0"] {
        let mut w = client(&sim)
            .watch(&format!(
                "/api/v1/configmaps?watch=true&resourceVersion={rv}"
            ))
            .await;
        let evs = w.events(3).await;
        assert!(evs.iter().all(|e| e["type"] == "ADDED"));
        assert!(
            evs.iter()
                .all(|e| e["object"]["kind"] == "ConfigMap" && e["object"]["apiVersion"] == "v1")
        );
        let got: Vec<_> = evs
            .iter()
            .map(|e| e["object"]["metadata"]["name"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(got, ["a", "b", "c"]);
        let rv = patch(&sim, "a", json!({"data": {"k": rv.len().to_string()}})).await;
        let e = w.event().await;
        assert_eq!(e["type"], "MODIFIED");
        assert_eq!(event_rv(&e), rv);
    }
}

#[tokio::test]
async fn rv_n_streams_every_later_event_in_order_and_deleted_carries_the_delete_revision() {
    let sim = sim().await;
    create(&sim, "x", json!({})).await;
    let list = client(&sim).get("/api/v1/configmaps").await.json();
    let from = rv_of(&list);
    let mut w = client(&sim)
        .watch(&format!(
            "/api/v1/configmaps?watch=1&resourceVersion={from}"
        ))
        .await;
    let r1 = create(&sim, "y", json!({})).await;
    let r2 = patch(&sim, "x", json!({"data": {"k": "2"}})).await;
    let deleted = sim
        .apply(ObjectOp::delete("configmaps", "w", "x"))
        .await
        .unwrap();
    let r3 = rv_of(&deleted);
    let evs = w.events(3).await;
    assert_eq!(
        evs.iter()
            .map(|e| e["type"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["ADDED", "MODIFIED", "DELETED"]
    );
    assert_eq!(evs.iter().map(event_rv).collect::<Vec<_>>(), [r1, r2, r3]);
    assert_eq!(
        evs[2]["object"]["data"]["k"], "2",
        "DELETED carries the last state"
    );
    assert!(matches!(
        w.next(Duration::from_millis(100)).await,
        Next::Timeout
    ));
}

#[tokio::test]
async fn compacted_rv_gets_an_error_event_with_410_then_the_stream_ends() {
    let sim = sim().await;
    let old = create(&sim, "x", json!({})).await;
    create(&sim, "y", json!({})).await;
    let compacted = sim.compact(Compaction::all()).await;
    let mut w = client(&sim)
        .watch(&format!(
            "/api/v1/configmaps?watch=1&resourceVersion={}",
            old - 1
        ))
        .await;
    let e = w.event().await;
    assert_eq!(e["type"], "ERROR");
    assert_eq!(e["object"]["kind"], "Status");
    assert_eq!(e["object"]["code"], 410);
    assert_eq!(e["object"]["reason"], "Expired");
    assert_eq!(
        e["object"]["message"],
        format!("too old resource version: {} ({compacted})", old - 1)
    );
    w.expect_end(Duration::from_secs(5)).await;
    // The compaction revision itself is still watchable.
    let mut ok = client(&sim)
        .watch(&format!(
            "/api/v1/configmaps?watch=1&resourceVersion={compacted}"
        ))
        .await;
    assert!(matches!(
        ok.next(Duration::from_millis(100)).await,
        Next::Timeout
    ));
}

#[tokio::test(start_paused = true)]
async fn bookmarks_periodic_and_before_timeout_then_clean_end() {
    let sim = Sim::builder()
        .bookmark_interval(Duration::from_secs(5))
        .compact_interval(None)
        .start()
        .await
        .unwrap();
    let c = in_process(&sim);
    let rv = sim.stats().await.revision;
    let mut w = c
        .watch(&format!(
            "/api/v1/pods?watch=1&resourceVersion={rv}&allowWatchBookmarks=true&timeoutSeconds=12"
        ))
        .await;
    let pod =
        json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}});
    let created = sim
        .apply(ObjectOp::new(OpKind::Create, "pods", pod))
        .await
        .unwrap();
    let e = w.event().await;
    assert_eq!(e["type"], "ADDED");
    let b = w.event().await;
    assert_eq!(b["type"], "BOOKMARK");
    assert_eq!(b["object"]["kind"], "Pod");
    assert_eq!(b["object"]["spec"]["containers"], serde_json::Value::Null);
    assert!(event_rv(&b) >= rv_of(&created));
    assert!(b["object"]["metadata"].get("annotations").is_none());
    // Second periodic bookmark at 10 s, then one 2 s before the 12 s timeout... which is also 10 s.
    let b2 = w.event().await;
    assert_eq!(b2["type"], "BOOKMARK");
    w.expect_end(Duration::from_secs(5)).await;
    // Without allowWatchBookmarks: no bookmark, just the end.
    let mut quiet = c
        .watch(&format!(
            "/api/v1/pods?watch=1&resourceVersion={rv}&timeoutSeconds=7"
        ))
        .await;
    assert_eq!(quiet.event().await["type"], "ADDED");
    quiet.expect_end(Duration::from_secs(10)).await;
}

#[tokio::test(start_paused = true)]
async fn bookmark_two_seconds_before_timeout() {
    let sim = Sim::builder()
        .bookmark_interval(Duration::from_secs(60))
        .compact_interval(None)
        .start()
        .await
        .unwrap();
    let rv = sim.stats().await.revision;
    let c = in_process(&sim);
    let started = tokio::time::Instant::now();
    let mut w = c.watch(&format!("/api/v1/configmaps?watch=1&resourceVersion={rv}&allowWatchBookmarks=1&timeoutSeconds=20")).await;
    let b = w.event().await;
    assert_eq!(b["type"], "BOOKMARK");
    assert_eq!(event_rv(&b), rv);
    let at = started.elapsed();
    assert!(
        at >= Duration::from_secs(17) && at <= Duration::from_secs(19),
        "bookmark at {at:?}"
    );
    w.expect_end(Duration::from_secs(5)).await;
    assert!(started.elapsed() >= Duration::from_secs(20));
}

#[tokio::test]
async fn streaming_list_ends_initial_events_with_the_annotated_bookmark() {
    let sim = sim().await;
    for n in ["b", "a"] {
        create(&sim, n, json!({})).await;
    }
    let state_rv = sim.stats().await.revision;
    let c = client(&sim);
    for query in [
        "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
        "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=1",
        // With WatchList on, a legacy watch from "" with bookmarks gets the same end marker.
        "watch=1&allowWatchBookmarks=true",
    ] {
        let mut w = c
            .watch(&format!("/api/v1/namespaces/w/configmaps?{query}"))
            .await;
        let evs = w.events(3).await;
        assert_eq!(evs[0]["type"], "ADDED");
        assert_eq!(evs[0]["object"]["metadata"]["name"], "a");
        assert_eq!(evs[1]["object"]["metadata"]["name"], "b");
        assert_eq!(evs[2]["type"], "BOOKMARK", "{query}");
        assert_eq!(
            evs[2]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"],
            "true"
        );
        assert_eq!(event_rv(&evs[2]), state_rv);
    }
    // Without allowWatchBookmarks the end is never marked.
    let mut w = c.watch("/api/v1/namespaces/w/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan").await;
    w.events(2).await;
    assert!(matches!(
        w.next(Duration::from_millis(100)).await,
        Next::Timeout
    ));
    // sendInitialEvents=false: no initial events.
    let mut w = c.watch("/api/v1/namespaces/w/configmaps?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan").await;
    let rv = create(&sim, "c", json!({})).await;
    let e = w.event().await;
    assert_eq!((e["type"].as_str(), event_rv(&e)), (Some("ADDED"), rv));
}

#[tokio::test]
async fn watch_validation_and_future_revisions() {
    let sim = sim().await;
    let c = client(&sim);
    for q in [
        "sendInitialEvents=true",
        "resourceVersionMatch=NotOlderThan",
        "sendInitialEvents=true&resourceVersionMatch=Exact",
    ] {
        let r = c.get(&format!("/api/v1/configmaps?watch=1&{q}")).await;
        assert_eq!(r.status, 422, "{q}");
        assert_eq!(
            r.json()["details"]["causes"][0]["field"],
            "resourceVersionMatch"
        );
    }
    let future = sim.stats().await.revision + 50;
    let mut w = c
        .watch(&format!("/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion={future}"))
        .await;
    let e = w.event().await;
    assert_eq!(e["type"], "ERROR");
    assert_eq!(e["object"]["code"], 504);
    assert_eq!(
        e["object"]["details"]["causes"][0]["reason"],
        "ResourceVersionTooLarge"
    );
    // A plain watch from a future revision is accepted and skips everything up to it.
    let now = sim.stats().await.revision;
    let mut w = c
        .watch(&format!(
            "/api/v1/configmaps?watch=1&resourceVersion={}",
            now + 1
        ))
        .await;
    create(&sim, "skipped", json!({})).await;
    let rv = create(&sim, "seen", json!({})).await;
    let e = w.event().await;
    assert_eq!(
        (e["object"]["metadata"]["name"].as_str(), event_rv(&e)),
        (Some("seen"), rv)
    );
}

#[tokio::test]
async fn objects_entering_and_leaving_a_selector_arrive_as_added_and_deleted() {
    let sim = sim().await;
    create(&sim, "x", json!({"tier": "silver"})).await;
    let from = sim.stats().await.revision;
    let mut w = client(&sim)
        .watch(&format!(
            "/api/v1/configmaps?watch=1&resourceVersion={from}&labelSelector=tier%3Dgold"
        ))
        .await;
    let r_in = patch(&sim, "x", json!({"metadata": {"labels": {"tier": "gold"}}})).await;
    let r_mod = patch(&sim, "x", json!({"data": {"k": "changed"}})).await;
    patch(&sim, "x", json!({"data": {"k": "before-leaving"}})).await;
    let r_out = patch(
        &sim,
        "x",
        json!({"metadata": {"labels": {"tier": "bronze"}}, "data": {"k": "after"}}),
    )
    .await;
    create(&sim, "other", json!({"tier": "silver"})).await;
    let evs = w.events(4).await;
    assert_eq!(
        evs.iter()
            .map(|e| e["type"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["ADDED", "MODIFIED", "MODIFIED", "DELETED"]
    );
    assert_eq!(event_rv(&evs[0]), r_in);
    assert_eq!(event_rv(&evs[1]), r_mod);
    assert_eq!(event_rv(&evs[3]), r_out, "DELETED carries the new revision");
    assert_eq!(
        evs[3]["object"]["metadata"]["labels"]["tier"], "gold",
        "and the previous state"
    );
    assert_eq!(evs[3]["object"]["data"]["k"], "before-leaving");
    assert!(matches!(
        w.next(Duration::from_millis(100)).await,
        Next::Timeout
    ));
}

#[tokio::test]
async fn watch_one_object_by_name() {
    let sim = sim().await;
    create(&sim, "a", json!({})).await;
    create(&sim, "b", json!({})).await;
    let c = client(&sim);
    let mut w = c
        .watch("/api/v1/namespaces/w/configmaps/a?watch=true")
        .await;
    assert_eq!(w.event().await["object"]["metadata"]["name"], "a");
    patch(&sim, "b", json!({"data": {"k": "1"}})).await;
    let rv = patch(&sim, "a", json!({"data": {"k": "1"}})).await;
    let e = w.event().await;
    assert_eq!(
        (e["object"]["metadata"]["name"].as_str(), event_rv(&e)),
        (Some("a"), rv)
    );
    let r = c
        .get("/api/v1/namespaces/w/configmaps/a?watch=true&fieldSelector=metadata.name%3Db")
        .await;
    assert_eq!(r.status, 400);
}

#[tokio::test]
async fn timeout_seconds_ends_the_stream_cleanly() {
    let sim = sim().await;
    let mut w = client(&sim)
        .watch("/api/v1/configmaps?watch=1&resourceVersion=1&timeoutSeconds=1")
        .await;
    w.expect_end(Duration::from_secs(5)).await;
}

#[tokio::test]
async fn a_watcher_that_falls_behind_compaction_gets_410() {
    let sim = Sim::builder()
        .pods(20)
        .seed(5)
        .compact_interval(None)
        .start()
        .await
        .unwrap();
    let c = in_process(&sim);
    let from = sim.stats().await.revision;
    let mut w = c
        .watch(&format!("/api/v1/pods?watch=1&resourceVersion={from}"))
        .await;
    let state = sim.state("pods", true).await.unwrap();
    for i in 0..2500 {
        let p = &state.items[i % state.items.len()];
        let op = ObjectOp::new(
            OpKind::Patch,
            "pods",
            json!({"metadata": {"annotations": {"n": i.to_string()}}}),
        )
        .namespace(p["namespace"].as_str().unwrap())
        .name(p["name"].as_str().unwrap());
        sim.apply(op).await.unwrap();
    }
    sim.compact(Compaction::all()).await;
    let mut seen = 0;
    loop {
        match w.next(Duration::from_secs(10)).await {
            Next::Line(l) => {
                let e: serde_json::Value = serde_json::from_str(&l).unwrap();
                if e["type"] == "ERROR" {
                    assert_eq!(e["object"]["code"], 410);
                    break;
                }
                seen += 1;
            }
            other => panic!("expected events then ERROR 410, got {other:?} after {seen}"),
        }
    }
    assert!(seen < 2500, "the watcher was cut short ({seen} events)");
    w.expect_end(Duration::from_secs(5)).await;
}

/// Every `DropMode` on an open watch: abrupt cut, clean end, ERROR 410 then end, a malformed
/// line the stream survives, and a stall that delays the next event.
#[tokio::test]
async fn dropping_open_watches_in_every_mode() {
    let sim = sim().await;
    let c = client(&sim);
    let url = "/api/v1/configmaps?watch=1&resourceVersion=1";
    let mut w = c.watch(url).await;
    wait_open(&sim, 1).await;
    assert_eq!(sim.drop_watches(DropMode::Abrupt).await, 1);
    assert!(matches!(w.next(Duration::from_secs(5)).await, Next::Cut));

    let mut w = c.watch(url).await;
    wait_open(&sim, 1).await;
    sim.drop_watches(DropMode::Clean).await;
    w.expect_end(Duration::from_secs(5)).await;

    let mut w = c.watch(url).await;
    wait_open(&sim, 1).await;
    sim.drop_watches(DropMode::Error410).await;
    let e = w.event().await;
    assert_eq!(
        (e["type"].as_str(), e["object"]["code"].as_u64()),
        (Some("ERROR"), Some(410))
    );
    w.expect_end(Duration::from_secs(5)).await;

    let mut w = c.watch(url).await;
    wait_open(&sim, 1).await;
    sim.drop_watches(DropMode::Malformed).await;
    match w.next(Duration::from_secs(5)).await {
        Next::Line(l) => assert!(
            serde_json::from_str::<serde_json::Value>(&l).is_err(),
            "{l}"
        ),
        other => panic!("{other:?}"),
    }
    let rv = create(&sim, "after-malformed", json!({})).await;
    assert_eq!(event_rv(&w.event().await), rv, "the stream carries on");

    sim.drop_watches(DropMode::Stall { seconds: 0.5 }).await;
    // Kept: a stall is not observable from outside, so this lets the watcher take it before the write.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let started = std::time::Instant::now();
    let rv = create(&sim, "after-stall", json!({})).await;
    assert_eq!(event_rv(&w.event().await), rv);
    assert!(
        started.elapsed() >= Duration::from_millis(350),
        "stalled {:?}",
        started.elapsed()
    );
}

pub async fn wait_open(sim: &SimHandle, n: usize) {
    for _ in 0..200 {
        if sim.stats().await.open_watches >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("watch not open");
}

#[tokio::test]
async fn history_is_bounded_like_the_watch_cache_window() {
    let sim = Sim::builder()
        .max_history(100)
        .compact_interval(None)
        .start()
        .await
        .unwrap();
    let start = sim.stats().await.revision;
    create(&sim, "x", json!({})).await;
    for i in 0..300 {
        patch(&sim, "x", json!({"data": {"k": i.to_string()}})).await;
    }
    let stats = sim.stats().await;
    assert!(
        stats.revision - stats.compacted_revision <= 100,
        "{stats:?}"
    );
    assert!(stats.events["configmaps"] <= 100);
    let mut w = client(&sim)
        .watch(&format!(
            "/api/v1/configmaps?watch=1&resourceVersion={start}"
        ))
        .await;
    let e = w.event().await;
    assert_eq!(
        (e["type"].as_str(), e["object"]["code"].as_u64()),
        (Some("ERROR"), Some(410))
    );
    let recent = stats.revision - 10;
    let mut w = client(&sim)
        .watch(&format!(
            "/api/v1/configmaps?watch=1&resourceVersion={recent}"
        ))
        .await;
    assert_eq!(w.events(10).await.len(), 10);
}
