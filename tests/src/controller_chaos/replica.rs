//! One replica of the chaos controller, a process in all but name: its own client, shared
//! informer factory and leader candidacy, running Kubernetes' sample-controller (a Foo asks
//! for a Deployment of `spec.replicas`; its status records the generation it saw).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use kinformer::api::{Api, Error, Patch, PatchParams};
use kinformer::informer::factory::{FactoryConfig, SharedInformerFactory};
use kinformer::leaderelection::{Config as ElectionConfig, RestLeaseLock};
use kinformer::runtime::{Action, Controller, ControllerConfig, LeaderElected};
use kinformer_core::{ApiResource, DynamicObject, Object, Scope};
use kinformer_reflector::Config as ReflectorConfig;
use kinformer_rest::{Client, Config as ClientConfig, Kubeconfig, KubeconfigOptions, RateLimit};
use kinformer_sim::{CustomResource, SimHandle};
use serde_json::json;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::ledger::{LEASE_NAME, LEASE_NAMESPACE, Ledger};
use crate::chaos::CHAOS_BACKOFF;

/// The Foo resource.
pub fn foos() -> ApiResource {
    ApiResource::new(
        "samplecontroller.k8s.io",
        "v1alpha1",
        "Foo",
        "foos",
        Scope::Namespaced,
    )
}

/// The Foo resource as the sim registers it, with a status subresource.
pub fn foo_definition() -> CustomResource {
    let foos = foos();
    CustomResource::new(
        &foos.group,
        &foos.version,
        &foos.kind,
        &foos.plural,
        Scope::Namespaced,
    )
    .with_status_subresource()
}

/// The name of the Deployment the Foo named `primary` asks for.
pub fn deployment_name(primary: &str) -> String {
    format!("{primary}-nginx")
}

/// Leader election's timings, short enough for many handovers in a few seconds, with the
/// renew deadline (plus a retry) well inside the lease so a leader stops before it expires.
fn election() -> ElectionConfig {
    ElectionConfig::new(
        Duration::from_secs(3),
        Duration::from_millis(1500),
        Duration::from_millis(300),
    )
    .expect("valid leader election timings")
}

const MANAGER: &str = "chaos-controller";

struct Context {
    identity: String,
    client: Client,
    sim: Arc<SimHandle>,
    ledger: Arc<Ledger>,
}

/// A running replica.
#[derive(Debug)]
pub struct Replica {
    identity: String,
    factory: SharedInformerFactory,
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

impl Replica {
    /// Starts replica `identity` against the sim; it reports to `ledger`.
    pub fn start(
        sim: &Arc<SimHandle>,
        identity: &str,
        ledger: &Arc<Ledger>,
    ) -> Result<Self, String> {
        let config = Kubeconfig::from_yaml(&sim.kubeconfig(), None)
            .and_then(|k| ClientConfig::from_custom_kubeconfig(k, &KubeconfigOptions::default()))
            .map_err(|e| format!("client config: {e}"))?
            // What `kinformer::runtime::client_config` gives a controller process.
            .with_rate_limit(RateLimit::Unlimited);
        let client = Client::from_config(&config).map_err(|e| format!("client: {e}"))?;
        let reflector = ReflectorConfig::default().with_backoff(CHAOS_BACKOFF);
        let factory = SharedInformerFactory::new(
            client.clone(),
            FactoryConfig::default().with_reflector(reflector),
        );
        let primary = factory.dynamic_informer(foos());
        let deployments = factory.informer_for::<Deployment>();
        factory.start();
        let lock = RestLeaseLock::new(client.clone(), LEASE_NAMESPACE, LEASE_NAME)
            .map_err(|e| format!("lease lock: {e}"))?;
        let elected = LeaderElected::new(lock, identity, election())
            .map_err(|e| format!("leader election: {e}"))?;
        let context = Arc::new(Context {
            identity: identity.to_owned(),
            client,
            sim: Arc::clone(sim),
            ledger: Arc::clone(ledger),
        });
        let controller = move || {
            let config = ControllerConfig::default().with_name(MANAGER);
            Controller::new(primary.clone(), foos(), config).owns(&deployments)
        };
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let shutdown = async {
                let _ = stopped.await;
            };
            elected
                .run(
                    controller,
                    reconcile,
                    |_, _: &Error, _| Action::backoff(),
                    context,
                    shutdown,
                )
                .await;
        });
        Ok(Self {
            identity: identity.to_owned(),
            factory,
            stop,
            task,
        })
    }

    /// Its identity.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// Kills it as a crash would: its tasks are dropped where they stand and its lease stays
    /// taken until it expires.
    pub async fn kill(self) {
        self.task.abort();
        // The informers write nothing; stopping them only frees their watches.
        self.factory.shutdown().await;
    }

    /// Stops it as SIGTERM would: reconciles under way drain, the lease is released.
    pub async fn stop(self) -> Result<(), String> {
        let _ = self.stop.send(());
        tokio::time::timeout(Duration::from_secs(30), self.task)
            .await
            .map_err(|_| format!("{} did not stop within 30 s", self.identity))?
            .map_err(|e| format!("{}: {e}", self.identity))?;
        self.factory.shutdown().await;
        Ok(())
    }
}

async fn reconcile(primary: Arc<DynamicObject>, ctx: Arc<Context>) -> Result<Action, Error> {
    let namespace = primary.namespace().unwrap_or("default").to_owned();
    let key = format!("{namespace}/{}", primary.name());
    let _running = ctx.ledger.begin(&key, &ctx.identity);
    let result = sample_controller(&primary, &namespace, &ctx).await;
    ctx.ledger
        .ended(&key, result.as_ref().err().map(ToString::to_string));
    result
}

/// The reconcile proper: apply the Foo's Deployment, then record what it saw in its status.
async fn sample_controller(
    primary: &DynamicObject,
    namespace: &str,
    ctx: &Context,
) -> Result<Action, Error> {
    let owner = foos()
        .controller_reference(primary)
        .and_then(|o| serde_json::to_value(o).ok())
        .unwrap_or_default();
    let replicas = primary.data["spec"]["replicas"].as_i64().unwrap_or(1);
    let labels = json!({"app": "nginx", "controller": primary.name()});
    let name = deployment_name(primary.name());
    let desired = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "ownerReferences": [owner]},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:latest"}]},
            },
        },
    });
    let deployments: Api<Deployment> = Api::namespaced(ctx.client.clone(), namespace);
    let apply = PatchParams::apply(MANAGER)?.with_force(true);
    checked(
        ctx,
        "applied a Deployment",
        deployments.patch(&name, &apply, &Patch::Apply(&desired)),
    )
    .await?;
    let status = json!({"status": {
        "observedGeneration": primary.meta().generation,
        "replicas": replicas,
    }});
    let primaries: Api<DynamicObject> =
        Api::namespaced_with(ctx.client.clone(), namespace, &foos());
    checked(
        ctx,
        "patched a Foo's status",
        primaries.patch_status(
            primary.name(),
            &PatchParams::default(),
            &Patch::Merge(&status),
        ),
    )
    .await?;
    Ok(Action::await_change())
}

/// Sends a write, checking that this replica leads before it is sent and after it is answered.
async fn checked<T>(ctx: &Context, what: &str, write: impl Future<Output = T>) -> T {
    ctx.ledger
        .check_leading(&ctx.sim, &ctx.identity, what)
        .await;
    let answer = write.await;
    ctx.ledger
        .check_leading(&ctx.sim, &ctx.identity, what)
        .await;
    answer
}
