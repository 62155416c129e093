//! The `kinformer` binary against the embedded API server: mirror under churn and faults ends equal to
//! the server's ground truth; errors are one clear line.

use std::collections::BTreeSet;
use std::process::Stdio;
use std::time::Duration;

use kinformer_sim::{Churn, DropMode, Fault, Sim};
use serde_json::{Value, json};
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_kinformer");

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

async fn mirror_converges(streaming: &str, queue: &str) {
    let sim = Sim::builder()
        .pods(1500)
        .namespaces(6)
        .seed(11)
        .start()
        .await
        .unwrap();
    let dir = std::env::temp_dir().join(format!(
        "kinformer-cli-{}-{streaming}-{queue}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let kubeconfig = dir.join("kubeconfig");
    let dump = dir.join("dump.jsonl");
    sim.write_kubeconfig(&kubeconfig).unwrap();
    sim.churn_start(Churn::new(300.0).seed(5)).await.unwrap();
    sim.add_faults(faults()).await;

    let child = Command::new(BIN)
        .args(["mirror", "pods", "-A", "--summary", "--duration", "12"])
        .args(["--streaming-list", streaming, "--queue", queue])
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .arg("--dump")
        .arg(&dump)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    // Also break the watches open now, whatever the faults above already did.
    sim.drop_watches(DropMode::Abrupt).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    sim.drop_watches(DropMode::Error410).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    sim.churn_stop().await;
    sim.clear_faults().await;
    // From here the informer has over 7 s to recover from any backoff the faults left it in and
    // converge; the reliability goal is 10 s.

    let output = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("mirror finishes")
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "mirror failed: {stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).expect("one JSON report line");
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
    std::fs::remove_dir_all(&dir).ok();
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
    let dir = std::env::temp_dir().join(format!("kinformer-cli-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let kubeconfig = dir.join("kubeconfig");
    sim.write_kubeconfig(&kubeconfig).unwrap();
    let out = Command::new(BIN)
        .args(["watch", "widgets", "--kubeconfig"])
        .arg(&kubeconfig)
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.contains("no resource \"widgets\""), "{stderr}");

    let (url, addr) = (sim.url().to_owned(), sim.addr());
    drop(sim);
    // The server task is aborted asynchronously: wait (bounded) until its port refuses connections.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while tokio::net::TcpStream::connect(addr).await.is_ok() {
        assert!(
            std::time::Instant::now() < deadline,
            "the dropped sim still accepts connections"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let dead = std::fs::read_to_string(&kubeconfig).unwrap();
    assert!(dead.contains(&url));
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        Command::new(BIN)
            .args(["watch", "pods", "--kubeconfig"])
            .arg(&kubeconfig)
            .output(),
    )
    .await
    .expect("an unreachable server is reported, not waited on forever")
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The soak's short, bounded form (`cargo xtask soak` runs the long one): the mirror process
/// converges after rotating faults (every kind, a restart included), and the memory chart and
/// report are written.
#[tokio::test]
async fn a_short_soak_converges_and_charts_memory() {
    let out = std::env::temp_dir().join(format!("kinformer-soak-{}", std::process::id()));
    let output = Command::new(BIN)
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
    std::fs::remove_dir_all(&out).ok();
}
