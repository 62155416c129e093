//! Kubernetes' sample-controller on kinformer (the controller is in `src/sample.rs`).
//!
//! Alone, it starts the embedded server, creates three Foos, runs one replica until each Foo
//! has its Deployment and status, and stops. With `--kubeconfig FILE --identity NAME` it runs
//! one replica until SIGTERM or Ctrl-C, then releases the lease (`--lease-duration`,
//! `--renew-deadline`, `--retry-period` in seconds override client-go's 15, 10 and 2). CI runs
//! two such processes on one server and kills the leader (`tests/two_replicas.rs`).

use std::io::Write as _;
use std::time::Duration;

use anyhow::Context as _;
use k8s_openapi::api::apps::v1::Deployment;
use kinformer::api::{Api, PostParams};
use kinformer::core::DynamicObject;
use kinformer::leaderelection::Config as Election;
use kinformer::runtime::shutdown_signal;
use kinformer::sim::{Sim, wait_until};
use kinformer_examples::connect;
use kinformer_examples::foo;
use kinformer_examples::sample::{self, foo_resource};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let conn = connect(Sim::builder()).await?;
    let Some(sim) = conn.sim else {
        let identity = flag(&args, "--identity").context("--identity NAME is required")?;
        return sample::run(conn.client, &identity, election(&args)?, shutdown_signal()).await;
    };
    sim.register(foo::crd()).await?;
    let foos =
        Api::<DynamicObject>::namespaced_with(conn.client.clone(), "default", &foo_resource());
    for (i, replicas) in [1, 2, 3].into_iter().enumerate() {
        foos.create(
            &PostParams::default(),
            &foo::object(&format!("foo-{i}"), replicas),
        )
        .await?;
    }
    let client = conn.client.clone();
    let converged = async move {
        wait_until(
            "three Deployments as asked",
            Duration::from_secs(30),
            || async {
                let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
                let mut all = true;
                for (i, replicas) in [1, 2, 3].into_iter().enumerate() {
                    let name = foo::deployment_name(&format!("foo-{i}"));
                    let deployment = deployments.get_opt(&name).await.ok().flatten();
                    let primary = foos.get(&format!("foo-{i}")).await.ok();
                    all &= deployment.and_then(|d| d.spec.replicas) == Some(replicas)
                        && primary.is_some_and(|f| f.data["status"]["availableReplicas"].is_i64());
                }
                all
            },
        )
        .await;
    };
    sample::run(conn.client, "replica-a", Election::default(), converged).await?;
    writeln!(std::io::stdout(), "3 foos, 3 deployments as asked")?;
    Ok(())
}

fn flag(args: &[String], name: &str) -> Option<String> {
    let at = args.iter().position(|a| a == name)?;
    args.get(at + 1).cloned()
}

fn election(args: &[String]) -> anyhow::Result<Election> {
    let seconds = |name: &str, default: Duration| -> anyhow::Result<Duration> {
        flag(args, name).map_or(Ok(default), |v| {
            v.parse()
                .map(Duration::from_secs_f64)
                .with_context(|| format!("{name} takes seconds"))
        })
    };
    // All three at once: one at a time could pass through durations that break a rule.
    let defaults = Election::default();
    Ok(Election::new(
        seconds("--lease-duration", defaults.lease_duration())?,
        seconds("--renew-deadline", defaults.renew_deadline())?,
        seconds("--retry-period", defaults.retry_period())?,
    )?)
}
