//! The factory's per-resource options, its metrics, and forgetting an informer, against the
//! in-process simulator.

use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kinformer_core::{ApiResource, DynamicObject, Object, Scope, StoreRead, Transform};
use kinformer_core::{Fields, Holding, ObjectShape, Projection};
use kinformer_indexer::IndexRead;
use kinformer_indexer::{IndexFunc, ReadOnlyIndexer};
use kinformer_informer::factory::{FactoryConfig, ResourceOptions, SharedInformerFactory};
use kinformer_informer::{Conflict, Error};
use kinformer_rest::Client;
use kinformer_sim::{CustomResource, ObjectOp, OpKind, Sim, SimHandle};

fn widgets() -> (CustomResource, ApiResource) {
    (
        CustomResource::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced),
        ApiResource::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced),
    )
}

async fn create_widgets(sim: &SimHandle, names: &[&str]) {
    for name in names {
        let widget = serde_json::json!({
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {"name": name, "namespace": "default"},
        });
        sim.apply(ObjectOp::new(OpKind::Create, "widgets.example.com", widget))
            .await
            .unwrap();
    }
}

async fn synced(factory: &SharedInformerFactory) -> bool {
    tokio::time::timeout(Duration::from_secs(30), factory.wait_for_cache_sync())
        .await
        .unwrap()
        .is_ok()
}

/// A custom resource whose definition is deleted and created again: forgetting its informer
/// stops it, and the next request builds a fresh one that syncs the new objects.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forgotten_informer_of_a_deleted_crd_is_built_afresh() {
    let sim = Sim::builder().seed(9).start().await.unwrap();
    let (crd, resource) = widgets();
    sim.register(crd.clone()).await.unwrap();
    create_widgets(&sim, &["w1", "w2"]).await;
    let factory = SharedInformerFactory::new(Client::new(sim.service()), FactoryConfig::default());
    let old = factory.dynamic_informer(resource.clone());
    factory.start();
    assert!(synced(&factory).await);
    assert_eq!(old.indexer().len(), 2);

    // Forgotten before the definition goes: an informer still running would see its objects
    // deleted, and this checks that a forgotten one is left as it stopped.
    assert!(factory.forget::<DynamicObject>(&resource).await);
    assert!(sim.unregister(&crd).await);
    assert!(old.is_stopped());
    assert!(factory.sync_status().is_empty());
    assert!(!factory.forget::<DynamicObject>(&resource).await);

    sim.register(crd).await.unwrap();
    create_widgets(&sim, &["w3"]).await;
    let fresh = factory.dynamic_informer(resource);
    assert!(!old.indexer().same_cache(fresh.indexer()));
    factory.start();
    assert!(synced(&factory).await);
    assert_eq!(fresh.indexer().list_keys(), ["default/w3"]);
    assert_eq!(
        old.indexer().len(),
        2,
        "the forgotten informer is left as it stopped"
    );
    factory.shutdown().await;
}

/// One resource's informer gets its own cache mode, index and transform (after the factory's
/// metadata transform); the others keep the factory's defaults.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_resource_options_shape_one_informer() {
    let sim = Sim::builder()
        .pods(12)
        .configmaps(4)
        .seed(4)
        .start()
        .await
        .unwrap();
    let config = FactoryConfig::default().with_transform_metadata(|meta| meta.annotations = None);
    let factory = SharedInformerFactory::new(Client::new(sim.service()), config);
    let by_name = IndexFunc::new(|pod: &Pod| Ok(vec![pod.name().to_owned()]));
    let options = ResourceOptions::<Pod>::typed()
        .with_shape(ObjectShape::default().with_holding(Holding::Compact))
        .with_index("by-name", by_name)
        .unwrap()
        .with_transform(Transform::new(|pod: &mut Pod| pod.metadata.labels = None));
    let pods = factory.informer_with(options).unwrap();
    let metadata = factory
        .informer_with(
            ResourceOptions::metadata(ApiResource::of::<ConfigMap>())
                .with_shape(ObjectShape::default().with_holding(Holding::Compact)),
        )
        .unwrap();
    let configmaps = factory.informer_for::<ConfigMap>();
    factory.start();
    assert!(synced(&factory).await);

    assert!(held_packed(pods.indexer()) && held_packed(metadata.indexer()));
    assert!(!held_packed(configmaps.indexer()));
    let cached = pods.indexer().list();
    assert_eq!(cached.len(), 12);
    assert!(
        cached
            .iter()
            .all(|p| p.metadata.labels.is_none() && p.metadata.annotations.is_none())
    );
    let one = pods
        .indexer()
        .by_index("by-name", cached[0].name())
        .unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(metadata.indexer().len(), 4);
    assert!(
        factory
            .informer_for::<Pod>()
            .indexer()
            .same_cache(pods.indexer())
    );
    factory.shutdown().await;
}

