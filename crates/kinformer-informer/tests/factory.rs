//! The informer factory against the in-process simulator, through the public API only.

use std::collections::BTreeMap;
use std::time::Duration;

use kinformer_core::{ApiResource, Scope, StoreRead};
use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
use kinformer_rest::Client;
use kinformer_sim::{CustomResource, ObjectOp, OpKind, Sim};

/// A custom resource gets a dynamic informer (one per resource, as client-go's
/// `dynamicinformer.DynamicSharedInformerFactory.ForResource`) that syncs and serves a lister.
#[tokio::test]
async fn dynamic_informers_for_custom_resources() {
    let sim = Sim::builder().seed(9).start().await.unwrap();
    sim.register(CustomResource::new(
        "example.com",
        "v1",
        "Widget",
        "widgets",
        Scope::Namespaced,
    ))
    .await
    .unwrap();
    for name in ["w1", "w2"] {
        let widget = serde_json::json!({
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"size": 3}
        });
        sim.apply(ObjectOp::new(OpKind::Create, "widgets.example.com", widget))
            .await
            .unwrap();
    }
    let factory = SharedInformerFactory::new(Client::new(sim.service()), FactoryConfig::default());
    let resource = ApiResource::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced);
    let widgets = factory.dynamic_informer(resource.clone());
    assert!(
        widgets
            .indexer()
            .same_cache(factory.dynamic_informer(resource).indexer())
    );
    factory.start();
    tokio::time::timeout(Duration::from_secs(30), factory.wait_for_cache_sync())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        factory.sync_status(),
        BTreeMap::from([("example.com/v1/widgets (dynamic)".to_owned(), true)])
    );
    let w1 = widgets.lister().namespaced("default").get("w1").unwrap();
    assert_eq!(w1.data["spec"]["size"], 3);
    assert_eq!(widgets.indexer().len(), 2);
    factory.shutdown().await;
}
