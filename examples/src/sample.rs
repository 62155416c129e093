//! The sample controller (see `sample_controller.rs`): a `Foo` asks for a Deployment, the
//! leader of the replicas makes it so.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{Container, ObjectReference, PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, OwnerReference};
use kinformer::api::{Api, Patch, PatchParams};
use kinformer::core::{
    ApiResource, DeletedState, DynamicObject, Object, ObjectMeta, Scope, StoreRead as _, object_key,
};
use kinformer::events::{EventType, Recorder, Reporter};
use kinformer::informer::{Config, HandlerFns, SharedIndexInformer};
use kinformer::leaderelection::{
    Callbacks, Config as ElectionConfig, LeaderElector, RestLeaseLock,
};
use kinformer::listwatch::ListWatch;
use kinformer::rest::Client;
use kinformer::sim::CustomResource;
use kinformer::workqueue::{QueueConfig, RateLimitingQueue, default_controller_rate_limiter};
use serde_json::json;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// The controller's name: its field manager, its Events' reporter, its Lease.
pub const CONTROLLER: &str = "sample-controller";
const GROUP: &str = "samplecontroller.k8s.io";
const VERSION: &str = "v1alpha1";
/// Workers per leader, as sample-controller's default `threadiness`.
const WORKERS: usize = 2;

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

/// One replica of the controller: its caches, its queue, its recorder, and its candidacy.
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
        let controller = Controller::new(client.clone(), identity)?;
        let reconciled = Arc::clone(&controller.reconciled);
        let lock = RestLeaseLock::new(client, "default", CONTROLLER)?;
        let leader_work = controller.clone();
        let callbacks = Callbacks::new(move |token| leader_work.clone().lead(token));
        let elector = LeaderElector::new(lock, identity, election, callbacks)?;
        let stop = CancellationToken::new();
        let task = tokio::spawn(controller.run(elector.clone(), stop.clone()));
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

#[derive(Clone)]
struct Controller {
    client: Client,
    foos: SharedIndexInformer<DynamicObject>,
    deployments: SharedIndexInformer<Deployment>,
    queue: RateLimitingQueue<String>,
    recorder: Recorder,
    reconciled: Arc<AtomicUsize>,
}

impl Controller {
    fn new(client: Client, identity: &str) -> anyhow::Result<Self> {
        let foos = SharedIndexInformer::new(
            ListWatch::<DynamicObject, _>::from_client(client.clone(), foo_resource()),
            Config::default().with_name("foos"),
        );
        let deployments = SharedIndexInformer::new(
            ListWatch::<Deployment, _>::for_type(client.clone()),
            Config::default().with_name("deployments"),
        );
        let queue = RateLimitingQueue::with_rate_limiter(
            default_controller_rate_limiter(),
            QueueConfig::default().with_name("foos"),
        );
        let (add, update, delete) = (queue.clone(), queue.clone(), queue.clone());
        foos.add_event_handler(
            HandlerFns::new()
                .add_fn(move |primary: &Arc<DynamicObject>, _| {
                    add.add(object_key(primary.as_ref()))
                })
                .update_fn(
                    move |_: &Arc<DynamicObject>, primary: &Arc<DynamicObject>| {
                        update.add(object_key(primary.as_ref()));
                    },
                )
                .delete_fn(move |gone: &DeletedState<DynamicObject>| {
                    delete.add(object_key(gone.object().as_ref()));
                }),
        )?;
        // A change to an owned Deployment (someone scaled it by hand) requeues its Foo.
        let (add, update, delete) = (queue.clone(), queue.clone(), queue.clone());
        deployments.add_event_handler(
            HandlerFns::new()
                .add_fn(move |d: &Arc<Deployment>, _| enqueue_owner(&add, d))
                .update_fn(move |_: &Arc<Deployment>, d: &Arc<Deployment>| {
                    enqueue_owner(&update, d)
                })
                .delete_fn(move |gone: &DeletedState<Deployment>| {
                    enqueue_owner(&delete, gone.object());
                }),
        )?;
        let reporter = Reporter::new(CONTROLLER)?.with_instance(identity)?;
        Ok(Self {
            recorder: Recorder::new(client.clone(), reporter),
            client,
            foos,
            deployments,
            queue,
            reconciled: Arc::new(AtomicUsize::new(0)),
        })
    }

