//! The elector and `RestLeaseLock` against the simulated API server: the Lease as client-go
//! writes it, labels others add kept, release on cancel, and a takeover after an expiry.

use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use kinformer_leaderelection::{
    Callbacks, Config, Error, LeaderElectionRecord, LeaderElector, LeaseLock, RestLeaseLock,
};
use kinformer_rest::{Client, RestClient};
use kinformer_sim::{Sim, SimHandle};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

fn leases(sim: &SimHandle) -> RestClient {
    RestClient::new(Client::new(sim.service()), "coordination.k8s.io", "v1")
}

async fn raw_lease(sim: &SimHandle) -> Value {
    let bytes = leases(sim)
        .get()
        .namespace("kube-system")
        .resource("leases")
        .name("demo")
        .do_raw()
        .await
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

fn elector(sim: &SimHandle, identity: &str, config: Config) -> LeaderElector<RestLeaseLock> {
    let lock = RestLeaseLock::new(Client::new(sim.service()), "kube-system", "demo").unwrap();
    let callbacks = Callbacks::new(|token: CancellationToken| async move {
        token.cancelled().await;
    });
    LeaderElector::new(lock, identity, config, callbacks)
        .unwrap()
        .with_jitter_seed(1)
}

fn spawn_run(
    elector: &LeaderElector<RestLeaseLock>,
    cancel: &CancellationToken,
) -> tokio::task::JoinHandle<()> {
    let (elector, cancel) = (elector.clone(), cancel.clone());
    tokio::spawn(async move { elector.run(cancel).await })
}

#[tokio::test(start_paused = true)]
async fn the_lease_is_written_as_client_go_writes_it_and_keeps_labels_others_add() {
    let sim = Sim::builder().start().await.unwrap();
    let a = elector(&sim, "pod-a", Config::default());
    let run = spawn_run(&a, &CancellationToken::new());
    tokio::time::sleep(Duration::from_millis(10)).await;

    let lease = raw_lease(&sim).await;
    let spec = lease["spec"].clone();
    assert_eq!(spec["holderIdentity"], "pod-a");
    assert_eq!(spec["leaseDurationSeconds"], 15);
    assert_eq!(spec["leaseTransitions"], 0);
    for time in ["acquireTime", "renewTime"] {
        // MicroTime: RFC 3339 with microseconds.
        let text = spec[time].as_str().unwrap();
        assert!(text.ends_with('Z') && text.contains('.'), "{time}: {text}");
    }

    // Someone labels the lease; the next renewals keep the label.
    let mut labelled: Lease = serde_json::from_value(lease).unwrap();
    labelled.metadata.labels = Some(BTreeMap::from([("team".into(), "infra".into())]));
    let request = leases(&sim)
        .put()
        .namespace("kube-system")
        .resource("leases")
        .name("demo")
        .json_body(&labelled);
    request.into::<Lease>().await.unwrap();
    tokio::time::sleep(Duration::from_secs(5)).await;
    let renewed = raw_lease(&sim).await;
    assert_eq!(renewed["metadata"]["labels"]["team"], "infra");
    assert_eq!(renewed["spec"]["acquireTime"], spec["acquireTime"]);
    assert_ne!(renewed["spec"]["renewTime"], spec["renewTime"]);
    assert!(a.is_leader());
    run.abort();
}

#[tokio::test(start_paused = true)]
async fn a_release_on_cancel_hands_the_lease_over_at_the_next_attempt() {
    let sim = Sim::builder().start().await.unwrap();
    let config = Config::default().with_release_on_cancel(true);
    let (a, b) = (
        elector(&sim, "pod-a", config.clone()),
        elector(&sim, "pod-b", config),
    );
    let stop_a = CancellationToken::new();
    let run_a = spawn_run(&a, &stop_a);
    tokio::time::sleep(Duration::from_millis(10)).await;
    let run_b = spawn_run(&b, &CancellationToken::new());
    tokio::time::sleep(Duration::from_secs(30)).await;
    assert!(a.is_leader() && !b.is_leader());

    stop_a.cancel();
    run_a.await.unwrap();
    let released = raw_lease(&sim).await;
    assert_eq!(released["spec"]["holderIdentity"], "");
    assert_eq!(released["spec"]["leaseDurationSeconds"], 1);
    assert_eq!(released["spec"]["leaseTransitions"], 0);

    let released_at = tokio::time::Instant::now();
    while !b.is_leader() {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The next attempt: within one jittered retry period, not a lease duration.
    assert!(released_at.elapsed() <= Duration::from_millis(4_500));
    let taken = raw_lease(&sim).await;
    assert_eq!(taken["spec"]["holderIdentity"], "pod-b");
    assert_eq!(taken["spec"]["leaseTransitions"], 1);
    run_b.abort();
}

#[tokio::test(start_paused = true)]
async fn a_dead_leaders_lease_is_taken_once_it_expired_by_the_survivors_clock() {
    let sim = Sim::builder().start().await.unwrap();
    let (a, b) = (
        elector(&sim, "pod-a", Config::default()),
        elector(&sim, "pod-b", Config::default()),
    );
    let run_a = spawn_run(&a, &CancellationToken::new());
    tokio::time::sleep(Duration::from_millis(10)).await;
    let run_b = spawn_run(&b, &CancellationToken::new());
    tokio::time::sleep(Duration::from_secs(20)).await;
    run_a.abort();
    let died = tokio::time::Instant::now();
    while !b.is_leader() {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let failover = died.elapsed();
    // The last renewal was at most a retry period before the death; b saw it within one
    // jittered retry period, and takes the lease within another after it expired.
    assert!(failover >= Duration::from_secs(13), "{failover:?}");
    assert!(
        failover <= Duration::from_millis(15_000 + 2 * 4_400),
        "{failover:?}"
    );
    assert_eq!(raw_lease(&sim).await["spec"]["leaseTransitions"], 1);
    run_b.abort();
}

#[tokio::test]
async fn the_lock_answers_409s_as_conflicts_and_checks_names() {
    let sim = Sim::builder().start().await.unwrap();
    let lock = RestLeaseLock::new(Client::new(sim.service()), "kube-system", "demo").unwrap();
    let record = LeaderElectionRecord {
        holder_identity: Some("a".into()),
        lease_duration_seconds: 15,
        ..LeaderElectionRecord::default()
    };
    let created = lock.create(&record).await.unwrap();
    assert!(matches!(lock.create(&record).await, Err(Error::Conflict)));
    let b = LeaderElectionRecord {
        holder_identity: Some("b".into()),
        ..record.clone()
    };
    lock.update(&b, &created.resource_version).await.unwrap();
    let stale = lock.update(&record, &created.resource_version).await;
    assert!(matches!(stale, Err(Error::Conflict)), "{stale:?}");
    assert_eq!(
        lock.get().await.unwrap().unwrap().record.holder_identity,
        Some("b".into())
    );

    let client = Client::new(sim.service());
    for (namespace, name) in [
        ("", "demo"),
        ("kube-system", ""),
        ("Kube", "demo"),
        ("ns", "a/b"),
    ] {
        let refused = RestLeaseLock::new(client.clone(), namespace, name);
        assert!(
            matches!(refused, Err(Error::InvalidLease(_))),
            "{namespace}/{name}"
        );
    }
}
