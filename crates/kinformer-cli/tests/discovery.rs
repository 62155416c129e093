//! `kinformer watch` resolves resource names as kubectl does, through discovery and kubectl's
//! disk cache: `deploy -A` over TLS with a token, a custom resource by its short name.

mod common;

use std::path::{Path, PathBuf};

use common::{Dir, Finished, Running};
use kinformer_core::Scope;
use kinformer_sim::{CustomResource, ObjectOp, OpKind, Sim, SimHandle};
use serde_json::json;

/// `kinformer watch <args>` with the kubeconfig and kubectl's cache in `dir`, until it has shown
/// `key` as an initial ADDED (or ended by itself); then stopped.
async fn watch_until_shown(dir: &Dir, args: &[&str], key: &str) -> Finished {
    let watch = Running::spawn(
        dir.kinformer()
            .arg("watch")
            .args(args)
            .arg("--kubeconfig")
            .arg(dir.kubeconfig()),
    );
    let shown = |lines: &[String]| {
        lines
            .iter()
            .any(|l| l.starts_with("ADDED (initial)") && l.contains(key))
    };
    watch.stdout_until(&format!("{key} is shown"), shown).await;
    watch.stop().await
}

/// Creates the Deployment `shop/web`.
async fn create_web_deployment(sim: &SimHandle) {
    let deployment = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}}}},
    });
    sim.apply(ObjectOp::new(OpKind::Create, "deployments", deployment))
        .await
        .unwrap();
}

fn cache_dir(dir: &Path, sim: &SimHandle) -> PathBuf {
    let host = sim.url().trim_start_matches("https://").replace(':', "_");
    dir.join("cache").join("discovery").join(host)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_resolves_short_names_and_custom_resources() {
    let sim = Sim::builder()
        .tls(true)
        .token("cli-discovery")
        .start()
        .await
        .unwrap();
    create_web_deployment(&sim).await;
    let dir = Dir::with_kubeconfig("discovery", &sim);

    let out = watch_until_shown(&dir, &["deploy", "-A"], "shop/web").await;
    assert!(out.status.success(), "{}", out.stderr);
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with("ADDED (initial)") && l.contains("shop/web")),
        "{}",
        out.stdout
    );
    let cached = cache_dir(&dir.0, &sim);
    assert!(cached.join("servergroups.json").is_file());
    assert!(cached.join("apps/v1/serverresources.json").is_file());

    // Registered after the cache was written: found by the refresh a miss triggers.
    sim.register(
        CustomResource::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced)
            .with_short_names(["wd"]),
    )
    .await
    .unwrap();
    sim.apply(ObjectOp::new(
        OpKind::Create,
        "widgets.example.com",
        json!({"metadata": {"name": "w1", "namespace": "default"}}),
    ))
    .await
    .unwrap();
    let out = watch_until_shown(&dir, &["wd", "-A"], "default/w1").await;
    assert!(out.status.success(), "{}", out.stderr);
    assert!(out.stdout.contains("default/w1"), "{}", out.stdout);
    assert!(cached.join("example.com/v1/serverresources.json").is_file());

    // An unknown name ends the command by itself.
    let out = watch_until_shown(&dir, &["gizmos", "-A"], "gizmos").await;
    assert!(!out.status.success());
    assert_eq!(
        out.stderr.trim(),
        r#"kinformer: the server has no resource "gizmos" (try a plural, singular, kind or short name)"#
    );
}

/// A server that answers only the legacy discovery documents, as servers before aggregated
/// discovery (and proxies that strip it) write them: `/api/v1` without `apiVersion`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mirror_and_watch_resolve_names_on_a_legacy_discovery_server() {
    let sim = Sim::builder()
        .aggregated_discovery(false)
        .pods(12)
        .seed(4)
        .start()
        .await
        .unwrap();
    let dir = Dir::with_kubeconfig("legacy-discovery", &sim);
    let dump = dir.path("pods.jsonl");
    let dump = dump.to_string_lossy();
    for name in ["pods", "po", "pods.v1."] {
        let out = dir
            .start(&["mirror", name, "-A", "--duration", "0.3", "--dump", &dump])
            .finish()
            .await;
        assert!(out.status.success(), "{name}: {}", out.stderr);
        let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(report["objects"], 12, "{name}: {report}");
    }
    create_web_deployment(&sim).await;
    let out = watch_until_shown(&dir, &["deployments.v1.apps", "-A"], "shop/web").await;
    assert!(out.status.success(), "{}", out.stderr);
    assert!(out.stdout.contains("shop/web"), "{}", out.stdout);
}
