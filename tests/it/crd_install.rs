//! A typed custom resource end to end on the sim: its derived CRD installed by
//! `install_crd` (applied, then watched until `Established`), then objects of the new resource
//! written and read through `Api<Foo>` and seen by an informer; and a CRD whose names collide
//! refused at once with its `NamesAccepted` condition.

use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kinformer::api::{Api, Error, InstallOptions, Patch, PatchParams, install_crd};
use kinformer::crd::{CustomResource, CustomResourceExt};
use kinformer::informer::Config;
use kinformer::listwatch::ListWatch;
use kinformer::prelude::*;
use kinformer::rest::Client;
use kinformer_sim::Sim;
use serde::{Deserialize, Serialize};

/// The sample controller's Foo.
#[derive(CustomResource, Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
#[kinformer(
    crate = "kinformer::crd",
    group = "samplecontroller.k8s.io",
    version = "v1alpha1",
    kind = "Foo",
    namespaced,
    status = "FooStatus",
    shortname = "fo",
    printcolumn(name = "Replicas", type_ = "integer", json_path = ".spec.replicas"),
    annotation(
        "api-approved.kubernetes.io",
        "unapproved, experimental-only; please use https://github.com/kubernetes/enhancements/pull/1111"
    )
)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FooSpec {
    /// The Deployment the Foo owns.
    pub(crate) deployment_name: String,
    /// How many replicas it runs.
    #[schemars(range(min = 0))]
    pub(crate) replicas: Option<i32>,
}

/// What the Foo's controller saw.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FooStatus {
    /// The Deployment's available replicas.
    pub(crate) available_replicas: i32,
}

/// A hang guard: the sim establishes a CRD at once.
pub(crate) const PROMPT: Duration = Duration::from_secs(10);

pub(crate) fn options() -> InstallOptions {
    InstallOptions::new("crd-install-test")
        .and_then(|o| o.with_timeout(PROMPT))
        .expect("valid options")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_derived_crd_installs_and_its_resource_is_served() {
    let sim = Sim::builder().start().await.expect("the sim starts");
    let client = Client::new(sim.service());

    let installed = install_crd(&client, &Foo::crd(), &options())
        .await
        .expect("the CRD is established");
    let conditions = installed
        .status
        .and_then(|s| s.conditions)
        .unwrap_or_default();
    assert!(
        conditions
            .iter()
            .any(|c| c.type_ == "Established" && c.status == "True"),
        "{conditions:?}"
    );
    // Installing again is an apply of the same object: established at once.
    install_crd(&client, &Foo::crd(), &options())
        .await
        .expect("a second install");

    let foos: Api<Foo> = Api::namespaced(client.clone(), "default");
    let desired = Foo::new(
        "example",
        FooSpec {
            deployment_name: "web".into(),
            replicas: Some(2),
        },
    );
    let apply = PatchParams::apply("crd-install-test").expect("a manager");
    let stored = foos
        .patch("example", &apply, &Patch::Apply(&desired))
        .await
        .expect("a Foo is applied");
    assert_eq!(stored.spec, desired.spec);
    assert_eq!(stored.status, None);

    let cached = cached(&client, "default/example").await;
    assert_eq!(cached.spec.deployment_name, "web");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_another_crd_holds_fail_at_once() {
    let sim = Sim::builder().start().await.expect("the sim starts");
    let client = Client::new(sim.service());
    install_crd(&client, &Foo::crd(), &options())
        .await
        .expect("the first CRD is established");

    // Another resource of the group whose short name is the first one's plural.
    let mut rival: CustomResourceDefinition = Foo::crd();
    rival.metadata.name = Some("rivals.samplecontroller.k8s.io".into());
    rival.spec.names.plural = "rivals".into();
    rival.spec.names.singular = Some("rival".into());
    rival.spec.names.kind = "Rival".into();
    rival.spec.names.short_names = Some(vec!["foos".into()]);

    let err = tokio::time::timeout(PROMPT, install_crd(&client, &rival, &options()))
        .await
        .expect("refused before the timeout")
        .expect_err("the names collide");
    let Error::NamesNotAccepted { crd, condition } = &err else {
        panic!("expected NamesNotAccepted, got {err:?}");
    };
    assert_eq!(crd, "rivals.samplecontroller.k8s.io");
    assert_eq!(condition.status, "False");
    assert!(err.to_string().contains("NamesAccepted is False"), "{err}");
}

/// The Foo `key` as a typed informer caches it once synced (the informer is stopped again).
pub(crate) async fn cached(client: &Client, key: &str) -> std::sync::Arc<Foo> {
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
    let cached = informer.lister().get(key).expect("the Foo is cached");
    informer.shutdown();
    running
        .await
        .expect("the informer task")
        .expect("the informer ends cleanly");
    cached
}
