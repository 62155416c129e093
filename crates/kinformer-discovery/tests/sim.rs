//! Discovery against the simulator: aggregated and legacy documents, refresh on a miss, the
//! disk cache (kubectl's layout and TTL), and informers for names as kubectl accepts them.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use kinformer_core::Scope;
use kinformer_discovery::{Discovery, Error, Form};
use kinformer_rest::{Client, Config, Kubeconfig, KubeconfigOptions};
use kinformer_sim::{CustomResource, Sim, SimHandle};

/// A client over real HTTP, so it has a server URL (and so a disk cache directory).
fn http_client(sim: &SimHandle) -> Client {
    let kubeconfig = Kubeconfig::from_yaml(&sim.kubeconfig(), None).unwrap();
    let config = Config::from_custom_kubeconfig(kubeconfig, &KubeconfigOptions::default()).unwrap();
    Client::from_config(&config).unwrap()
}

/// A fresh directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("kinformer-discovery-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The discovery requests the sim served since the last call, as sorted paths without queries
/// (requests sent at once arrive in any order).
async fn discovery_requests(sim: &SimHandle) -> Vec<String> {
    let mut paths: Vec<String> = sim
        .requests()
        .await
        .into_iter()
        .map(|r| r.path.split('?').next().unwrap_or_default().to_owned())
        .filter(|p| {
            p == "/api"
                || p == "/apis"
                || p == "/api/v1"
                || p.split('/').count() == 4 && p.starts_with("/apis/")
        })
        .collect();
    paths.sort();
    sim.clear_requests().await;
    paths
}

fn widgets() -> CustomResource {
    CustomResource::example_widgets().with_short_names(["wd"])
}

#[tokio::test]
async fn aggregated_discovery_takes_two_requests_and_types_everything() {
    let sim = Sim::builder().start().await.unwrap();
    sim.register(widgets()).await.unwrap();
    sim.clear_requests().await;
    let discovery = Discovery::new(http_client(&sim));
    let resources = discovery.server_resources().await.unwrap();
    assert_eq!(discovery_requests(&sim).await, ["/api", "/apis"]);
    assert!(resources.failed.is_empty());
    let names: Vec<&str> = resources.groups.iter().map(|g| g.name.as_str()).collect();
    // The core group, then the groups in kube-apiserver's order.
    assert_eq!(names[..3], ["", "apiregistration.k8s.io", "apps"]);
    assert_eq!(names.last(), Some(&"example.com"), "registered last");

    let pods = discovery.find("po").await.unwrap();
    assert_eq!((pods.kind.as_str(), pods.singular.as_str()), ("Pod", "pod"));
    assert_eq!(pods.scope, Scope::Namespaced);
    assert_eq!(pods.short_names, ["po"]);
    assert_eq!(pods.categories, ["all"]);
    assert!(pods.supports("watch") && pods.supports("list"));
    let status = pods
        .subresources
        .iter()
        .find(|s| s.name == "status")
        .unwrap();
    assert_eq!(status.verbs, ["get", "patch", "update"]);
    let eviction = pods
        .subresources
        .iter()
        .find(|s| s.name == "eviction")
        .unwrap();
    assert_eq!(eviction.verbs, ["create"]);
    let nodes = discovery.find("no").await.unwrap();
    assert_eq!(nodes.scope, Scope::Cluster);
    let widgets = discovery.find("wd").await.unwrap();
    assert_eq!(widgets.group_resource(), "widgets.example.com");
    assert_eq!(widgets.api_version(), "example.com/v1");
    // Every lookup above came from memory.
    assert!(discovery_requests(&sim).await.is_empty());
}

#[tokio::test]
async fn the_legacy_documents_describe_the_same_resources() {
    let sim = Sim::builder().start().await.unwrap();
    sim.register(widgets()).await.unwrap();
    let aggregated = Discovery::new(http_client(&sim))
        .server_resources()
        .await
        .unwrap();
    sim.clear_requests().await;
    let legacy = Discovery::new(http_client(&sim))
        .with_form(Form::Legacy)
        .server_resources()
        .await
        .unwrap();
    let mut expected: Vec<String> = aggregated
        .groups
        .iter()
        .flat_map(|g| {
            g.versions
                .iter()
                .map(move |v| (g.name.clone(), v.version.clone()))
        })
        .map(|(g, v)| {
            if g.is_empty() {
                format!("/api/{v}")
            } else {
                format!("/apis/{g}/{v}")
            }
        })
        .chain(["/api".to_owned(), "/apis".to_owned()])
        .collect();
    expected.sort();
    assert!(expected.contains(&"/apis/example.com/v1".to_owned()));
    assert_eq!(discovery_requests(&sim).await, expected);
    assert_eq!(legacy, aggregated);
}

