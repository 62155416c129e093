//! A type from kube-rs's `#[derive(kube::CustomResource)]`, unchanged, works with kinformer once
//! `kinformer::crd::impl_resource!` adds k8s-openapi's `Resource` and `Metadata` (kube-derive
//! implements only kube's own `Resource` trait): `Api<K>`, `ListWatch<K>` and the informers then
//! take it like a built-in type, and it still is a kube-rs resource with kube's CRD.

use std::time::Duration;

use k8s_openapi::Resource as _;
use kinformer::api::{Api, Patch, PatchParams};
use kinformer::core::{ApiResource, Object, Scope};
use kinformer::informer::{Config, SharedIndexInformer};
use kinformer::listwatch::ListWatch;
use kinformer::rest::Client;
use kinformer_sim::Sim;
use kube::CustomResourceExt as _;
use serde::{Deserialize, Serialize};

/// A kube-rs custom resource, exactly as a kube-rs user writes it.
#[derive(
    kube::CustomResource, Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq,
)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "Widget",
    namespaced,
    status = "WidgetStatus"
)]
pub struct WidgetSpec {
    /// How big.
    pub size: i32,
}

kinformer::crd::impl_resource!(Widget {
    group: "example.com",
    version: "v1",
    kind: "Widget",
    plural: "widgets",
    scope: Namespaced,
});

/// What the widget's controller saw.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
pub struct WidgetStatus {
    /// Whether it is ready.
    pub ready: bool,
}

/// A hang guard, not a timing.
const PROMPT: Duration = Duration::from_secs(10);

#[test]
fn kube_types_are_kinformer_objects() {
    fn object<K: Object>() {}
    object::<Widget>();
    let resource = ApiResource::of::<Widget>();
    assert_eq!(resource.api_version(), "example.com/v1");
    assert_eq!(resource.plural, "widgets");
    assert_eq!(resource.scope, Scope::Namespaced);
    // The adapter's values are kube's.
    assert_eq!(Widget::crd().spec.names.plural, Widget::URL_PATH_SEGMENT);
    assert_eq!(
        <Widget as kube::Resource>::api_version(&()),
        Widget::API_VERSION
    );
    assert_eq!(<Widget as kube::Resource>::kind(&()), Widget::KIND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kube_derived_resource_through_api_and_an_informer() {
    let sim = Sim::builder().start().await.expect("the sim starts");
    let mut widgets = kinformer_sim::CustomResource::example_widgets();
    widgets.status_subresource = true;
    sim.register(widgets).await.expect("registered");
    let client = Client::new(sim.service());

    let api: Api<Widget> = Api::namespaced(client.clone(), "default");
    let apply = PatchParams::apply("kube-derive-test").expect("a manager");
    let desired = Widget::new("w1", WidgetSpec { size: 3 });
    let stored = api
        .patch("w1", &apply, &Patch::Apply(&desired))
        .await
        .expect("applied");
    assert_eq!(stored.spec, desired.spec);
    let status = Patch::Merge(serde_json::json!({"status": {"ready": true}}));
    let reported = api
        .patch_status("w1", &PatchParams::default(), &status)
        .await
        .expect("status patched");
    assert_eq!(reported.status, Some(WidgetStatus { ready: true }));

    let source = ListWatch::<Widget, _>::for_type(client.clone());
    let informer = SharedIndexInformer::new(source, Config::default().with_name("widgets"))
        .expect("an informer");
    let running = tokio::spawn({
        let informer = informer.clone();
        async move { informer.run().await }
    });
    tokio::time::timeout(PROMPT, informer.wait_for_cache_sync())
        .await
        .expect("the informer syncs in time")
        .expect("the informer syncs");
    let cached = informer
        .lister()
        .get("default/w1")
        .expect("the widget is cached");
    assert_eq!(cached.spec.size, 3);
    assert_eq!(cached.name(), "w1");
    informer.shutdown();
    running
        .await
        .expect("the informer task")
        .expect("the informer ends cleanly");
}
