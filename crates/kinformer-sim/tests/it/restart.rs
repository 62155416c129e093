//! A restart that keeps the data, the write audit, and faults aimed at continue pages.

use std::time::Duration;

use kinformer_sim::{AuditKind, Compaction, Fault, FaultKind, ObjectOp, OpKind, Sim};
use serde_json::json;

use crate::common::{Next, client, cm, event_rv};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_cuts_watches_refuses_connections_then_serves_the_same_data() {
    let sim = Sim::builder().configmaps(5).seed(2).start().await.unwrap();
    let c = client(&sim);
    let before = c.get("/api/v1/configmaps").await.json();
    let mut watch = c
        .watch("/api/v1/configmaps?watch=1&resourceVersion=0")
        .await;
    assert_eq!(watch.events(5).await.len(), 5);
    let addr = sim.addr();
    let restarting = async {
        sim.restart(Duration::from_millis(300)).await.unwrap();
    };
    let probe = async {
        tokio::time::sleep(Duration::from_millis(150)).await;
        tokio::net::TcpStream::connect(addr).await.is_err()
    };
    let ((), refused) = tokio::join!(restarting, probe);
    assert!(refused, "nothing listens while the server is down");
    assert!(
        matches!(
            watch.next(Duration::from_secs(5)).await,
            Next::Cut | Next::End
        ),
        "the open watch ends with the restart"
    );
    let c = client(&sim);
    let after = c.get("/api/v1/configmaps").await.json();
    assert_eq!(after["items"], before["items"], "the data survives");
    assert_eq!(
        after["metadata"]["resourceVersion"],
        before["metadata"]["resourceVersion"]
    );
    // Resuming a watch from the old revision works: the history survives too.
    let rv = before["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut resumed = c
        .watch(&format!("/api/v1/configmaps?watch=1&resourceVersion={rv}"))
        .await;
    sim.apply(ObjectOp::new(
        OpKind::Create,
        "configmaps",
        cm("late", json!({})),
    ))
    .await
    .unwrap();
    let e = resumed.event().await;
    assert_eq!(e["type"], "ADDED");
    assert!(event_rv(&e) > rv.parse::<u64>().unwrap());
}

#[tokio::test]
async fn the_audit_outlives_compaction_and_records_labels() {
    let sim = Sim::builder().audit(true).start().await.unwrap();
    let obj = json!({"metadata": {"name": "a", "labels": {"tier": "web"}}});
    let created = sim
        .apply(ObjectOp::new(OpKind::Create, "configmaps", obj))
        .await
        .unwrap();
    sim.apply(
        ObjectOp::new(
            OpKind::Patch,
            "configmaps",
            json!({"metadata": {"labels": {"tier": "db"}}}),
        )
        .name("a"),
    )
    .await
    .unwrap();
    sim.apply(ObjectOp::delete("configmaps", "default", "a"))
        .await
        .unwrap();
    sim.compact(Compaction::all()).await;
    let audit = sim.audit("configmaps").await;
    let kinds: Vec<_> = audit.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [AuditKind::Added, AuditKind::Modified, AuditKind::Deleted]
    );
    assert!(audit.iter().all(|e| e.uid == created["metadata"]["uid"]));
    assert_eq!(audit[0].labels["tier"], "web");
    assert_eq!(audit[1].labels["tier"], "db");
    assert_eq!(
        audit[2].labels["tier"], "db",
        "a delete keeps the last labels"
    );
    assert!(audit.windows(2).all(|w| w[0].revision < w[1].revision));
    assert!(
        Sim::builder()
            .start()
            .await
            .unwrap()
            .audit("configmaps")
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn continue_faults_spare_the_first_page() {
    let sim = Sim::builder().configmaps(10).start().await.unwrap();
    let c = client(&sim);
    let expired = FaultKind::status(410);
    sim.add_faults([Fault::new(expired).verbs(["continue"])])
        .await;
    let first = c.get("/api/v1/configmaps?limit=4").await;
    assert_eq!(first.status, 200);
    let token = first.json()["metadata"]["continue"]
        .as_str()
        .unwrap()
        .to_owned();
    let second = c
        .get(&format!("/api/v1/configmaps?limit=4&continue={token}"))
        .await;
    assert_eq!(second.status, 410);
    assert_eq!(second.json()["reason"], "Expired");
    assert!(sim.faults().await.is_empty());
}