    /// Runs the caches on every replica (a new leader starts warm), and the candidacy until
    /// `stop`.
    async fn run(
        self,
        elector: LeaderElector<RestLeaseLock>,
        stop: CancellationToken,
    ) -> anyhow::Result<()> {
        let foos = tokio::spawn({
            let informer = self.foos.clone();
            async move { informer.run().await }
        });
        let deployments = tokio::spawn({
            let informer = self.deployments.clone();
            async move { informer.run().await }
        });
        let synced = tokio::select! {
            () = stop.cancelled() => false,
            synced = async {
                tokio::try_join!(self.foos.wait_for_cache_sync(), self.deployments.wait_for_cache_sync())
            } => synced.is_ok(),
        };
        // Leadership lost (renewals failed) is not the end: the replica stands again.
        while synced && !stop.is_cancelled() {
            elector.run(stop.clone()).await;
        }
        self.queue.shutdown();
        self.foos.shutdown();
        self.deployments.shutdown();
        foos.await??;
        deployments.await??;
        let stats = self.recorder.shutdown().await;
        tracing::info!(?stats, "events");
        Ok(())
    }

    /// The leader's work: workers drain the queue until leadership ends.
    async fn lead(self, leading: CancellationToken) {
        let workers: Vec<_> = (0..WORKERS)
            .map(|_| tokio::spawn(self.clone().worker(leading.clone())))
            .collect();
        for worker in workers {
            if let Err(error) = worker.await {
                tracing::error!(%error, "worker failed");
            }
        }
    }

    async fn worker(self, leading: CancellationToken) {
        loop {
            let key = tokio::select! {
                biased;
                () = leading.cancelled() => return,
                key = self.queue.get() => match key {
                    Some(key) => key,
                    None => return,
                },
            };
            match self.reconcile(&key).await {
                Ok(()) => self.queue.forget(&key),
                Err(error) => {
                    tracing::warn!(%key, error = %error, "reconcile failed; retrying");
                    self.queue.add_rate_limited(key.clone());
                }
            }
            self.queue.done(&key);
            self.reconciled.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// sample-controller's `syncHandler`: the Deployment as the Foo asks, then the Foo's status.
    async fn reconcile(&self, key: &str) -> anyhow::Result<()> {
        let Some(primary) = self.foos.indexer().get_by_key(key) else {
            return Ok(()); // deleted: the garbage collector removes what it owned
        };
        let namespace = primary.namespace().unwrap_or("default");
        let Some(name) = primary.data["spec"]["deploymentName"].as_str() else {
            self.recorder.event(
                reference(&primary),
                EventType::Warning,
                "InvalidSpec",
                "Reconciling",
                "spec.deploymentName must be set",
            );
            return Ok(());
        };
        let replicas = primary.data["spec"]["replicas"]
            .as_i64()
            .and_then(|r| i32::try_from(r).ok())
            .unwrap_or(1);
        let cached = self
            .deployments
            .indexer()
            .get_by_key(&format!("{namespace}/{name}"));
        if let Some(existing) = cached
            && !controlled_by(&existing.metadata, &primary)
        {
            self.recorder.event(
                reference(&primary),
                EventType::Warning,
                "ErrResourceExists",
                "Reconciling",
                format!("Resource {name} already exists and is not managed by Foo"),
            );
            return Ok(());
        }
        // The apply states every field this controller owns; an unchanged apply changes nothing.
        let deployments: Api<Deployment> = Api::namespaced(self.client.clone(), namespace);
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
            foos(&self.client, namespace)
                .patch_status(
                    primary.name(),
                    &PatchParams::default(),
                    &Patch::Merge(json!({"status": {"availableReplicas": available}})),
                )
                .await?;
        }
        self.recorder.event(
            reference(&primary),
            EventType::Normal,
            "Synced",
            "Reconciling",
            "Foo synced successfully",
        );
        Ok(())
    }
}

fn enqueue_owner(queue: &RateLimitingQueue<String>, deployment: &Deployment) {
    let owner = deployment
        .metadata
        .owner_references
        .iter()
        .flatten()
        .find(|o| o.controller == Some(true) && o.kind == "Foo" && o.api_version == api_version());
    if let (Some(owner), Some(namespace)) = (owner, deployment.metadata.namespace.as_deref()) {
        queue.add(format!("{namespace}/{}", owner.name));
    }
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
