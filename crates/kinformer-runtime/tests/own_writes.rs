//! A controller's own writes do not reconcile again the primary that made them: the owned
//! object's event carrying exactly the state a reconcile stored is its echo. Anyone else's
//! change to the owned object still reconciles its owner.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kinformer_api::{Api, Patch, PatchParams};
use kinformer_core::{ApiResource, Object as _};
use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
use kinformer_rest::Client;
use kinformer_runtime::{Action, Controller, ControllerConfig};
use kinformer_sim::{ObjectOp, OpKind, Sim};
use serde_json::json;

/// How long no reconcile may start for the controller to count as quiet.
const QUIET: Duration = Duration::from_millis(400);

struct Ctx {
    client: Client,
    reconciles: AtomicUsize,
}

/// Applies the primary's Secret, owned by it, annotated with the primary's data.
async fn reconcile(primary: Arc<ConfigMap>, ctx: Arc<Ctx>) -> Result<Action, kinformer_api::Error> {
    ctx.reconciles.fetch_add(1, Ordering::SeqCst);
    let owner = ApiResource::of::<ConfigMap>().controller_reference(&*primary);
    let child = json!({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": format!("{}-child", primary.name()), "ownerReferences": [owner],
                     "annotations": {"v": primary.data.as_ref().and_then(|d| d.get("v")).cloned().unwrap_or_default()}},
    });
    let secrets: Api<Secret> = Api::namespaced(ctx.client.clone(), "default");
    let apply = PatchParams::apply("own-writes-test")?.with_force(true);
    secrets
        .patch(
            &format!("{}-child", primary.name()),
            &apply,
            &Patch::Apply(&child),
        )
        .await?;
    Ok(Action::await_change())
}

/// The reconciles counted once none started for [`QUIET`].
async fn settled(ctx: &Ctx) -> usize {
    let mut last = ctx.reconciles.load(Ordering::SeqCst);
    loop {
        tokio::time::sleep(QUIET).await;
        let now = ctx.reconciles.load(Ordering::SeqCst);
        if now == last {
            return now;
        }
        last = now;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owned_objects_echo_of_the_controllers_own_write_does_not_reconcile_again() {
    let sim = Sim::builder().start().await.unwrap();
    let primary = json!({"metadata": {"name": "p", "namespace": "default"}, "data": {"v": "1"}});
    sim.apply(ObjectOp::new(OpKind::Create, "configmaps", primary))
        .await
        .unwrap();
    let client = Client::new(sim.service());
    let factory = SharedInformerFactory::new(client.clone(), FactoryConfig::default());
    let controller = Controller::for_type(
        factory.informer_for::<ConfigMap>(),
        ControllerConfig::default().with_name("own-writes"),
    )
    .owns(&factory.informer_for::<Secret>());
    factory.start();
    let ctx = Arc::new(Ctx {
        client,
        reconciles: AtomicUsize::new(0),
    });
    let running =
        tokio::spawn(controller.run(reconcile, |_, _, _| Action::backoff(), Arc::clone(&ctx)));

    // The Secret the first reconcile created comes back as an ADDED event: its echo.
    assert_eq!(settled(&ctx).await, 1);

    // Someone else's change to the Secret reconciles its owner (whose apply changes nothing).
    let label = json!({"metadata": {"labels": {"touched": "yes"}}});
    let touched = ObjectOp::new(OpKind::Patch, "secrets", label)
        .namespace("default")
        .name("p-child");
    sim.apply(touched).await.unwrap();
    assert_eq!(settled(&ctx).await, 2);

    // A change to the primary: one reconcile, whose write to the Secret is not a change.
    let edit = json!({"data": {"v": "2"}});
    let edited = ObjectOp::new(OpKind::Patch, "configmaps", edit)
        .namespace("default")
        .name("p");
    sim.apply(edited).await.unwrap();
    assert_eq!(settled(&ctx).await, 3);
    let secret = Api::<Secret>::namespaced(ctx.client.clone(), "default")
        .get("p-child")
        .await
        .unwrap();
    assert_eq!(secret.metadata.annotations.unwrap()["v"], "2");

    running.abort();
    factory.shutdown().await;
}
