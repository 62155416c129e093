//! The sample controller as two processes on one server, as two pods of a Deployment run: one
//! leads; killed outright, the other takes over once the lease runs out; stopped by SIGTERM,
//! it releases the lease.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::Lease;
use kinformer::api::{Api, PostParams};
use kinformer::core::DynamicObject;
use kinformer::rest::Client;
use kinformer::sim::{Sim, wait_until};
use kinformer_examples::client_from_kubeconfig;
use kinformer_examples::foo;
use kinformer_examples::sample::{self, CONTROLLER};

/// Short election timings, so that a lease left by a killed leader runs out quickly.
const TIMINGS: [&str; 6] = [
    "--lease-duration",
    "3",
    "--renew-deadline",
    "2",
    "--retry-period",
    "0.5",
];

/// A replica's process, killed if the test ends before it exits.
struct Replica(Child);

impl Drop for Replica {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            drop(self.0.kill());
            drop(self.0.wait());
        }
    }
}

fn replica(kubeconfig: &std::path::Path, identity: &str) -> Replica {
    let child = Command::new(env!("CARGO_BIN_EXE_sample_controller"))
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(["--identity", identity])
        .args(TIMINGS)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the controller starts");
    Replica(child)
}

async fn holder(client: &Client) -> Option<String> {
    let leases: Api<Lease> = Api::namespaced(client.clone(), "default");
    let lease = leases.get_opt(CONTROLLER).await.ok()??;
    lease.spec?.holder_identity.filter(|h| !h.is_empty())
}

async fn has_deployment(client: &Client, primary: &str) -> bool {
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    matches!(
        deployments.get_opt(&foo::deployment_name(primary)).await,
        Ok(Some(_))
    )
}

/// Waits until `done` holds, for at most a minute: generous, since the limit is only reached
/// when something is wrong.
async fn eventually<F, Fut>(what: &str, done: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    wait_until(what, Duration::from_secs(60), done).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_leader_is_replaced_and_a_stopped_one_releases_the_lease() {
    let sim = Sim::builder().start().await.unwrap();
    sim.register(foo::crd()).await.unwrap();
    let kubeconfig = std::env::temp_dir().join(format!(
        "sample-controller-{}.kubeconfig",
        std::process::id()
    ));
    std::fs::write(&kubeconfig, sim.kubeconfig()).unwrap();
    let client = client_from_kubeconfig(&sim.kubeconfig()).unwrap();
    let foos =
        Api::<DynamicObject>::namespaced_with(client.clone(), "default", &sample::foo_resource());

    let mut first = replica(&kubeconfig, "first");
    eventually("the first replica to lead", || async {
        holder(&client).await.as_deref() == Some("first")
    })
    .await;
    let mut second = replica(&kubeconfig, "second");
    foos.create(&PostParams::default(), &foo::object("foo-a", 2))
        .await
        .unwrap();
    eventually("foo-a's Deployment", || has_deployment(&client, "foo-a")).await;

    // Killed outright: no release; the lease must run out before the second may lead.
    first.0.kill().unwrap();
    first.0.wait().unwrap();
    foos.create(&PostParams::default(), &foo::object("foo-b", 1))
        .await
        .unwrap();
    eventually("the second replica to lead", || async {
        holder(&client).await.as_deref() == Some("second")
    })
    .await;
    eventually("foo-b's Deployment", || has_deployment(&client, "foo-b")).await;

    // SIGTERM: the replica stops its work and releases the lease on its way out.
    let terminated = Command::new("kill")
        .args(["-TERM", &second.0.id().to_string()])
        .status()
        .unwrap();
    assert!(terminated.success());
    let status = second.0.wait().unwrap();
    assert!(status.success(), "the replica exits cleanly: {status}");
    assert_eq!(holder(&client).await, None, "the lease was released");
    std::fs::remove_file(&kubeconfig).unwrap();
}
