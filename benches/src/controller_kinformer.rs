//! The controller run on kinformer's runtime with its defaults: the shared informer factory,
//! `owns` for the Deployments, the default predicate and concurrency (see `controller.rs`).

use std::sync::Arc;

use k8s_openapi::api::apps::v1::Deployment;
use kinformer::api::{Api, Error, Patch, PatchParams};
use kinformer::informer::factory::{FactoryConfig, SharedInformerFactory};
use kinformer::runtime::{Action, Controller, ControllerConfig};
use kinformer_core::{ApiResource, DynamicObject, Object, Scope};
use kinformer_rest::Client;

use crate::controller::{self, GROUP, KIND, MANAGER, PLURAL, Probe, VERSION};
use crate::measure::Report;
use crate::{Options, setup};

fn foos() -> ApiResource {
    ApiResource::new(GROUP, VERSION, KIND, PLURAL, Scope::Namespaced)
}

struct Context {
    client: Client,
    probe: Arc<Probe>,
}

pub(crate) async fn run(options: &Options, report: &mut Report) -> Result<(), String> {
    // What `kinformer::runtime::client_config` gives a controller, for this kubeconfig: no
    // client-side rate limit, as controller-runtime's and kube-rs's clients.
    let config = setup::kinformer_config(&options.kubeconfig)?
        .with_rate_limit(kinformer_rest::RateLimit::Unlimited);
    let client = Client::from_config(&config).map_err(|e| e.to_string())?;
    let concurrency = options.concurrency;
    let start = move |probe: Arc<Probe>, stopped| {
        let client = client.clone();
        controller::spawn(stopped, move |stop| async move {
            let factory = SharedInformerFactory::new(client.clone(), FactoryConfig::default());
            let primary = factory.dynamic_informer(foos());
            let deployments = factory.informer_for::<Deployment>();
            factory.start();
            let mut config = ControllerConfig::default().with_name(MANAGER);
            if let Some(concurrency) = concurrency {
                config = config.with_concurrency(concurrency);
            }
            let context = Arc::new(Context { client, probe });
            Controller::new(primary, foos(), config)
                .owns(&deployments)
                .run_until(
                    reconcile,
                    |_, _: &Error, _| Action::backoff(),
                    context,
                    stop,
                )
                .await;
            factory.shutdown().await;
            Ok(())
        })
    };
    controller::drive(options, report, &start).await
}

async fn reconcile(primary: Arc<DynamicObject>, ctx: Arc<Context>) -> Result<Action, Error> {
    let namespace = primary.namespace().unwrap_or("default").to_owned();
    let edit = controller::edit_of(primary.annotations().into_iter().flatten());
    let reconciling = ctx
        .probe
        .reconciling(format!("{namespace}/{}", primary.name()), edit);
    let owner = foos()
        .controller_reference(&*primary)
        .and_then(|o| serde_json::to_value(o).ok())
        .unwrap_or_default();
    let replicas = primary.data["spec"]["replicas"].as_i64().unwrap_or(1);
    let desired = controller::desired_deployment(primary.name(), replicas, owner);
    let name = desired["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let deployments: Api<Deployment> = Api::namespaced(ctx.client.clone(), &namespace);
    let apply = PatchParams::apply(MANAGER)?.with_force(true);
    let applied = deployments
        .patch(&name, &apply, &Patch::Apply(&desired))
        .await?;
    let available = applied
        .status
        .and_then(|s| s.available_replicas)
        .unwrap_or(0);
    let primaries: Api<DynamicObject> =
        Api::namespaced_with(ctx.client.clone(), &namespace, &foos());
    let status = controller::status_patch(available);
    primaries
        .patch_status(
            primary.name(),
            &PatchParams::default(),
            &Patch::Merge(&status),
        )
        .await?;
    reconciling.done();
    Ok(Action::await_change())
}
