//! `kinformer watch deploy -A` reaches a TLS sim through a kubeconfig `proxy-url`: a SOCKS5 proxy
//! and an HTTP `CONNECT` proxy on loopback, each of which must carry the discovery and the watch.
//! kubectl, given the same kubeconfig, goes through the same proxies (skipped, with a notice,
//! only when kubectl is not installed and `CI` is not set).

mod common;

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use common::{Dir, Running};
use kinformer_sim::proxy::{HttpProxy, ProxyHandle, Socks5Proxy};
use kinformer_sim::{ObjectOp, OpKind, Sim, SimHandle};
use serde_json::json;
use tokio::process::Command;

async fn sim_with_deployments(names: &[(&str, &str)]) -> SimHandle {
    let sim = Sim::builder()
        .tls(true)
        .token("cli-proxy")
        .start()
        .await
        .unwrap();
    for (namespace, name) in names {
        let deployment = json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "selector": {"matchLabels": {"app": name}},
                "template": {"metadata": {"labels": {"app": name}}},
            },
        });
        sim.apply(ObjectOp::new(OpKind::Create, "deployments", deployment))
            .await
            .unwrap();
    }
    sim
}

/// Runs `kinformer watch deploy -A` on the sim's kubeconfig with `proxy-url: proxy_url` until it
/// has printed every one of `want` (`namespace/name`) as an initial ADDED; returns the lines it
/// printed.
async fn watch_through(sim: &SimHandle, proxy_url: &str, want: &[&str], dir: &Dir) -> Vec<String> {
    let path = proxied_kubeconfig(sim, proxy_url, dir);
    let watch = Running::spawn(
        dir.kinformer()
            .args(["watch", "deploy", "-A", "--kubeconfig"])
            .arg(&path),
    );
    let all_seen = |printed: &[String]| {
        want.iter().all(|name| {
            printed
                .iter()
                .any(|l| l.starts_with("ADDED (initial)") && l.contains(*name))
        })
    };
    let printed = watch
        .stdout_until("every deployment is shown", all_seen)
        .await;
    let output = watch.stop().await;
    assert!(
        all_seen(&printed),
        "kinformer watch printed {printed:?}, stderr: {}",
        output.stderr
    );
    printed
}

/// Writes the sim's kubeconfig with `proxy-url: proxy_url` into `dir`; returns its path.
fn proxied_kubeconfig(sim: &SimHandle, proxy_url: &str, dir: &Dir) -> PathBuf {
    let server = format!("    server: {}\n", sim.url());
    let kubeconfig = sim
        .kubeconfig()
        .replace(&server, &format!("{server}    proxy-url: {proxy_url}\n"));
    assert!(kubeconfig.contains("proxy-url"), "{kubeconfig}");
    let path = dir.0.join("kubeconfig");
    std::fs::write(&path, kubeconfig).unwrap();
    path
}

/// Whether kubectl can run here; a missing kubectl fails under CI (`CI` set): a check that
/// silently skips proves nothing.
fn kubectl_installed() -> bool {
    let installed = std::process::Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .is_ok();
    if !installed {
        assert!(
            std::env::var_os("CI").is_none(),
            "kubectl is not installed, and CI is set: the kubectl proxy check must run"
        );
        eprintln!("NOTICE: kubectl is not installed; skipping the kubectl proxy check");
    }
    installed
}

/// `kubectl get deploy -A` through `proxy`: the deployments are listed and every connection the
/// sim accepted is one of the proxy's tunnels.
async fn kubectl_through(proxy: &ProxyHandle, tag: &str) {
    if !kubectl_installed() {
        return;
    }
    let sim = sim_with_deployments(&[("shop", "web"), ("billing", "api")]).await;
    let dir = Dir::new(tag);
    let path = proxied_kubeconfig(&sim, proxy.url(), &dir);
    let tunnels_before = proxy.connects().len();
    let output = tokio::time::timeout(
        Duration::from_secs(60),
        Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(&path)
            .arg("--cache-dir")
            .arg(dir.0.join("cache"))
            .args(["get", "deploy", "-A", "-o", "name"])
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("kubectl get deploy -A timed out")
    .unwrap();
    assert!(
        output.status.success(),
        "kubectl failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut names: Vec<&str> = stdout.lines().collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["deployment.apps/api", "deployment.apps/web"],
        "{stdout}"
    );
    let tunnels = proxy.connects().len() - tunnels_before;
    assert!(tunnels > 0, "kubectl opened no tunnel");
    assert_eq!(sim.stats().await.connections_accepted, tunnels as u64);
}

async fn watch_deploy_through(proxy: &ProxyHandle, tag: &str) {
    const DEPLOYMENTS: [(&str, &str); 2] = [("shop", "web"), ("billing", "api")];
    let sim = sim_with_deployments(&DEPLOYMENTS).await;
    let dir = Dir::new(tag);
    let want = DEPLOYMENTS.map(|(namespace, name)| format!("{namespace}/{name}"));
    let want: Vec<&str> = want.iter().map(String::as_str).collect();
    watch_through(&sim, proxy.url(), &want, &dir).await;
    let connects = proxy.connects();
    assert!(!connects.is_empty(), "the proxy opened no tunnel");
    assert!(
        connects.iter().all(|c| *c == sim.addr().to_string()),
        "{connects:?}"
    );
    assert!(proxy.bytes() > 0);
    // Every connection the sim accepted came through the proxy: nothing went around it.
    assert_eq!(
        sim.stats().await.connections_accepted,
        connects.len() as u64
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_deploy_through_a_socks5_proxy() {
    let proxy = Socks5Proxy::new().start().await.unwrap();
    watch_deploy_through(&proxy, "proxy-socks5").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_goes_through_the_same_proxies() {
    let socks = Socks5Proxy::new().start().await.unwrap();
    kubectl_through(&socks, "proxy-kubectl-socks5").await;
    let http = HttpProxy::new().start().await.unwrap();
    kubectl_through(&http, "proxy-kubectl-http").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_deploy_through_an_http_connect_proxy() {
    let proxy = HttpProxy::new().start().await.unwrap();
    watch_deploy_through(&proxy, "proxy-http").await;
    assert!(
        proxy
            .requests()
            .iter()
            .all(|head| head.starts_with("CONNECT ")),
        "{:?}",
        proxy.requests()
    );
}