/// True when `indexer` holds objects and holds every one packed (a compact cache).
fn held_packed<K: Object>(indexer: &ReadOnlyIndexer<K>) -> bool {
    let held = indexer.list_cached();
    !held.is_empty() && held.iter().all(|obj| obj.decoded().is_none())
}

/// The conflict `result` was refused for.
fn conflict<T: std::fmt::Debug>(result: Result<T, Error>) -> Conflict {
    match result {
        Err(Error::Options { conflict, .. }) => conflict,
        other => panic!("expected a conflict, got {other:?}"),
    }
}

/// Settings that cannot hold together are refused with a typed error, nothing created.
#[tokio::test]
async fn conflicting_options_are_refused() {
    let sim = Sim::builder().seed(1).start().await.unwrap();
    let namespace = IndexFunc::new(|pod: &Pod| Ok(vec![pod.name().to_owned()]));
    let twice = ResourceOptions::<Pod>::typed().with_index("namespace", namespace);
    assert_eq!(
        conflict(twice),
        Conflict::DuplicateIndex("namespace".into())
    );

    let factory = SharedInformerFactory::new(Client::new(sim.service()), FactoryConfig::default());
    let _shared = factory.informer_for::<ConfigMap>();
    let late = factory.informer_with(
        ResourceOptions::<ConfigMap>::typed()
            .with_shape(ObjectShape::default().with_holding(Holding::Compact)),
    );
    assert_eq!(conflict(late), Conflict::AlreadyCreated);
}

/// A metadata-only informer's shape still decides which metadata is kept: the server sends
/// metadata only, the projection drops what the cache does not need of it.
#[tokio::test]
async fn a_metadata_informer_keeps_what_its_shape_keeps() {
    let sim = Sim::builder().pods(6).seed(5).start().await.unwrap();
    let factory = SharedInformerFactory::new(Client::new(sim.service()), FactoryConfig::default());
    let lean = ObjectShape::default().with_fields(Fields::projected(
        Projection::drop(["metadata.annotations", "metadata.ownerReferences"]).unwrap(),
    ));
    let metadata = factory
        .informer_with(ResourceOptions::metadata(ApiResource::of::<Pod>()).with_shape(lean))
        .unwrap();
    factory.start();
    assert!(synced(&factory).await);
    let cached = metadata.indexer().list();
    assert_eq!(cached.len(), 6);
    assert!(cached.iter().all(|p| {
        let meta = &p.metadata;
        meta.annotations.is_none()
            && meta.owner_references.is_none()
            && meta.managed_fields.is_none()
            && meta.labels.is_some()
    }));
    factory.shutdown().await;
}

/// With a registry, every informer the factory creates exports client-go's informer and
/// reflector metrics, labelled with its name and resource.
#[cfg(feature = "prometheus")]
#[tokio::test]
async fn the_factory_exports_every_informers_metrics() {
    use kinformer_informer::InformerMetrics;
    use prometheus_client::registry::Registry;

    let sim = Sim::builder().configmaps(3).seed(2).start().await.unwrap();
    let mut registry = Registry::default();
    let metrics = InformerMetrics::register(&mut registry);
    let config = FactoryConfig::default()
        .with_metrics(move |name, resource| metrics.for_informer(name, resource));
    let factory = SharedInformerFactory::new(Client::new(sim.service()), config);
    factory.informer_for::<ConfigMap>();
    factory.metadata_informer(ApiResource::of::<ConfigMap>());
    factory.start();
    assert!(synced(&factory).await);
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    for line in [
        r#"reflector_lists_total{name="v1/configmaps",resource_type="ConfigMap"} 1"#,
        r#"reflector_lists_total{name="v1/configmaps (metadata)",resource_type="ConfigMap"} 1"#,
        r#"informer_store_items{name="v1/configmaps",group="",version="v1",resource="configmaps"} 3"#,
        r#"informer_decode_failures_total{name="v1/configmaps",group="",version="v1",resource="configmaps"} 0"#,
    ] {
        assert!(text.contains(line), "{line} missing from\n{text}");
    }
    factory.shutdown().await;
}
