//! The `kinformer` binary against the embedded API server: mirror under churn and faults ends equal to
//! the server's ground truth; errors are one clear line.

mod common;

use std::collections::BTreeSet;

use common::{BIN, Dir, LIMIT, Running, get, sample};
use kinformer_sim::{Churn, DropMode, Fault, Sim, SimHandle, wait_until};
use serde_json::{Value, json};
use tokio::process::Command;

/// (namespace, name, uid, resourceVersion) of each summary line.
fn summary_set(
    items: impl IntoIterator<Item = Value>,
) -> BTreeSet<(String, String, String, String)> {
    items
        .into_iter()
        .map(|v| {
            let field = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
            (
                field("namespace"),
                field("name"),
                field("uid"),
                field("resourceVersion"),
            )
        })
        .collect()
}

fn faults() -> Vec<Fault> {
    [
        json!({"kind": "status", "code": 429, "retryAfter": 1, "count": 1, "verbs": ["list"]}),
        json!({"kind": "status", "code": 503, "retryAfter": 1, "count": 1, "verbs": ["watch"]}),
        json!({"kind": "watch_drop", "afterEvents": 20, "count": 1}),
        json!({"kind": "watch_malformed", "afterEvents": 30, "count": 1}),
        json!({"kind": "watch_error", "afterEvents": 10, "code": 410, "count": 1}),
        json!({"kind": "watch_close", "afterEvents": 15, "count": 1}),
    ]
    .into_iter()
    .map(|f| serde_json::from_value(f).expect("a valid fault rule"))
    .collect()
}

/// Watch requests the sim has answered so far (streaming lists included).
async fn watch_requests(sim: &SimHandle) -> usize {
    let requests = sim.requests().await;
    requests
        .iter()
        .filter(|r| r.path.contains("watch=true"))
        .count()
}

/// The last resourceVersion the mirror's cache applied, from its `--metrics`.
async fn cached_revision(metrics: &str) -> Option<u64> {
    let text = get(metrics, "/metrics").await;
    let gauge =
        r#"informer_store_resource_version{name="pods",group="",version="v1",resource="pods"}"#;
    sample(&text, gauge).map(|v| v as u64)
}

