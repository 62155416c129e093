//! A derived custom resource through the whole client on the sim, the resource registered from
//! the derived CRD's names: server-side apply of the spec, the status subresource, reads, and
//! an informer's cache of typed objects.

use std::time::Duration;

use kinformer::api::{Api, Patch, PatchParams};
use kinformer::crd::{CustomResource, CustomResourceExt};
use kinformer::informer::Config;
use kinformer::listwatch::ListWatch;
use kinformer::prelude::*;
use kinformer::rest::Client;
use kinformer_core::Scope;
use kinformer_sim::Sim;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A Foo runs a Deployment.
#[derive(CustomResource, Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
#[kinformer(
    crate = "kinformer::crd",
    group = "samplecontroller.k8s.io",
    version = "v1alpha1",
    kind = "Foo",
    namespaced,
    status = "FooStatus",
    derive = "PartialEq"
)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FooSpec {
    /// The Deployment the Foo owns.
    pub(crate) deployment_name: String,
    /// How many replicas it runs.
    pub(crate) replicas: Option<i32>,
}

/// What the Foo's controller saw.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FooStatus {
    /// The Deployment's available replicas.
    pub(crate) available_replicas: i32,
}

/// A hang guard, not a timing.
const PROMPT: Duration = Duration::from_secs(10);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_derived_resource_is_written_read_and_cached() {
    let sim = Sim::builder().start().await.expect("the sim starts");
    let crd = Foo::crd();
    let names = &crd.spec.names;
    let scope = if crd.spec.scope == "Namespaced" {
        Scope::Namespaced
    } else {
        Scope::Cluster
    };
    let mut resource = kinformer_sim::CustomResource::new(
        &crd.spec.group,
        &crd.spec.versions[0].name,
        &names.kind,
        &names.plural,
        scope,
    );
    resource.status_subresource = crd.spec.versions[0]
        .subresources
        .as_ref()
        .is_some_and(|s| s.status.is_some());
    sim.register(resource).await.expect("registered");
    let client = Client::new(sim.service());

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

    let source = ListWatch::<Foo, _>::for_type(client.clone());
    let informer =
        SharedIndexInformer::new(source, Config::default().with_name("foos")).expect("an informer");
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
        .get("default/example")
        .expect("the Foo is cached");
    assert_eq!(cached.spec.deployment_name, "web");
    assert_eq!(cached.status, reported.status);
    informer.shutdown();
    running
        .await
        .expect("the informer task")
        .expect("the informer ends cleanly");
}
