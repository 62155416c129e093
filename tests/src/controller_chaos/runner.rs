//! Plays a schedule: a fresh sim, its Foos, two replicas, the user's edits and the faults at
//! their times; then the faults stop and the controller has [`CONVERGENCE_LIMIT`] to reach the
//! [truth](super::truth); then both replicas shut down and the ledger must hold no violation.

use std::sync::Arc;
use std::time::Duration;

use kinformer_sim::{DropMode, Fault, FaultKind, ObjectOp, OpKind, Sim, SimHandle};
use serde_json::json;
use tokio::time::Instant;

use super::ledger::{Ledger, holder};
use super::plan::{ControllerFault, Schedule, Step};
use super::replica::{Replica, foo_definition};
use super::truth::mismatches;

/// How long the controller has, once the faults stop, to reach the converged state: a killed
/// leader's lease (3 s) must expire, the next leader's informers may be backing off (2 s at
/// most) and every Foo may be waiting out its error backoff.
pub const CONVERGENCE_LIMIT: Duration = Duration::from_secs(30);

/// What a schedule that passed did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Foos at the end.
    pub foos: usize,
    /// Reconciles begun, by every replica.
    pub reconciles: u64,
    /// Writes checked against the Lease (each before it was sent and after its answer).
    pub checked_writes: u64,
    /// The key reconciled most often, and how often.
    pub hottest: Option<(String, u64)>,
    /// Replicas that reconciled something (a handover makes it more than one).
    pub reconcilers: usize,
    /// The kinds of the rules no request hit before the faults stopped.
    pub unfired: Vec<&'static str>,
    /// Replicas started in all (two, plus one per killed leader).
    pub replicas: usize,
    /// How long convergence took once the faults stopped.
    pub converged_in: Duration,
}