async fn mirror_converges(streaming: &str, queue: &str) {
    let sim = Sim::builder()
        .pods(1500)
        .namespaces(6)
        .seed(11)
        .start()
        .await
        .unwrap();
    let dir = Dir::with_kubeconfig(&format!("mirror-{streaming}-{queue}"), &sim);
    let dump = dir.path("dump.jsonl");
    sim.churn_start(Churn::new(300.0).seed(5)).await.unwrap();
    sim.add_faults(faults()).await;

    let mirror = Running::spawn(
        dir.kinformer()
            .args([
                "mirror",
                "pods",
                "-A",
                "--summary",
                "--metrics",
                "127.0.0.1:0",
            ])
            .args(["--streaming-list", streaming, "--queue", queue])
            .arg("--kubeconfig")
            .arg(dir.kubeconfig())
            .arg("--dump")
            .arg(&dump),
    );
    let metrics = mirror.metrics_addr().await;
    wait_until(
        "every fault met one of the mirror's requests",
        LIMIT,
        || async { sim.faults().await.is_empty() },
    )
    .await;
    // Also break open watches now, abruptly and with a 410 that forces a relist, each time
    // until the mirror watches again.
    for mode in [DropMode::Abrupt, DropMode::Error410] {
        let before = watch_requests(&sim).await;
        wait_until(&format!("a watch broken ({mode:?})"), LIMIT, || async {
            sim.drop_watches(mode.clone()).await > 0
        })
        .await;
        wait_until("the mirror watches again", LIMIT, || async {
            watch_requests(&sim).await > before && sim.stats().await.open_watches > 0
        })
        .await;
    }
    sim.churn_stop().await;
    sim.clear_faults().await;
    // Converged once the cache has applied the server's last write (the revision is read
    // afresh each time: churn may land a write after `churn_stop` returns).
    wait_until(
        "the mirror's cache is at the server's revision",
        LIMIT,
        || async {
            let revision = sim.stats().await.revision;
            cached_revision(&metrics).await == Some(revision)
        },
    )
    .await;

    let output = mirror.stop().await;
    assert!(output.status.success(), "mirror failed: {}", output.stderr);
    let report: Value = serde_json::from_str(&output.stdout).expect("one JSON report line");
    let truth = sim.state("pods", true).await.unwrap();
    let dumped: Vec<Value> = std::fs::read_to_string(&dump)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(report["objects"].as_u64(), Some(dumped.len() as u64));
    let (cached, truth) = (summary_set(dumped), summary_set(truth.items));
    let stale: Vec<_> = cached.difference(&truth).collect();
    let missing: Vec<_> = truth.difference(&cached).collect();
    assert!(
        stale.is_empty() && missing.is_empty(),
        "cache differs from the server: {} stale or extra, {} missing or older; stale {stale:?}; missing {missing:?}; report {report}",
        stale.len(),
        missing.len()
    );
    assert!(report["lists"].as_u64().unwrap() >= 1, "{report}");
    assert!(
        report["watches"].as_u64().unwrap() >= 2,
        "faults should have forced re-watches: {report}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mirror_with_streaming_list_and_deltafifo_equals_ground_truth() {
    mirror_converges("on", "deltafifo").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mirror_with_paged_list_and_in_order_queue_equals_ground_truth() {
    mirror_converges("off", "inorder").await;
}

#[tokio::test]
async fn errors_are_one_line_without_a_panic() {
    for args in [
        vec!["watch", "pods", "--kubeconfig", "/nonexistent/kubeconfig"],
        vec![
            "mirror",
            "pods",
            "--kubeconfig",
            "/nonexistent/kubeconfig",
            "--dump",
            "/dev/null",
        ],
    ] {
        let out = Command::new(BIN).args(&args).output().await.unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("kinformer: ") && !stderr.contains("panicked"),
            "{stderr}"
        );
    }
}

/// An unknown resource and an unreachable server each fail the binary with exit code 1 and a
/// single clear line on stderr, without hanging.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_resource_and_unreachable_server_are_clear_errors() {
    let sim = Sim::builder().start().await.unwrap();
    let dir = Dir::with_kubeconfig("errors", &sim);
    let kubeconfig = dir.kubeconfig();
    let out = Running::spawn(
        dir.kinformer()
            .args(["watch", "widgets", "--kubeconfig"])
            .arg(&kubeconfig),
    )
    .finish()
    .await;
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    assert!(
        out.stderr.contains("no resource \"widgets\""),
        "{}",
        out.stderr
    );

    let (url, addr) = (sim.url().to_owned(), sim.addr());
    drop(sim);
    // The server task is aborted asynchronously: wait until its port refuses connections.
    wait_until("the dropped sim refuses connections", LIMIT, || async {
        tokio::net::TcpStream::connect(addr).await.is_err()
    })
    .await;
    let dead = std::fs::read_to_string(&kubeconfig).unwrap();
    assert!(dead.contains(&url));
    // An unreachable server is reported, not waited on forever. The first run left kubectl's
    // discovery cache behind: without one, this run must ask the server.
    let out = Running::spawn(
        dir.kinformer()
            .env("KUBECACHEDIR", dir.path("empty-cache"))
            .args(["watch", "pods", "--kubeconfig"])
            .arg(&kubeconfig),
    )
    .finish()
    .await;
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    assert_eq!(out.stderr.trim().lines().count(), 1, "{}", out.stderr);
}

/// The soak's short, bounded form (`cargo xtask soak` runs the long one): the mirror process
/// converges after rotating faults (every kind, a restart included), and the memory chart and
/// report are written.
#[tokio::test]
async fn a_short_soak_converges_and_charts_memory() {
    let dir = Dir::new("soak");
    let out = dir.path("out");
    let output = dir
        .kinformer()
        .args([
            "soak",
            "--minutes",
            "0.3",
            "--pods",
            "300",
            "--churn",
            "100",
        ])
        .args(["--fault-every", "1.0", "--sample-every", "0.5", "--out"])
        .arg(&out)
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "soak failed: {stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).expect("one JSON report line");
    assert_eq!(report["converged"], true, "{report}");
    assert!(report["faults"].as_u64().unwrap() >= 5, "{report}");
    assert!(report["writes"].as_u64().unwrap() > 0, "{report}");
    assert!(report["rss_max_mib"].as_f64().unwrap() > 0.0, "{report}");
    let svg = std::fs::read_to_string(out.join("soak.svg")).unwrap();
    assert!(svg.contains("<polyline"), "{svg}");
    let csv = std::fs::read_to_string(out.join("soak.csv")).unwrap();
    assert!(csv.lines().count() > 10, "{csv}");
}
