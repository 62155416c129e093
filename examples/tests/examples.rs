//! CI runs every example on the embedded server; each must finish on its own and succeed.

use std::process::Command;

fn run(bin: &str) -> String {
    let out = Command::new(bin).output().expect("the example starts");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{bin} failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn pod_informer_reads_through_its_index_and_lister() {
    let out = run(env!("CARGO_BIN_EXE_pod_informer"));
    assert!(out.starts_with("2000 pods cached on "), "{out}");
    assert!(out.contains("pods match app in (api,web)"), "{out}");
}

#[test]
fn configmap_controller_reconciles_every_configmap() {
    let out = run(env!("CARGO_BIN_EXE_configmap_controller"));
    assert!(
        out.contains("reconciled 300 configmaps with 300 writes; 0 pending"),
        "{out}"
    );
    // The informer and the queue report to one registry.
    assert!(
        out.contains(
            r#"metric reflector_lists_total{name="configmaps",resource_type="ConfigMap"} 1"#
        ),
        "{out}"
    );
    assert!(
        out.contains(r#"metric workqueue_adds_total{name="configmaps"}"#),
        "{out}"
    );
    // client-go's informer metrics: the cache, the queue, and the handler.
    let informer = r#"{name="configmaps",group="",version="v1",resource="configmaps"}"#;
    assert!(
        out.contains(&format!("metric informer_store_items{informer} 300")),
        "{out}"
    );
    assert!(
        out.contains(&format!("metric informer_queued_items{informer} 0")),
        "{out}"
    );
    let handler =
        r#"{name="configmaps",group="",version="v1",resource="configmaps",handler="enqueue"}"#;
    assert!(
        out.contains(&format!("metric informer_pending_notifications{handler} 0")),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "metric informer_event_process_duration_seconds_count{handler}"
        )),
        "{out}"
    );
}

#[test]
fn custom_resource_informer_caches_dynamic_objects() {
    let out = run(env!("CARGO_BIN_EXE_custom_resource"));
    assert!(out.contains("5 widgets cached, 5 adds handled"), "{out}");
    assert!(out.contains("default/w3 replicas=3"), "{out}");
}

#[test]
fn metadata_informer_caches_metadata_only() {
    let out = run(env!("CARGO_BIN_EXE_metadata_informer"));
    assert!(
        out.starts_with("1000 pods cached as metadata, owned by "),
        "{out}"
    );
    assert!(out.contains("busiest owner: "), "{out}");
    assert!(
        out.contains("each is a PartialObjectMetadata of meta.k8s.io/v1"),
        "{out}"
    );
}

#[test]
fn lean_caches_hold_projected_and_compact_pods() {
    let out = run(env!("CARGO_BIN_EXE_lean_caches"));
    assert!(out.starts_with("projected: 1000 pods cached, "), "{out}");
    assert!(
        out.contains("env kept: false, volumes kept: false"),
        "{out}"
    );
    assert!(out.contains("compact: 1000 pods cached, "), "{out}");
    assert!(out.contains("read back whole: true"), "{out}");
}

#[test]
fn sample_controller_reconciles_every_foo() {
    let out = run(env!("CARGO_BIN_EXE_sample_controller"));
    assert!(out.contains("3 foos, 3 deployments as asked"), "{out}");
}

#[test]
fn owned_pods_are_created_counted_as_metadata_and_collected_with_their_owner() {
    let out = run(env!("CARGO_BIN_EXE_owned_pods"));
    assert!(
        out.contains("3 replicasets, 9 pods cached as metadata"),
        "{out}"
    );
    assert!(
        out.contains("web deleted: its pods collected, 6 left"),
        "{out}"
    );
}

#[test]
fn typed_custom_resource_installs_its_crd_and_reconciles_a_foo() {
    let out = run(env!("CARGO_BIN_EXE_typed_custom_resource"));
    assert!(
        out.starts_with("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"),
        "{out}"
    );
    assert!(out.contains("name: foos.samplecontroller.k8s.io"), "{out}");
    assert!(out.contains("openAPIV3Schema:"), "{out}");
    assert!(
        out.contains("# foos.samplecontroller.k8s.io default/example-foo: deployment example-foo (owned by Foo/example-foo), replicas Some(1), status Some(FooStatus { available_replicas: 0 })"),
        "{out}"
    );
}
