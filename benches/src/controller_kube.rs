//! The controller run on kube-rs's `Controller` (kube-runtime 5) with its defaults: `owns` for
//! the Deployments, default watcher configs and concurrency (see `controller.rs`).

use std::sync::Arc;

use futures_util::StreamExt as _;
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::watcher;
use kube::{Resource as _, ResourceExt as _};

use crate::controller::{self, GROUP, KIND, MANAGER, PLURAL, Probe, VERSION};
use crate::measure::Report;
use crate::{Options, setup};

fn foos() -> ApiResource {
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(GROUP, VERSION, KIND), PLURAL)
}

struct Context {
    client: kube::Client,
    probe: Arc<Probe>,
}

pub(crate) async fn run(options: &Options, report: &mut Report) -> Result<(), String> {
    let client = setup::kube_client(&options.kubeconfig).await?;
    let start = move |probe: Arc<Probe>, stopped| {
        let client = client.clone();
        controller::spawn(stopped, move |stop| async move {
            let primary: Api<DynamicObject> = Api::all_with(client.clone(), &foos());
            let deployments: Api<Deployment> = Api::all(client.clone());
            let context = Arc::new(Context { client, probe });
            Controller::new_with(primary, watcher::Config::default(), foos())
                .owns(deployments, watcher::Config::default())
                .graceful_shutdown_on(stop)
                .run(
                    reconcile,
                    |_, _, _| Action::requeue(std::time::Duration::from_secs(1)),
                    context,
                )
                .for_each(|_| async {})
                .await;
            Ok(())
        })
    };
    controller::drive(options, report, &start).await
}

async fn reconcile(primary: Arc<DynamicObject>, ctx: Arc<Context>) -> Result<Action, kube::Error> {
    let namespace = primary.namespace().unwrap_or_else(|| "default".to_owned());
    let name = primary.name_any();
    let edit = controller::edit_of(primary.annotations());
    let reconciling = ctx.probe.reconciling(format!("{namespace}/{name}"), edit);
    let owner = primary
        .controller_owner_ref(&foos())
        .and_then(|o| serde_json::to_value(o).ok())
        .unwrap_or_default();
    let replicas = primary.data["spec"]["replicas"].as_i64().unwrap_or(1);
    let desired = controller::desired_deployment(&name, replicas, owner);
    let deployment = desired["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let deployments: Api<Deployment> = Api::namespaced(ctx.client.clone(), &namespace);
    let apply = PatchParams::apply(MANAGER).force();
    let applied = deployments
        .patch(&deployment, &apply, &Patch::Apply(&desired))
        .await?;
    let available = applied
        .status
        .and_then(|s| s.available_replicas)
        .unwrap_or(0);
    let primaries: Api<DynamicObject> =
        Api::namespaced_with(ctx.client.clone(), &namespace, &foos());
    let status = controller::status_patch(available);
    primaries
        .patch_status(&name, &PatchParams::default(), &Patch::Merge(&status))
        .await?;
    reconciling.done();
    Ok(Action::await_change())
}
