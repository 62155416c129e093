//! `Api<DynamicObject>` on a custom resource registered in the simulator.

use kinformer_api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kinformer_core::{DynamicObject, ListOptions, TypeMeta};
use kinformer_sim::CustomResource;
use serde_json::json;

use crate::common::{NS, sim, sorted_names};

#[tokio::test]
async fn a_custom_resource_through_dynamic_objects() {
    let (sim, client) = sim().await;
    let cr = CustomResource::example_widgets();
    sim.register(cr.clone()).await.unwrap();
    let widgets = cr.api_resource();
    let api: Api<DynamicObject> = Api::namespaced_with(client, NS, &widgets);

    let mut widget = DynamicObject::new("w1");
    widget.types = Some(TypeMeta::new(widgets.api_version(), &widgets.kind));
    widget.data = json!({"spec": {"size": 3}});
    let created = api.create(&PostParams::default(), &widget).await.unwrap();
    assert_eq!(created.data["spec"]["size"], 3);

    let patch = Patch::Merge(json!({"spec": {"size": 5}}));
    let patched = api
        .patch("w1", &PatchParams::default(), &patch)
        .await
        .unwrap();
    assert_eq!(patched.data["spec"]["size"], 5);

    let applied = api
        .patch(
            "w2",
            &PatchParams::apply("widget-controller").unwrap(),
            &Patch::Apply(json!({"apiVersion": "example.com/v1", "kind": "Widget",
                "metadata": {"name": "w2"}, "spec": {"size": 1}})),
        )
        .await
        .unwrap();
    assert_eq!(applied.data["spec"]["size"], 1);

    let list = api.list(&ListOptions::default()).await.unwrap();
    assert_eq!(sorted_names(&list), ["w1", "w2"]);

    api.delete("w1", &DeleteParams::default()).await.unwrap();
    assert!(api.get_opt("w1").await.unwrap().is_none());
    assert_eq!(api.get("w2").await.unwrap().data["spec"]["size"], 1);
}
