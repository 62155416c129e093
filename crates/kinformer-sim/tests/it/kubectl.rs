//! kubectl against the simulator, over HTTP and over HTTPS with a CA-pinned kubeconfig and a token.
//! Skipped, with a notice, only when kubectl is not installed and `CI` is not set.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use kinformer_sim::{Churn, CustomResource, Sim, SimHandle};
use tokio::io::AsyncReadExt;
use tokio::process::Command;

pub(crate) struct Kubectl {
    dir: PathBuf,
}

impl Kubectl {
    /// Writes the kubeconfig into a fresh directory; `None` (with a notice) when kubectl is
    /// missing on a developer's machine. Under CI (`CI` set) a missing kubectl fails the test:
    /// a conformance check that silently skips proves nothing.
    pub(crate) fn new(sim: &SimHandle, tag: &str) -> Option<Self> {
        if !kinformer_sim::kubectl_installed("the kubectl conformance tests") {
            return None;
        }
        let dir = std::env::temp_dir().join(format!(
            "kinformer-sim-kubectl-{tag}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        sim.write_kubeconfig(dir.join("kubeconfig")).unwrap();
        Some(Self { dir })
    }

    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new("kubectl");
        cmd.arg("--kubeconfig")
            .arg(self.dir.join("kubeconfig"))
            .arg("--cache-dir")
            .arg(self.dir.join("cache"))
            .args(args)
            .stdin(Stdio::null())
            .kill_on_drop(true);
        cmd
    }

    /// Runs kubectl to completion (30 s at most) and returns stdout; panics with stderr on failure.
    pub(crate) async fn run(&self, args: &[&str]) -> String {
        let out = tokio::time::timeout(Duration::from_secs(30), self.command(args).output())
            .await
            .unwrap_or_else(|_| panic!("kubectl {args:?} timed out"))
            .unwrap();
        assert!(
            out.status.success(),
            "kubectl {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Runs kubectl to completion (30 s at most); whether it succeeded, and its stderr.
    pub(crate) async fn attempt(&self, args: &[&str]) -> (bool, String) {
        let out = tokio::time::timeout(Duration::from_secs(30), self.command(args).output())
            .await
            .unwrap_or_else(|_| panic!("kubectl {args:?} timed out"))
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    pub(crate) fn write(&self, name: &str, content: &str) -> PathBuf {
        let p = self.dir.join(name);
        std::fs::write(&p, content).unwrap();
        p
    }
}

impl Drop for Kubectl {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A TLS sim that takes the token `{tag}-token`, and kubectl on it; `None` when kubectl is
/// missing (see [`Kubectl::new`]).
pub(crate) async fn tls_sim_with_kubectl(tag: &str) -> Option<(SimHandle, Kubectl)> {
    let sim = Sim::builder()
        .tls(true)
        .token(format!("{tag}-token"))
        .start()
        .await
        .unwrap();
    let k = Kubectl::new(&sim, tag)?;
    Some((sim, k))
}

pub(crate) fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

const CONFIGMAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-kubectl\n  namespace: default\ndata:\n  greeting: hello\n";

async fn exercise(sim: &SimHandle, k: &Kubectl, pods: usize) {
    let version: serde_json::Value =
        serde_json::from_str(&k.run(&["version", "-o", "json"]).await).unwrap();
    // kubectl reads the server's version (its own `version.Info` may predate the emulation
    // fields, which it then leaves out).
    assert_eq!(version["serverVersion"]["minor"], "36", "{version}");
    let table = k.run(&["get", "pods", "-A"]).await;
    assert_eq!(
        table.lines().count(),
        pods + 1,
        "a header and every pod:\n{table}"
    );
    let state = sim.state("pods", true).await.unwrap();
    for item in &state.items {
        assert!(table.contains(item["name"].as_str().unwrap()));
    }

    sim.clear_requests().await;
    let chunked = k.run(&["get", "pods", "-A", "--chunk-size=7"]).await;
    assert_eq!(chunked.lines().count(), pods + 1);
    let log = sim.requests().await;
    let lists: Vec<_> = log
        .iter()
        .filter(|r| r.path.starts_with("/api/v1/pods?") && r.path.contains("limit=7"))
        .collect();
    let continues = lists
        .iter()
        .filter(|r| r.path.contains("continue="))
        .count();
    assert_eq!(
        continues,
        pods.div_ceil(7) - 1,
        "continue requests in {lists:#?}"
    );

    let json: serde_json::Value =
        serde_json::from_str(&k.run(&["get", "pods", "-A", "-o", "json"]).await).unwrap();
    assert_eq!(json["kind"], "List");
    assert_eq!(json["items"].as_array().unwrap().len(), pods);
    assert_eq!(json["items"][0]["kind"], "Pod");

    let names = k.run(&["get", "pods", "-A", "-o", "name"]).await;
    assert_eq!(names.lines().count(), pods);
    assert!(names.lines().all(|l| l.starts_with("pod/")));

    let file = k.write("cm.yaml", CONFIGMAP);
    let out = k.run(&["create", "-f", path_str(&file)]).await;
    assert!(out.contains("from-kubectl"), "{out}");
    let got = k.run(&["get", "configmaps", "-o", "name"]).await;
    assert!(got.lines().any(|l| l == "configmap/from-kubectl"), "{got}");

    let target = state.items[0].clone();
    let (ns, name) = (
        target["namespace"].as_str().unwrap(),
        target["name"].as_str().unwrap(),
    );
    k.run(&["label", "pod", name, "-n", ns, "kinformer-test=yes"])
        .await;
    let labelled = k
        .run(&[
            "get",
            "pods",
            "-A",
            "-l",
            "kinformer-test=yes",
            "-o",
            "name",
        ])
        .await;
    assert_eq!(labelled.trim(), format!("pod/{name}"));
    k.run(&["delete", "pod", name, "-n", ns]).await;
    let after = k.run(&["get", "pods", "-A", "-o", "name"]).await;
    assert_eq!(after.lines().count(), pods - 1);
    assert!(!after.contains(&format!("pod/{name}\n")));
}

/// Runs `kubectl get pods -A -w` for a while under churn and returns what it printed.
async fn watch_output(k: &Kubectl, sim: &SimHandle) -> String {
    let mut child = k
        .command(&["get", "pods", "-A", "-w"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    sim.churn_start(Churn::new(50.0).seed(3)).await.unwrap();
    let mut buf = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(3), stdout.read_to_end(&mut buf)).await;
    sim.churn_stop().await;
    let _ = child.kill().await;
    String::from_utf8_lossy(&buf).into_owned()
}

#[tokio::test]
async fn kubectl_over_http() {
    let sim = Sim::builder()
        .pods(30)
        .namespaces(3)
        .seed(21)
        .start()
        .await
        .unwrap();
    let Some(k) = Kubectl::new(&sim, "http") else {
        return;
    };
    exercise(&sim, &k, 30).await;
    let before = sim.stats().await.objects["pods"];
    let out = watch_output(&k, &sim).await;
    assert!(
        out.lines().count() > before + 1 + 10,
        "live events after the initial list:\n{out}"
    );
}

#[tokio::test]
async fn kubectl_over_https_with_ca_and_token() {
    let sim = Sim::builder()
        .pods(12)
        .namespaces(2)
        .seed(22)
        .tls(true)
        .token("kubectl-token")
        .start()
        .await
        .unwrap();
    assert!(sim.url().starts_with("https://127.0.0.1:"));
    let Some(k) = Kubectl::new(&sim, "https") else {
        return;
    };
    let kubeconfig = std::fs::read_to_string(k.dir.join("kubeconfig")).unwrap();
    assert!(
        kubeconfig.contains("certificate-authority-data:") && kubeconfig.contains("kubectl-token")
    );
    exercise(&sim, &k, 12).await;
    let before = sim.stats().await.objects["pods"];
    let out = watch_output(&k, &sim).await;
    assert!(
        out.lines().count() > before + 1 + 10,
        "live events over TLS:\n{out}"
    );
    // Without the token: 401.
    let mut bad = kubeconfig.replace("kubectl-token", "wrong");
    bad.push('\n');
    std::fs::write(k.dir.join("kubeconfig"), bad).unwrap();
    let out = k.command(&["get", "pods"]).output().await.unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Unauthorized"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx\n";

/// kubectl discovers the built-ins and a custom resource through aggregated discovery (two
/// requests, no per-group document) and resolves short names with it.
#[tokio::test]
async fn kubectl_uses_aggregated_discovery() {
    let Some((sim, k)) = tls_sim_with_kubectl("discovery").await else {
        return;
    };
    sim.register(CustomResource::example_widgets().with_short_names(["wd"]))
        .await
        .unwrap();
    let listing = k.run(&["api-resources"]).await;
    for row in [
        ["pods", "po", "v1", "true", "Pod"],
        ["nodes", "no", "v1", "false", "Node"],
        ["deployments", "deploy", "apps/v1", "true", "Deployment"],
        ["widgets", "wd", "example.com/v1", "true", "Widget"],
    ] {
        assert!(
            listing
                .lines()
                .any(|l| l.split_whitespace().eq(row.iter().copied())),
            "{row:?} in:\n{listing}"
        );
    }
    let discovery: Vec<String> = sim
        .requests()
        .await
        .into_iter()
        .map(|r| r.path.split('?').next().unwrap_or_default().to_owned())
        .filter(|p| p.starts_with("/api"))
        .collect();
    assert!(
        discovery.contains(&"/api".to_owned()) && discovery.contains(&"/apis".to_owned()),
        "{discovery:?}"
    );
    assert!(
        !discovery
            .iter()
            .any(|p| p == "/api/v1" || p == "/apis/apps/v1"),
        "legacy documents were fetched: {discovery:?}"
    );

    let file = k.write("deploy.yaml", DEPLOYMENT);
    k.run(&["create", "-f", path_str(&file)]).await;
    let table = k.run(&["get", "deploy", "-A"]).await;
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("default") && l.contains("web")),
        "{table}"
    );
    let names = k
        .run(&["get", "deployments.apps", "-A", "-o", "name"])
        .await;
    assert_eq!(names.trim(), "deployment.apps/web");
    assert_eq!(k.run(&["get", "wd", "-A", "-o", "name"]).await.trim(), "");
}