/// Runs `schedule`; a failure names what went wrong.
pub async fn run(schedule: &Schedule) -> Result<Outcome, String> {
    let sim = Sim::builder()
        .seed(schedule.seed)
        .create_namespace("ns-0")
        .create_namespace("ns-1")
        .start()
        .await
        .map_err(|e| format!("starting the sim: {e}"))?;
    let sim = Arc::new(sim);
    sim.register(foo_definition())
        .await
        .map_err(|e| format!("registering Foo: {e}"))?;
    let mut created = 0;
    while created < schedule.foos {
        create_foo(&sim, created).await?;
        created += 1;
    }
    let ledger = Arc::new(Ledger::default());
    let mut replicas = vec![
        Replica::start(&sim, "replica-0", &ledger)?,
        Replica::start(&sim, "replica-1", &ledger)?,
    ];
    let mut started_replicas = 2;
    // The rules applied, each tagged with its step: (tag, kind, count as applied).
    let mut rules = Vec::new();
    let started = Instant::now();
    for (index, (at, step)) in schedule.steps.iter().enumerate() {
        tokio::time::sleep_until(started + *at).await;
        match step {
            Step::Create => {
                create_foo(&sim, created).await?;
                created += 1;
            }
            Step::Edit { index, replicas } => {
                let (namespace, name) = foo_key(*index);
                let edit = json!({"spec": {"replicas": replicas}});
                let op = ObjectOp::new(OpKind::Patch, "foos", edit)
                    .namespace(namespace)
                    .name(name);
                // A Foo deleted earlier answers 404: the user edited nothing.
                let _ = sim.apply(op).await;
            }
            Step::Delete { index } => {
                let (namespace, name) = foo_key(*index);
                let _ = sim.apply(ObjectOp::delete("foos", namespace, name)).await;
            }
            Step::Fault(kind, fault) => {
                let tag = format!("controller-chaos-step-{index}");
                if let Some(count) = apply_fault(&sim, fault, &tag).await? {
                    rules.push((tag, *kind, count));
                } else if matches!(fault, ControllerFault::KillLeader) {
                    kill_leader(&sim, &ledger, &mut replicas, started_replicas).await?;
                    started_replicas += 1;
                }
            }
        }
    }
    tokio::time::sleep_until(started + schedule.chaos).await;
    let unfired = unfired(&sim, &rules).await;
    sim.clear_faults().await;
    let converging = Instant::now();
    loop {
        let left = mismatches(&sim, &ledger).await;
        if left.is_empty() {
            break;
        }
        if converging.elapsed() > CONVERGENCE_LIMIT {
            for replica in replicas {
                replica.kill().await;
            }
            return Err(format!(
                "not converged {}s after the faults stopped ({} differences): {}",
                CONVERGENCE_LIMIT.as_secs(),
                left.len(),
                left.iter().take(8).cloned().collect::<Vec<_>>().join("; ")
            ));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let converged_in = converging.elapsed();
    for replica in replicas {
        replica.stop().await?;
    }
    let violations = ledger.violations();
    if !violations.is_empty() {
        return Err(format!(
            "{} violations: {}",
            violations.len(),
            violations
                .iter()
                .take(5)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    Ok(Outcome {
        foos: sim.state("foos", true).await.map_or(0, |s| s.items.len()),
        reconciles: ledger.reconciles(),
        checked_writes: ledger.checked_writes(),
        reconcilers: ledger.reconcilers(),
        hottest: ledger.hottest(),
        unfired,
        replicas: started_replicas,
        converged_in,
    })
}

/// Foo `index`'s namespace and name: two namespaces, names never reused.
fn foo_key(index: usize) -> (String, String) {
    (format!("ns-{}", index % 2), format!("foo-{index}"))
}

async fn create_foo(sim: &SimHandle, index: usize) -> Result<(), String> {
    let (namespace, name) = foo_key(index);
    let object = json!({
        "apiVersion": "samplecontroller.k8s.io/v1alpha1", "kind": "Foo",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"replicas": 1},
    });
    sim.apply(ObjectOp::new(OpKind::Create, "foos", object))
        .await
        .map(drop)
        .map_err(|e| format!("creating {namespace}/{name}: {e}"))
}

/// Applies a fault; a rule is tagged with `tag` (a resource name no request has, so it still
/// matches what it did) and its count is returned.
async fn apply_fault(
    sim: &SimHandle,
    fault: &ControllerFault,
    tag: &str,
) -> Result<Option<i64>, String> {
    let rule = match fault {
        ControllerFault::Rule(rule, relist) => {
            let rule = tagged(rule.clone(), tag);
            let count = rule.count;
            sim.add_faults([rule]).await;
            if *relist {
                sim.drop_watches(DropMode::Error410).await;
            }
            return Ok(Some(count));
        }
        ControllerFault::LeaseOutage(count) => Fault::new(FaultKind::status(503))
            .count(*count)
            .verbs(["get", "update", "create"])
            .resources(["leases"]),
        ControllerFault::DropWatches(mode) => {
            sim.drop_watches(mode.clone()).await;
            return Ok(None);
        }
        ControllerFault::Restart(down) => {
            sim.restart(*down)
                .await
                .map_err(|e| format!("restarting the sim: {e}"))?;
            return Ok(None);
        }
        ControllerFault::KillLeader => return Ok(None),
    };
    let rule = tagged(rule, tag);
    let count = rule.count;
    sim.add_faults([rule]).await;
    Ok(Some(count))
}

/// `rule` with `tag` among its resources: a name no request has, so it still matches what it
/// did, and can be told apart from identical rules of other steps.
fn tagged(rule: Fault, tag: &str) -> Fault {
    let mut resources = rule.resources.clone();
    resources.push(tag.to_owned());
    rule.resources(resources)
}

/// The kinds of `rules` that no request hit: still in place with the count they were applied
/// with.
async fn unfired(sim: &SimHandle, rules: &[(String, &'static str, i64)]) -> Vec<&'static str> {
    let remaining = sim.faults().await;
    rules
        .iter()
        .filter(|(tag, _, count)| {
            remaining
                .iter()
                .any(|f| f.resources.contains(tag) && f.count == *count)
        })
        .map(|(_, kind, _)| *kind)
        .collect()
}

/// Kills the replica the Lease names (the first one when none leads yet) and starts a new one.
async fn kill_leader(
    sim: &Arc<SimHandle>,
    ledger: &Arc<Ledger>,
    replicas: &mut Vec<Replica>,
    started: usize,
) -> Result<(), String> {
    let leader = holder(sim).await;
    let index = replicas
        .iter()
        .position(|r| Some(r.identity()) == leader.as_deref())
        .unwrap_or(0);
    replicas.remove(index).kill().await;
    replicas.push(Replica::start(sim, &format!("replica-{started}"), ledger)?);
    Ok(())
}
