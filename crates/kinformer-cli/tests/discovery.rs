//! `kinformer watch` resolves resource names as kubectl does, through discovery and kubectl's
//! disk cache: `deploy -A` over TLS with a token, a custom resource by its short name.

use std::path::{Path, PathBuf};
use std::time::Duration;

use kinformer_sim::{CustomResource, ObjectOp, OpKind, Scope, Sim, SimHandle};
use serde_json::json;
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_kinformer");

/// A fresh directory with the sim's kubeconfig in it, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str, sim: &SimHandle) -> Self {
        let dir = std::env::temp_dir().join(format!("kinformer-cli-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        sim.write_kubeconfig(dir.join("kubeconfig")).unwrap();
        Self(dir)
    }

    /// `kinformer watch <args> --duration 2`, with kubectl's cache under this directory.
    async fn watch(&self, args: &[&str]) -> (bool, String, String) {
        let out = tokio::time::timeout(
            Duration::from_secs(60),
            Command::new(BIN)
                .arg("watch")
                .args(args)
                .args(["--duration", "2", "--kubeconfig"])
                .arg(self.0.join("kubeconfig"))
                .env("KUBECACHEDIR", self.0.join("cache"))
                .output(),
        )
        .await
        .expect("kinformer watch --duration 2 ends")
        .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
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
    let deployment = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}}}},
    });
    sim.apply(ObjectOp::new(OpKind::Create, "deployments", deployment))
        .await
        .unwrap();
    let dir = Dir::new("discovery", &sim);

    let (ok, stdout, stderr) = dir.watch(&["deploy", "-A"]).await;
    assert!(ok, "{stderr}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("ADDED (initial)") && l.contains("shop/web")),
        "{stdout}"
    );
    let cached = cache_dir(&dir.0, &sim);
    assert!(cached.join("servergroups.json").is_file());
    assert!(cached.join("apps/v1/serverresources.json").is_file());

    // Registered after the cache was written: found by the refresh a miss triggers.
    sim.register(
        CustomResource::new("example.com", "v1", "widgets", "Widget", Scope::Namespaced)
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
    let (ok, stdout, stderr) = dir.watch(&["wd", "-A"]).await;
    assert!(ok, "{stderr}");
    assert!(stdout.contains("default/w1"), "{stdout}");
    assert!(cached.join("example.com/v1/serverresources.json").is_file());

    let (ok, _, stderr) = dir.watch(&["gizmos", "-A"]).await;
    assert!(!ok);
    assert_eq!(
        stderr.trim(),
        r#"kinformer: the server has no resource "gizmos" (try a plural, singular, kind or short name)"#
    );
}
