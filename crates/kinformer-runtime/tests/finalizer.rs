//! A reconcile under the controller's finalizer against the simulator, which holds a deleted
//! object while it has finalizers: the finalizer is added first, the object is applied, and
//! its deletion waits for the cleanup, after which the finalizer goes and so does the object.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_api::{Api, DeleteParams, PostParams};
use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
use kinformer_rest::Client;
use kinformer_runtime::{Action, Controller, ControllerConfig, Error, FinalizerEvent, finalizer};
use kinformer_sim::Sim;

const FINALIZER: &str = "example.com/cleanup";

#[derive(Debug, thiserror::Error)]
#[error("never")]
struct Never;

struct Ctx {
    api: Api<ConfigMap>,
    seen: Mutex<Vec<String>>,
}

async fn reconcile(cm: Arc<ConfigMap>, ctx: Arc<Ctx>) -> Result<Action, Error<Never>> {
    let ctx2 = Arc::clone(&ctx);
    finalizer(&ctx.api, FINALIZER, cm, |event| async move {
        let what = match &event {
            FinalizerEvent::Apply(cm) => {
                format!("apply {}", cm.metadata.name.as_deref().unwrap_or_default())
            }
            FinalizerEvent::Cleanup(cm) => format!(
                "cleanup {}",
                cm.metadata.name.as_deref().unwrap_or_default()
            ),
        };
        ctx2.seen.lock().unwrap().push(what);
        Ok(Action::await_change())
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cleanup_runs_before_the_object_goes() {
    let sim = Sim::builder().start().await.unwrap();
    let client = Client::new(sim.service());
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some("bucket".into());
    api.create(&PostParams::default(), &cm).await.unwrap();

    let factory = SharedInformerFactory::new(client, FactoryConfig::default());
    let controller = Controller::for_type(
        factory.informer_for::<ConfigMap>(),
        ControllerConfig::default(),
    );
    factory.start();
    let ctx = Arc::new(Ctx {
        api: api.clone(),
        seen: Mutex::default(),
    });
    let mut results = controller.stream(reconcile, |_, _, _| Action::backoff(), Arc::clone(&ctx));
    let running = tokio::spawn(async move { while results.next().await.is_some() {} });

    let patience = Duration::from_secs(20);
    tokio::time::timeout(patience, async {
        loop {
            let current = api.get("bucket").await.unwrap();
            let has = current
                .metadata
                .finalizers
                .iter()
                .flatten()
                .any(|f| f == FINALIZER);
            if has
                && ctx
                    .seen
                    .lock()
                    .unwrap()
                    .contains(&"apply bucket".to_owned())
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the finalizer added, then the object applied");

    api.delete("bucket", &DeleteParams::default())
        .await
        .unwrap();
    tokio::time::timeout(patience, async {
        while api.get_opt("bucket").await.unwrap().is_some() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the object goes once cleaned up");
    let seen = ctx.seen.lock().unwrap().clone();
    let cleanup = seen
        .iter()
        .position(|s| s == "cleanup bucket")
        .expect("cleaned up");
    assert!(
        seen[..cleanup].contains(&"apply bucket".to_owned()),
        "{seen:?}"
    );
    assert_eq!(
        seen.iter().filter(|s| *s == "cleanup bucket").count(),
        1,
        "{seen:?}"
    );
    running.abort();
    factory.shutdown().await;
}
