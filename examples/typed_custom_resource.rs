//! Kubernetes' sample-controller with a typed `Foo`: the resource derived from its spec, its
//! CustomResourceDefinition printed as YAML (what `kubectl apply -f -` takes) and installed from
//! code with `install_crd`, then a controller on the runtime that keeps each Foo's Deployment as
//! it asks and reports the Deployment's available replicas in the Foo's status. It stops once
//! the Foo's status is written.
//!
//! Runs on the embedded server, which serves CustomResourceDefinitions as kube-apiserver does,
//! or with `--kubeconfig FILE` on a cluster.

use std::io::Write as _;
use std::sync::Arc;

use k8s_openapi::api::apps::v1::Deployment;
use kinformer::api::{Api, InstallOptions, Patch, PatchParams, install_crd};
use kinformer::core::ApiResource;
use kinformer::crd::{CustomResource, CustomResourceExt};
use kinformer::informer::factory::{FactoryConfig, SharedInformerFactory};
use kinformer::prelude::*;
use kinformer::rest::Client;
use kinformer::runtime::{Action, Controller, ControllerConfig};
use kinformer::sim::Sim;
use kinformer_examples::connect;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::Notify;

/// A Foo asks for a Deployment with some replicas.
#[derive(CustomResource, Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
#[kinformer(
    crate = "kinformer::crd",
    group = "samplecontroller.k8s.io",
    version = "v1alpha1",
    kind = "Foo",
    namespaced,
    status = "FooStatus",
    shortname = "fo",
    printcolumn(name = "Replicas", type_ = "integer", json_path = ".spec.replicas"),
    // A group under k8s.io needs the API approval annotation, as sample-controller's CRD has.
    annotation(
        "api-approved.kubernetes.io",
        "unapproved, experimental-only; please use https://github.com/kubernetes/enhancements/pull/1111"
    )
)]
#[serde(rename_all = "camelCase")]
struct FooSpec {
    /// The Deployment's name.
    deployment_name: String,
    /// Its replicas.
    #[schemars(range(min = 0, max = 100))]
    replicas: Option<i32>,
}

/// What the controller saw.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
struct FooStatus {
    /// The Deployment's available replicas.
    available_replicas: i32,
}

const MANAGER: &str = "typed-sample-controller";

/// What each reconcile uses.
struct Context {
    client: Client,
    /// Told when a Foo's status is written: the example's end.
    status_written: Notify,
}

/// sample-controller's `syncHandler`, typed: the Deployment as the Foo asks, then its status.
async fn reconcile(primary: Arc<Foo>, ctx: Arc<Context>) -> anyhow::Result<Action> {
    let namespace = primary.namespace().unwrap_or("default");
    let owner = ApiResource::of::<Foo>()
        .controller_reference(&*primary)
        .ok_or_else(|| anyhow::anyhow!("a stored Foo has a uid"))?;
    let labels = json!({"app": "nginx", "controller": primary.name()});
    let desired = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": primary.spec.deployment_name, "ownerReferences": [owner]},
        "spec": {
            "replicas": primary.spec.replicas.unwrap_or(1),
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:latest"}]},
            },
        },
    });
    let deployments: Api<Deployment> = Api::namespaced(ctx.client.clone(), namespace);
    let apply = PatchParams::apply(MANAGER)?.with_force(true);
    let applied = deployments
        .patch(
            &primary.spec.deployment_name,
            &apply,
            &Patch::Apply(&desired),
        )
        .await?;
    let available = applied
        .status
        .and_then(|s| s.available_replicas)
        .unwrap_or(0);
    let status = FooStatus {
        available_replicas: available,
    };
    if primary.status.as_ref() != Some(&status) {
        let foos: Api<Foo> = Api::namespaced(ctx.client.clone(), namespace);
        let patch = Patch::Merge(json!({"status": status}));
        foos.patch_status(primary.name(), &PatchParams::default(), &patch)
            .await?;
        ctx.status_written.notify_one();
    }
    Ok(Action::await_change())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let crd = Foo::crd();
    let mut out = std::io::stdout().lock();
    write!(out, "{}", serde_yaml_ng::to_string(&crd)?)?;

    let conn = connect(Sim::builder()).await?;
    let client = conn.client.clone();
    install_crd(&client, &crd, &InstallOptions::new(MANAGER)?).await?;

    let factory = SharedInformerFactory::new(client.clone(), FactoryConfig::default());
    let foos = factory.informer_for::<Foo>();
    let deployments = factory.informer_for::<Deployment>();
    factory.start();

    let spec = FooSpec {
        deployment_name: "example-foo".into(),
        replicas: Some(1),
    };
    let api: Api<Foo> = Api::namespaced(client.clone(), "default");
    let apply = PatchParams::apply(MANAGER)?;
    api.patch(
        "example-foo",
        &apply,
        &Patch::Apply(Foo::new("example-foo", spec)),
    )
    .await?;

    let context = Arc::new(Context {
        client: client.clone(),
        status_written: Notify::new(),
    });
    let config = ControllerConfig::default().with_name(MANAGER);
    let controller = Controller::new(foos, ApiResource::of::<Foo>(), config).owns(&deployments);
    let policy = |_: Arc<Foo>, _: &anyhow::Error, _: Arc<Context>| Action::backoff();
    let done = Arc::clone(&context);
    controller
        .run_until(reconcile, policy, Arc::clone(&context), async move {
            done.status_written.notified().await;
        })
        .await;
    factory.shutdown().await;

    let stored = api.get("example-foo").await?;
    let owned = Api::<Deployment>::namespaced(client, "default")
        .get(&stored.spec.deployment_name)
        .await?;
    let owner = owned
        .metadata
        .owner_references
        .iter()
        .flatten()
        .find(|r| r.controller == Some(true))
        .map(|r| format!("{}/{}", r.kind, r.name));
    writeln!(
        out,
        "---\n# {} {}/{}: deployment {} (owned by {}), replicas {:?}, status {:?}",
        Foo::crd_name(),
        stored.namespace().unwrap_or_default(),
        stored.name(),
        owned.name(),
        owner.unwrap_or_default(),
        stored.spec.replicas,
        stored.status,
    )?;
    Ok(())
}
