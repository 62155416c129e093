//! The sample controller (see `sample_controller.rs`): a `Foo` asks for a Deployment, the
//! leader of the replicas makes it so.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{Container, ObjectReference, PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, OwnerReference};
use kinformer::api::{Api, Patch, PatchParams};
use kinformer::core::{ApiResource, DynamicObject, Object, ObjectMeta, Scope, StoreRead as _};
use kinformer::events::{EventType, Recorder, Reporter};
use kinformer::informer::{Config, SharedIndexInformer};
use kinformer::leaderelection::{
    Callbacks, Config as ElectionConfig, LeaderElector, RestLeaseLock,
};
use kinformer::listwatch::ListWatch;
use kinformer::rest::Client;
use kinformer::runtime::{Action, Controller, ControllerConfig};
use kinformer::sim::CustomResource;
use serde_json::json;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// The controller's name: its field manager, its Events' reporter, its Lease.
pub const CONTROLLER: &str = "sample-controller";
const GROUP: &str = "samplecontroller.k8s.io";
const VERSION: &str = "v1alpha1";
/// Workers per leader, as sample-controller's default `threadiness`.
const WORKERS: NonZeroUsize = NonZeroUsize::new(2).expect("2 is not zero");

/// The `Foo` resource.
pub fn foo_resource() -> ApiResource {
    ApiResource::new(GROUP, VERSION, "Foo", "foos", Scope::Namespaced)
}

/// The `Foo` definition the embedded server registers (with a status subresource, as
/// sample-controller's CRD declares).
pub fn foo_crd() -> CustomResource {
    CustomResource::new(GROUP, VERSION, "Foo", "foos", Scope::Namespaced).with_status_subresource()
}

/// The typed API of Foos in `namespace`.
pub fn foos(client: &Client, namespace: &str) -> Api<DynamicObject> {
    Api::namespaced_with(client.clone(), namespace, &foo_resource())
}

/// A Foo asking for `replicas` of its Deployment.
pub fn foo(name: &str, replicas: i32) -> DynamicObject {
    let mut primary = DynamicObject::new(name);
    primary.data = json!({"spec": {"deploymentName": deployment_name(name), "replicas": replicas}});
    primary
}

/// The Deployment a Foo of this name asks for.
pub fn deployment_name(foo_name: &str) -> String {
    format!("{foo_name}-nginx")
}

/// One replica of the controller: its caches, its recorder, and its candidacy.
#[derive(Debug)]
pub struct Replica {
    elector: LeaderElector<RestLeaseLock>,
    stop: CancellationToken,
    task: JoinHandle<anyhow::Result<()>>,
    reconciled: Arc<AtomicUsize>,
}

impl Replica {
    /// Starts the informers and the candidacy for the Lease `default/sample-controller`.
    ///
    /// # Errors
    /// An identity that the event recorder or leader election refuses.
    pub fn start(client: Client, identity: &str, election: ElectionConfig) -> anyhow::Result<Self> {
        let foos = SharedIndexInformer::new(
            ListWatch::<DynamicObject, _>::from_client(client.clone(), foo_resource()),
            Config::default().with_name("foos"),
        );
        let deployments = SharedIndexInformer::new(
            ListWatch::<Deployment, _>::for_type(client.clone()),
            Config::default().with_name("deployments"),
        );
        let reporter = Reporter::new(CONTROLLER)?.with_instance(identity)?;
        let sample = Arc::new(Sample {
            recorder: Recorder::new(client.clone(), reporter),
            client: client.clone(),
            deployments: deployments.clone(),
            reconciled: Arc::default(),
        });
        let reconciled = Arc::clone(&sample.reconciled);
        let (leader_foos, leader_deployments, ctx) =
            (foos.clone(), deployments.clone(), sample.clone());
        // Each term of leadership runs a controller over the warm caches; when the term ends it
        // stops at once, and reconciles under way are dropped.
        let callbacks = Callbacks::new(move |leading: CancellationToken| {
            let config = ControllerConfig::default()
                .with_name(CONTROLLER)
                .with_concurrency(WORKERS);
            let controller = Controller::new(leader_foos.clone(), foo_resource(), config)
                .owns(&leader_deployments);
            let ctx = ctx.clone();
            async move {
                tokio::select! {
                    () = leading.cancelled() => {}
                    () = controller.run(reconcile, |_, _, _| Action::backoff(), ctx) => {}
                }
            }
        });
        let lock = RestLeaseLock::new(client, "default", CONTROLLER)?;
        let elector = LeaderElector::new(lock, identity, election, callbacks)?;
        let stop = CancellationToken::new();
        let task = tokio::spawn(run(
            foos,
            deployments,
            sample,
            elector.clone(),
            stop.clone(),
        ));
        Ok(Self {
            elector,
            stop,
            task,
            reconciled,
        })
    }

    /// Whether this replica leads now.
    pub fn is_leader(&self) -> bool {
        self.elector.is_leader()
    }

    /// The leader this replica last observed.
    pub fn leader(&self) -> Option<String> {
        self.elector.leader()
    }

    /// Keys this replica has reconciled.
    pub fn reconciled(&self) -> usize {
        self.reconciled.load(Ordering::Relaxed)
    }

