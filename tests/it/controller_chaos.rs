//! The controller chaos suite's short form: two small schedules of two replicas under leader
//! election, every fault kind among them drawn at random, a user's creates, edits and deletes;
//! each must converge with no key reconciled twice at once and no write by a replica that was
//! not leading. `cargo xtask chaos --controller` runs the long form (100 full schedules).

use kinformer_tests::chaos::Profile;
use kinformer_tests::controller_chaos::run_seed;

#[allow(clippy::print_stdout)]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_replicas_converge_under_faults_without_overlap_or_unled_writes() {
    let mut failures = Vec::new();
    for seed in [1, 2] {
        let report = run_seed(seed, Profile::Ci).await;
        println!("{}", report.line());
        if !report.passed() {
            failures.push(report.line());
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The ledger that judges the schedules catches what it is there to catch: a write by a
/// replica the Lease does not name, a write under an expired Lease, and two reconciles of
/// one key at once.
#[tokio::test]
async fn the_ledger_flags_unled_writes_and_overlapping_reconciles() {
    use std::sync::Arc;

    use kinformer_sim::{ObjectOp, OpKind, Sim};
    use kinformer_tests::controller_chaos::ledger::{LEASE_NAME, LEASE_NAMESPACE, Ledger};
    use serde_json::json;

    let sim = Sim::builder().start().await.unwrap();
    let ledger = Arc::new(Ledger::default());
    ledger.check_leading(&sim, "replica-a", "wrote").await;
    assert_eq!(ledger.violations().len(), 1, "no Lease at all");

    let lease = |holder: &str, renewed: &str| {
        json!({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": LEASE_NAME, "namespace": LEASE_NAMESPACE},
            "spec": {"holderIdentity": holder, "leaseDurationSeconds": 3, "renewTime": renewed},
        })
    };
    let now = k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime(
        k8s_openapi::jiff::Timestamp::from_second(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs() as i64,
        )
        .unwrap(),
    );
    let now = serde_json::to_value(now).unwrap();
    let now = now.as_str().unwrap();
    sim.apply(ObjectOp::new(
        OpKind::Create,
        "leases",
        lease("replica-a", now),
    ))
    .await
    .unwrap();
    ledger.check_leading(&sim, "replica-a", "wrote").await;
    assert_eq!(ledger.violations().len(), 1, "the live holder may write");
    ledger.check_leading(&sim, "replica-b", "wrote").await;
    assert_eq!(ledger.violations().len(), 2, "another replica may not");
    assert!(ledger.violations()[1].contains("replica-b wrote while the Lease named \"replica-a\""));

    let stale = lease("replica-a", "2020-01-01T00:00:00.000000Z");
    sim.apply(
        ObjectOp::new(OpKind::Update, "leases", stale)
            .namespace(LEASE_NAMESPACE)
            .name(LEASE_NAME),
    )
    .await
    .unwrap();
    ledger.check_leading(&sim, "replica-a", "wrote").await;
    assert_eq!(ledger.violations().len(), 3, "an expired holder may not");
    assert!(ledger.violations()[2].contains("expired"));

    let first = ledger.begin("ns/foo", "replica-a");
    let second = ledger.begin("ns/foo", "replica-b");
    assert_eq!(ledger.violations().len(), 4);
    drop((first, second));
    let _again = ledger.begin("ns/foo", "replica-b");
    assert_eq!(ledger.violations().len(), 4, "one at a time is fine");
}