#[tokio::test]
async fn preferred_versions_come_from_the_server() {
    let sim = Sim::builder().start().await.unwrap();
    for version in ["v1beta1", "v1", "v2alpha1"] {
        let cr = CustomResource::new(
            "example.com",
            version,
            "Widget",
            "widgets",
            Scope::Namespaced,
        );
        sim.register(cr).await.unwrap();
    }
    for form in [Form::Aggregated, Form::Legacy] {
        let discovery = Discovery::new(Client::new(sim.service())).with_form(form);
        let resources = discovery.server_resources().await.unwrap();
        let group = resources.group("example.com").unwrap();
        assert_eq!(group.preferred_version, "v1", "{form:?}");
        let versions: Vec<&str> = group.versions.iter().map(|v| v.version.as_str()).collect();
        assert_eq!(versions, ["v1", "v1beta1", "v2alpha1"], "{form:?}");
        assert_eq!(discovery.resolve("widgets").await.unwrap().version, "v1");
        let named = discovery
            .resolve("widgets.v2alpha1.example.com")
            .await
            .unwrap();
        assert_eq!(named.version, "v2alpha1");
        let by_kind = discovery
            .resolve_kind("example.com", "Widget", None)
            .await
            .unwrap();
        assert_eq!(by_kind.version, "v1");
    }
}

#[tokio::test]
async fn a_miss_refreshes_once_then_is_a_typed_error() {
    let sim = Sim::builder().start().await.unwrap();
    let discovery = Discovery::new(http_client(&sim));
    assert_eq!(
        discovery.resolve("deploy").await.unwrap().plural,
        "deployments"
    );
    sim.clear_requests().await;

    sim.register(widgets()).await.unwrap();
    let found = discovery.resolve("widgets.example.com").await.unwrap();
    assert_eq!(
        (found.kind.as_str(), found.scope),
        ("Widget", Scope::Namespaced)
    );
    assert_eq!(discovery_requests(&sim).await, ["/api", "/apis"]);
    assert_eq!(discovery.resolve("wd").await.unwrap().plural, "widgets");
    assert!(discovery_requests(&sim).await.is_empty());

    let err = discovery.resolve("gizmos").await.unwrap_err();
    assert!(
        matches!(&err, Error::NotFound { name } if name == "gizmos"),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        r#"the server doesn't have a resource type "gizmos""#
    );
    assert_eq!(discovery_requests(&sim).await, ["/api", "/apis"]);
    let err = discovery
        .resolve_kind("example.com", "Gizmo", None)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::KindNotFound { .. }), "{err}");
}

#[tokio::test]
async fn a_failed_request_is_a_typed_error() {
    let sim = Sim::builder().token("right").start().await.unwrap();
    let discovery = Discovery::new(Client::new(sim.service()));
    let err = discovery.resolve("pods").await.unwrap_err();
    match &err {
        Error::Request { path, source } => {
            assert!(path == "/api" || path == "/apis", "{path}");
            assert!(source.is_unauthorized(), "{source}");
        }
        other => panic!("not a request error: {other}"),
    }
}

