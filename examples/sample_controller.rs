//! Kubernetes' sample-controller on kinformer: every `Foo` (`samplecontroller.k8s.io/v1alpha1`)
//! asks for a Deployment (`spec.deploymentName`, `spec.replicas`); the controller owns that
//! Deployment, keeps it as asked, and reports its available replicas in the Foo's status.
//!
//! Built as a production controller is: informers for the primary (Foo) and the owned
//! (Deployment) objects joined by the controller runtime (`kinformer::runtime::Controller`
//! with `owns`: one work queue, backoff, bounded workers), server-side apply through the typed
//! `Api`, leader election on a Lease so that of several replicas exactly one acts, and Events
//! that `kubectl describe foo` shows. The controller itself is in `src/sample.rs`.
//!
//! Alone, it starts the embedded server with three Foos and runs two replicas, `replica-a` and
//! `replica-b`, each with its own client: `replica-a` leads and reconciles; then it stops and
//! releases the lease, `replica-b` takes over and reconciles what changed since.
//!
//! With `--kubeconfig FILE --identity NAME` it runs one replica until SIGTERM or Ctrl-C, then
//! releases the lease (a replica killed outright holds it until it expires) (`--lease-duration`, `--renew-deadline`, `--retry-period` in seconds
//! override client-go's 15, 10 and 2).

use std::io::Write as _;
use std::time::Duration;

use anyhow::Context as _;
use k8s_openapi::api::apps::v1::Deployment;
use kinformer::api::{Api, Patch, PatchParams, PostParams};
use kinformer::core::{DynamicObject, ListOptions};
use kinformer::leaderelection::Config as ElectionConfig;
use kinformer::sim::Sim;
use kinformer_examples::sample::{self, Replica};
use kinformer_examples::{client_from_kubeconfig, connect};
use serde_json::json;
use tokio::time::Instant;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let conn = connect(Sim::builder()).await?;
    let Some(sim) = conn.sim else {
        let identity = flag(&args, "--identity").context("--identity NAME is required")?;
        return one_replica(conn.client, &identity, election_config(&args)?).await;
    };
    sim.register(sample::foo_crd()).await?;
    let foos = sample::foos(&conn.client, "default");
    for (i, replicas) in [1, 2, 3].into_iter().enumerate() {
        foos.create(
            &PostParams::default(),
            &sample::foo(&format!("foo-{i}"), replicas),
        )
        .await?;
    }

    // A replica that stops hands the lease over at once instead of letting it run out.
    let election = ElectionConfig::default().with_release_on_cancel(true);
    let a = Replica::start(conn.client.clone(), "replica-a", election.clone())?;
    wait_for("replica-a to lead", || async { a.is_leader() }).await?;
    let b = Replica::start(
        client_from_kubeconfig(&sim.kubeconfig())?,
        "replica-b",
        election,
    )?;
    wait_for("replica-b to see the leader", || async {
        b.leader().as_deref() == Some("replica-a")
    })
    .await?;
    wait_for("three Deployments as asked", || {
        converged(&conn.client, &[("foo-0", 1), ("foo-1", 2), ("foo-2", 3)])
    })
    .await?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "replica-a leads; replica-b follows replica-a")?;
    writeln!(
        out,
        "replica-a reconciled {} keys, replica-b {}",
        a.reconciled(),
        b.reconciled()
    )?;
    drop(out);
    anyhow::ensure!(b.reconciled() == 0, "a follower reconciled");

    // The leader stops (a rollout, a drained node): it releases the lease on its way out.
    a.stop().await?;
    wait_for("replica-b to lead", || async { b.is_leader() }).await?;
    foos.create(&PostParams::default(), &sample::foo("foo-3", 1))
        .await?;
    foos.patch(
        "foo-0",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"replicas": 5}})),
    )
    .await?;
    wait_for("replica-b to reconcile what changed", || {
        converged(
            &conn.client,
            &[("foo-0", 5), ("foo-1", 2), ("foo-2", 3), ("foo-3", 1)],
        )
    })
    .await?;
    let reconciled_by_b = b.reconciled();
    b.stop().await?;

    let events =
        Api::<k8s_openapi::api::events::v1::Event>::namespaced(conn.client.clone(), "default")
            .list(&ListOptions::default())
            .await?;
    let synced = events
        .items
        .iter()
        .filter(|e| e.reason.as_deref() == Some("Synced"))
        .count();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "replica-b leads after replica-a stopped; it reconciled {reconciled_by_b} keys"
    )?;
    writeln!(
        out,
        "4 foos, 4 deployments as asked; {synced} Synced events"
    )?;
    Ok(())
}

/// One replica, until SIGTERM or Ctrl-C.
async fn one_replica(
    client: kinformer::rest::Client,
    identity: &str,
    config: ElectionConfig,
) -> anyhow::Result<()> {
    let replica = Replica::start(client, identity, config)?;
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        _ = terminate.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    replica.stop().await
}

/// Whether every Foo named has its Deployment with the replicas asked and its status reported.
async fn converged(client: &kinformer::rest::Client, want: &[(&str, i32)]) -> bool {
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    let foos = sample::foos(client, "default");
    for &(foo_name, replicas) in want {
        let name = sample::deployment_name(foo_name);
        let Ok(Some(deployment)) = deployments.get_opt(&name).await else {
            return false;
        };
        if deployment.spec.replicas != Some(replicas) {
            return false;
        }
        let Ok(primary): Result<DynamicObject, _> = foos.get(foo_name).await else {
            return false;
        };
        if primary.data["status"]["availableReplicas"]
            .as_i64()
            .is_none()
        {
            return false;
        }
    }
    true
}

/// Polls `done` every 50 ms for at most 30 s.
async fn wait_for<F, Fut>(what: &str, mut done: F) -> anyhow::Result<()>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done().await {
        anyhow::ensure!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

fn flag(args: &[String], name: &str) -> Option<String> {
    let at = args.iter().position(|a| a == name)?;
    args.get(at + 1).cloned()
}

fn election_config(args: &[String]) -> anyhow::Result<ElectionConfig> {
    let seconds = |name: &str| -> anyhow::Result<Option<Duration>> {
        flag(args, name)
            .map(|v| {
                v.parse::<f64>()
                    .map(Duration::from_secs_f64)
                    .with_context(|| format!("{name} takes seconds"))
            })
            .transpose()
    };
    // All three at once: one at a time could pass through durations that break a rule.
    let defaults = ElectionConfig::default();
    let config = ElectionConfig::new(
        seconds("--lease-duration")?.unwrap_or(defaults.lease_duration()),
        seconds("--renew-deadline")?.unwrap_or(defaults.renew_deadline()),
        seconds("--retry-period")?.unwrap_or(defaults.retry_period()),
    )?;
    Ok(config.with_release_on_cancel(true))
}
