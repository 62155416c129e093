//! Kubernetes' sample-controller on the kinformer runtime: a `Foo`
//! (`samplecontroller.k8s.io/v1alpha1`) asks for a Deployment (`spec.deploymentName`,
//! `spec.replicas`); the controller owns it, keeps it as asked with server-side apply, reports
//! its available replicas in the Foo's status and records Events. Replicas elect a leader on a
//! Lease; only the leader reconciles, over caches every replica keeps warm.

use std::future::Future;
use std::num::NonZeroUsize;
use std::sync::Arc;

use anyhow::Context as _;
use k8s_openapi::api::apps::v1::Deployment;
use kinformer::api::{Api, Patch, PatchParams};
use kinformer::core::{ApiResource, DynamicObject, Object, Scope, StoreRead as _};
use kinformer::events::{EventType, Recorder, Regarding, Reporter};
use kinformer::informer::SharedIndexInformer;
use kinformer::informer::factory::{FactoryConfig, SharedInformerFactory};
use kinformer::leaderelection::{Config as Election, RestLeaseLock};
use kinformer::rest::Client;
use kinformer::runtime::{Action, Controller, ControllerConfig, LeaderElected};
use serde_json::json;

/// The controller's name: its field manager, its Events' reporter, its Lease.
pub const CONTROLLER: &str = "sample-controller";
/// Workers of a leader, as sample-controller's default `threadiness`.
const WORKERS: NonZeroUsize = NonZeroUsize::new(2).expect("2 is not zero");

/// The `Foo` resource.
pub fn foo_resource() -> ApiResource {
    ApiResource::new(
        "samplecontroller.k8s.io",
        "v1alpha1",
        "Foo",
        "foos",
        Scope::Namespaced,
    )
}

/// What every reconcile reads and writes through.
struct Context {
    client: Client,
    deployments: SharedIndexInformer<Deployment>,
    recorder: Recorder,
}

/// Runs one replica until `shutdown`: caches, candidacy, and while leading the controller
/// (two workers, as sample-controller's default). On shutdown it drains, releases the lease
/// and writes the Events it still holds.
///
/// # Errors
/// An identity the recorder or leader election refuses, or a cache that stopped.
pub async fn run(
    client: Client,
    identity: &str,
    election: Election,
    shutdown: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    let factory = SharedInformerFactory::new(client.clone(), FactoryConfig::default());
    let foos = factory.dynamic_informer(foo_resource());
    let deployments = factory.informer_for::<Deployment>();
    let reporter = Reporter::new(CONTROLLER)?.with_instance(identity)?;
    let recorder = Recorder::new(client.clone(), reporter);
    let context = Arc::new(Context {
        client: client.clone(),
        deployments: deployments.clone(),
        recorder,
    });
    factory.start();
    // Each term of leadership runs a new controller over the warm caches.
    let controller = move || {
        let config = ControllerConfig::default()
            .with_name(CONTROLLER)
            .with_concurrency(WORKERS);
        Controller::new(foos.clone(), foo_resource(), config).owns(&deployments)
    };
    let lock = RestLeaseLock::new(client, "default", CONTROLLER)?;
    let elected = LeaderElected::new(lock, identity, election)?;
    let policy = |_: Arc<DynamicObject>, _: &anyhow::Error, _: Arc<Context>| Action::backoff();
    elected
        .run(
            controller,
            reconcile,
            policy,
            Arc::clone(&context),
            shutdown,
        )
        .await;
    factory.shutdown().await;
    context.recorder.shutdown().await;
    Ok(())
}

/// sample-controller's `syncHandler`: the Deployment as the Foo asks, then the Foo's status.
async fn reconcile(primary: Arc<DynamicObject>, ctx: Arc<Context>) -> anyhow::Result<Action> {
    let namespace = primary.namespace().unwrap_or("default");
    let event = |kind, reason: &str, note: String| {
        let regarding = Regarding::of(&*primary, &foo_resource());
        ctx.recorder
            .event(regarding, kind, reason, "Reconciling", note);
    };
    let Some(name) = primary.data["spec"]["deploymentName"].as_str() else {
        event(
            EventType::Warning,
            "InvalidSpec",
            "spec.deploymentName must be set".into(),
        );
        return Ok(Action::await_change());
    };
    let cached = ctx
        .deployments
        .indexer()
        .get_by_key(&format!("{namespace}/{name}"));
    let ours = |d: &Deployment| {
        d.metadata
            .owner_references
            .iter()
            .flatten()
            .any(|o| o.uid == primary.uid().unwrap_or_default())
    };
    if cached.is_some_and(|existing| !ours(&existing)) {
        let note = format!("Resource {name} already exists and is not managed by Foo");
        event(EventType::Warning, "ErrResourceExists", note);
        return Ok(Action::await_change());
    }
    let owner = foo_resource()
        .controller_reference(&*primary)
        .context("a stored Foo has a uid")?;
    // sample-controller's `newDeployment`: nginx, labelled for the Foo, owned by it. The apply
    // states every field this controller owns; an unchanged apply changes nothing.
    let labels = json!({"app": "nginx", "controller": primary.name()});
    let desired = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "ownerReferences": [owner]},
        "spec": {
            "replicas": primary.data["spec"]["replicas"].as_i64().unwrap_or(1),
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:latest"}]},
            },
        },
    });
    let deployments: Api<Deployment> = Api::namespaced(ctx.client.clone(), namespace);
    let apply = PatchParams::apply(CONTROLLER)?.with_force(true);
    let applied = deployments
        .patch(name, &apply, &Patch::Apply(&desired))
        .await?;
    let available = applied
        .status
        .and_then(|s| s.available_replicas)
        .unwrap_or(0);
    if primary.data["status"]["availableReplicas"].as_i64() != Some(available.into()) {
        let status = json!({"status": {"availableReplicas": available}});
        let foos =
            Api::<DynamicObject>::namespaced_with(ctx.client.clone(), namespace, &foo_resource());
        foos.patch_status(
            primary.name(),
            &PatchParams::default(),
            &Patch::Merge(status),
        )
        .await?;
    }
    event(
        EventType::Normal,
        "Synced",
        "Foo synced successfully".into(),
    );
    Ok(Action::await_change())
}
