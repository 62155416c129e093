//! A derived custom resource through the whole client on the sim, its CRD installed from
//! code: server-side apply of the spec, the status subresource, reads, and an informer's cache
//! of typed objects.

use kinformer::api::{Api, Patch, PatchParams, install_crd};
use kinformer::crd::CustomResourceExt;
use kinformer::rest::Client;
use kinformer_sim::Sim;
use serde_json::json;

use crate::crd_install::{Foo, FooSpec, FooStatus, cached, options};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_derived_resource_is_written_read_and_cached() {
    let sim = Sim::builder().start().await.expect("the sim starts");
    let client = Client::new(sim.service());
    install_crd(&client, &Foo::crd(), &options())
        .await
        .expect("the CRD is established");

    let foos: Api<Foo> = Api::namespaced(client.clone(), "default");
    let desired = Foo::new(
        "example",
        FooSpec {
            deployment_name: "web".into(),
            replicas: Some(2),
        },
    );
    let apply = PatchParams::apply("typed-cr-test").expect("a manager");
    let stored = foos
        .patch("example", &apply, &Patch::Apply(&desired))
        .await
        .expect("applied");
    assert_eq!(stored.spec, desired.spec);
    assert_eq!(stored.metadata.namespace.as_deref(), Some("default"));

    let status = Patch::Merge(json!({"status": {"availableReplicas": 2}}));
    let reported = foos
        .patch_status("example", &PatchParams::default(), &status)
        .await
        .expect("status patched");
    assert_eq!(
        reported.status,
        Some(FooStatus {
            available_replicas: 2
        })
    );
    assert_eq!(
        foos.get("example").await.expect("read").status,
        reported.status
    );

    let cached = cached(&client, "default/example").await;
    assert_eq!(cached.spec.deployment_name, "web");
    assert_eq!(cached.status, reported.status);
}