fn cache_files(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, base, out);
            } else {
                out.push(path.strip_prefix(base).unwrap().display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn age_files(dir: &Path, age: Duration) {
    let when = SystemTime::now() - age;
    for file in cache_files(dir) {
        let f = std::fs::File::options()
            .append(true)
            .open(dir.join(file))
            .unwrap();
        f.set_modified(when).unwrap();
    }
}

#[tokio::test]
async fn the_disk_cache_is_kubectls_layout_within_its_ttl() {
    let sim = Sim::builder().start().await.unwrap();
    let cache = TempDir::new("ttl");
    let discovery = Discovery::new(http_client(&sim)).with_cache_dir(&cache.0);
    let server_dir = discovery.server_cache_dir().unwrap();
    let host = sim.url().trim_start_matches("http://").replace(':', "_");
    assert_eq!(server_dir, cache.0.join("discovery").join(host));
    let first = discovery.server_resources().await.unwrap();
    let files = cache_files(&server_dir);
    for file in [
        "servergroups.json",
        "v1/serverresources.json",
        "apps/v1/serverresources.json",
    ] {
        assert!(files.iter().any(|f| f == file), "{file} in {files:?}");
    }
    sim.clear_requests().await;

    // Another process (another instance) within the TTL reads the files, not the server.
    let again = Discovery::new(http_client(&sim)).with_cache_dir(&cache.0);
    assert_eq!(again.server_resources().await.unwrap(), first);
    assert!(discovery_requests(&sim).await.is_empty());

    // Older than the TTL: asked again, and rewritten.
    age_files(&server_dir, Duration::from_secs(7 * 60 * 60));
    let expired = Discovery::new(http_client(&sim)).with_cache_dir(&cache.0);
    assert_eq!(expired.server_resources().await.unwrap(), first);
    assert_eq!(discovery_requests(&sim).await, ["/api", "/apis"]);
    let shorter = Discovery::new(http_client(&sim))
        .with_cache_dir(&cache.0)
        .with_ttl(Duration::from_secs(60));
    age_files(&server_dir, Duration::from_secs(120));
    shorter.server_resources().await.unwrap();
    assert_eq!(discovery_requests(&sim).await, ["/api", "/apis"]);
    let fresh = Discovery::new(http_client(&sim)).with_cache_dir(&cache.0);
    fresh.server_resources().await.unwrap();
    assert!(discovery_requests(&sim).await.is_empty());
}

#[tokio::test]
async fn a_miss_in_the_disk_cache_asks_the_server_and_rewrites_it() {
    let sim = Sim::builder().start().await.unwrap();
    let cache = TempDir::new("miss");
    Discovery::new(http_client(&sim))
        .with_cache_dir(&cache.0)
        .server_resources()
        .await
        .unwrap();
    sim.register(widgets()).await.unwrap();
    sim.clear_requests().await;

    let discovery = Discovery::new(http_client(&sim)).with_cache_dir(&cache.0);
    assert_eq!(discovery.resolve("cm").await.unwrap().plural, "configmaps");
    assert!(discovery_requests(&sim).await.is_empty(), "from disk");
    assert_eq!(discovery.resolve("wd").await.unwrap().group, "example.com");
    assert_eq!(discovery_requests(&sim).await, ["/api", "/apis"]);
    let server_dir = discovery.server_cache_dir().unwrap();
    assert!(
        server_dir
            .join("example.com/v1/serverresources.json")
            .is_file()
    );

    let next = Discovery::new(http_client(&sim)).with_cache_dir(&cache.0);
    assert_eq!(next.resolve("widgets").await.unwrap().kind, "Widget");
    assert!(
        discovery_requests(&sim).await.is_empty(),
        "the rewritten cache"
    );

    // An explicit invalidation skips the disk.
    next.invalidate().await;
    next.resolve("widgets").await.unwrap();
    assert_eq!(discovery_requests(&sim).await, ["/api", "/apis"]);
}

/// kubectl and kinformer read each other's cache files.
#[tokio::test]
async fn kubectl_reads_and_writes_the_same_cache() {
    if !kinformer_sim::kubectl_installed("the kubectl cache test") {
        return;
    }
    let sim = Sim::builder().start().await.unwrap();
    sim.register(widgets()).await.unwrap();
    let cache = TempDir::new("kubectl");
    let kubeconfig = cache.0.join("kubeconfig");
    sim.write_kubeconfig(&kubeconfig).unwrap();
    // Runs kubectl with its cache in `cache_dir` and answers its output; it must succeed.
    let kubectl = |cache_dir: &Path, args: &[&str]| {
        let mut cmd = tokio::process::Command::new("kubectl");
        cmd.arg("--kubeconfig")
            .arg(&kubeconfig)
            .arg("--cache-dir")
            .arg(cache_dir)
            .args(args);
        async move {
            let out = cmd.output().await.unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout).into_owned()
        }
    };
    let listing = kubectl(&cache.0, &["api-resources"]).await;
    assert!(
        listing.contains("widgets") && listing.contains("wd"),
        "{listing}"
    );
    sim.clear_requests().await;

    let discovery = Discovery::new(http_client(&sim)).with_cache_dir(&cache.0);
    let from_kubectl = discovery.server_resources().await.unwrap();
    assert!(
        discovery_requests(&sim).await.is_empty(),
        "read kubectl's files"
    );
    let served = Discovery::new(http_client(&sim))
        .server_resources()
        .await
        .unwrap();
    assert_eq!(from_kubectl, served);

    // kubectl resolves `wd` from files kinformer wrote, without asking the server.
    let ours = cache.0.join("ours");
    Discovery::new(http_client(&sim))
        .with_cache_dir(&ours)
        .server_resources()
        .await
        .unwrap();
    sim.clear_requests().await;
    kubectl(&ours, &["get", "wd", "-A", "-o", "name"]).await;
    assert!(
        discovery_requests(&sim).await.is_empty(),
        "kubectl read kinformer's files"
    );
}