    /// Stops leading or waiting (releasing the lease if held), then the caches and the
    /// recorder (which writes what it still holds).
    ///
    /// # Errors
    /// The replica's task failed.
    pub async fn stop(self) -> anyhow::Result<()> {
        self.stop.cancel();
        self.task.await?
    }
}

/// What every reconcile reads and writes through.
struct Sample {
    client: Client,
    deployments: SharedIndexInformer<Deployment>,
    recorder: Recorder,
    reconciled: Arc<AtomicUsize>,
}

/// Runs the caches on every replica (a new leader starts warm), and the candidacy until
/// `stop`; leadership lost (renewals failed) is not the end: the replica stands again.
async fn run(
    foos: SharedIndexInformer<DynamicObject>,
    deployments: SharedIndexInformer<Deployment>,
    sample: Arc<Sample>,
    elector: LeaderElector<RestLeaseLock>,
    stop: CancellationToken,
) -> anyhow::Result<()> {
    let primaries = tokio::spawn({
        let informer = foos.clone();
        async move { informer.run().await }
    });
    let owned = tokio::spawn({
        let informer = deployments.clone();
        async move { informer.run().await }
    });
    while !stop.is_cancelled() {
        elector.run(stop.clone()).await;
    }
    foos.shutdown();
    deployments.shutdown();
    primaries.await??;
    owned.await??;
    let stats = sample.recorder.shutdown().await;
    tracing::info!(?stats, "events");
    Ok(())
}

/// sample-controller's `syncHandler`: the Deployment as the Foo asks, then the Foo's status.
async fn reconcile(primary: Arc<DynamicObject>, sample: Arc<Sample>) -> anyhow::Result<Action> {
    sample.reconciled.fetch_add(1, Ordering::Relaxed);
    let namespace = primary.namespace().unwrap_or("default");
    let event = |kind, reason: &str, note: String| {
        sample
            .recorder
            .event(reference(&primary), kind, reason, "Reconciling", note);
    };
    let Some(name) = primary.data["spec"]["deploymentName"].as_str() else {
        event(
            EventType::Warning,
            "InvalidSpec",
            "spec.deploymentName must be set".into(),
        );
        return Ok(Action::await_change());
    };
    let replicas = primary.data["spec"]["replicas"]
        .as_i64()
        .and_then(|r| i32::try_from(r).ok())
        .unwrap_or(1);
    let cached = sample
        .deployments
        .indexer()
        .get_by_key(&format!("{namespace}/{name}"));
    if let Some(existing) = cached
        && !controlled_by(&existing.metadata, &primary)
    {
        let note = format!("Resource {name} already exists and is not managed by Foo");
        event(EventType::Warning, "ErrResourceExists", note);
        return Ok(Action::await_change());
    }
    // The apply states every field this controller owns; an unchanged apply changes nothing.
    let deployments: Api<Deployment> = Api::namespaced(sample.client.clone(), namespace);
    let applied = deployments
        .patch(
            name,
            &PatchParams::apply(CONTROLLER).force(),
            &Patch::Apply(&desired_deployment(&primary, name, replicas)),
        )
        .await?;
    let available = applied
        .status
        .and_then(|s| s.available_replicas)
        .unwrap_or(0);
    if primary.data["status"]["availableReplicas"].as_i64() != Some(i64::from(available)) {
        foos(&sample.client, namespace)
            .patch_status(
                primary.name(),
                &PatchParams::default(),
                &Patch::Merge(json!({"status": {"availableReplicas": available}})),
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

fn controlled_by(meta: &ObjectMeta, primary: &DynamicObject) -> bool {
    meta.owner_references
        .iter()
        .flatten()
        .any(|o| o.controller == Some(true) && Some(o.uid.as_str()) == primary.uid())
}

fn api_version() -> String {
    format!("{GROUP}/{VERSION}")
}

/// The Foo as an Event's `regarding`.
fn reference(primary: &DynamicObject) -> ObjectReference {
    ObjectReference {
        api_version: Some(api_version()),
        kind: Some("Foo".to_owned()),
        namespace: primary.namespace().map(str::to_owned),
        name: Some(primary.name().to_owned()),
        uid: primary.uid().map(str::to_owned),
        resource_version: primary.resource_version().map(str::to_owned),
        ..ObjectReference::default()
    }
}

/// sample-controller's `newDeployment`: nginx, labelled for the Foo, owned by it.
fn desired_deployment(primary: &DynamicObject, name: &str, replicas: i32) -> Deployment {
    let labels: BTreeMap<String, String> = [
        ("app".to_owned(), "nginx".to_owned()),
        ("controller".to_owned(), primary.name().to_owned()),
    ]
    .into();
    Deployment {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            owner_references: Some(vec![OwnerReference {
                api_version: api_version(),
                kind: "Foo".to_owned(),
                name: primary.name().to_owned(),
                uid: primary.uid().unwrap_or_default().to_owned(),
                controller: Some(true),
                block_owner_deletion: Some(true),
            }]),
            ..ObjectMeta::default()
        },
        spec: DeploymentSpec {
            replicas: Some(replicas),
            selector: LabelSelector {
                match_labels: Some(labels.clone()),
                ..LabelSelector::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    ..ObjectMeta::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: "nginx".to_owned(),
                        image: Some("nginx:latest".to_owned()),
                        ..Container::default()
                    }],
                    ..PodSpec::default()
                }),
            },
            ..DeploymentSpec::default()
        },
        ..Deployment::default()
    }
}
