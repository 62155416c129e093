//! A typed custom resource: `Foo` derived from its spec, its CustomResourceDefinition printed as
//! YAML (what `kubectl apply -f -` takes), then a Foo applied and read back as a `Foo`.
//!
//! On the embedded server the resource is registered from the CRD's names (it does not serve
//! CustomResourceDefinitions); with `--kubeconfig FILE` the CRD is installed with `install_crd`.

use std::io::Write as _;

use kinformer::api::{Api, InstallOptions, Patch, PatchParams, install_crd};
use kinformer::core::Scope;
use kinformer::crd::{CustomResource, CustomResourceExt};
use kinformer::sim::Sim;
use kinformer_examples::connect;
use serde::{Deserialize, Serialize};

/// A Foo asks for a Deployment with some replicas.
#[derive(CustomResource, Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
#[kinformer(
    crate = "kinformer::crd",
    group = "samplecontroller.k8s.io",
    version = "v1alpha1",
    kind = "Foo",
    namespaced,
    status = "FooStatus",
    shortname = "fo",
    printcolumn(name = "Replicas", type_ = "integer", json_path = ".spec.replicas")
)]
#[serde(rename_all = "camelCase")]
struct FooSpec {
    /// The Deployment's name.
    deployment_name: String,
    /// Its replicas.
    #[schemars(range(min = 0, max = 100))]
    replicas: Option<i32>,
}

/// What the controller saw.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
struct FooStatus {
    /// The Deployment's available replicas.
    available_replicas: i32,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let crd = Foo::crd();
    let mut out = std::io::stdout().lock();
    write!(out, "{}", serde_yaml_ng::to_string(&crd)?)?;

    let conn = connect(Sim::builder()).await?;
    match &conn.sim {
        Some(sim) => {
            let names = &crd.spec.names;
            let mut foos = kinformer::sim::CustomResource::new(
                &crd.spec.group,
                &crd.spec.versions[0].name,
                &names.kind,
                &names.plural,
                Scope::Namespaced,
            );
            foos.status_subresource = true;
            sim.register(foos).await?;
        }
        None => {
            let options = InstallOptions::new("typed-custom-resource-example")?;
            install_crd(&conn.client, &crd, &options).await?;
        }
    }

    let foos: Api<Foo> = Api::namespaced(conn.client.clone(), "default");
    let spec = FooSpec {
        deployment_name: "example-foo".into(),
        replicas: Some(1),
    };
    let apply = PatchParams::apply("typed-custom-resource-example")?;
    foos.patch(
        "example-foo",
        &apply,
        &Patch::Apply(Foo::new("example-foo", spec)),
    )
    .await?;
    let stored = foos.get("example-foo").await?;
    writeln!(
        out,
        "---\n# {} {}/{}: deployment {}, replicas {:?}",
        Foo::crd_name(),
        stored.metadata.namespace.as_deref().unwrap_or_default(),
        stored.metadata.name.as_deref().unwrap_or_default(),
        stored.spec.deployment_name,
        stored.spec.replicas,
    )?;
    Ok(())
}
