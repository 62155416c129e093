//! The cache modes of `mirror` and `watch`: `--metadata-only` caches and shows
//! `PartialObjectMetadata` whatever the resource; `--compact` holds whole objects packed and
//! shows them decoded.

use kinformer_sim::Sim;
use serde_json::Value;
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_kinformer");

/// Runs the command with `args` against the sim behind `kubeconfig`; fails the test if it fails.
async fn kinformer(args: &[&str], kubeconfig: &std::path::Path) -> std::process::Output {
    let out = Command::new(BIN)
        .args(args)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    out
}

/// `kinformer watch pods -A <mode>` for a second prints one `ADDED` line per pod.
async fn watch_shows_adds(mode: &str, pods: usize, kubeconfig: &std::path::Path) {
    let watch = ["watch", "pods", "-A", mode, "--duration", "1"];
    let out = kinformer(&watch, kubeconfig).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let adds = stdout.lines().filter(|l| l.starts_with("ADDED")).count();
    assert_eq!(adds, pods, "{stdout}");
}

/// `--metadata-only` caches `PartialObjectMetadata` for pods and configmaps alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mirror_and_watch_cache_metadata_only() {
    let sim = Sim::builder()
        .pods(25)
        .configmaps(7)
        .seed(8)
        .start()
        .await
        .unwrap();
    let dir = std::env::temp_dir().join(format!("kinformer-cli-meta-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let kubeconfig = dir.join("kubeconfig");
    sim.write_kubeconfig(&kubeconfig).unwrap();

    for (resource, count) in [("pods", 25), ("configmaps", 7)] {
        let dump = dir.join(format!("{resource}.jsonl"));
        let dump_path = dump.to_string_lossy();
        let mirror = [
            "mirror",
            resource,
            "-A",
            "--metadata-only",
            "--duration",
            "0.5",
        ];
        let args = [&mirror[..], &["--dump", &dump_path]].concat();
        let out = kinformer(&args, &kubeconfig).await;
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["objects"], count, "{report}");
        let dumped = std::fs::read_to_string(&dump).unwrap();
        for line in dumped.lines() {
            let obj: Value = serde_json::from_str(line).unwrap();
            assert_eq!(obj["kind"], "PartialObjectMetadata", "{line}");
            assert!(
                obj.get("spec").is_none() && obj.get("data").is_none(),
                "{line}"
            );
            assert!(obj["metadata"]["name"].is_string());
        }
    }

    watch_shows_adds("--metadata-only", 25, &kubeconfig).await;
    std::fs::remove_dir_all(&dir).ok();
}

/// `--compact` holds whole pods packed and dumps and shows them decoded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mirror_and_watch_hold_a_compact_cache() {
    let sim = Sim::builder().pods(25).seed(9).start().await.unwrap();
    let dir = std::env::temp_dir().join(format!("kinformer-cli-compact-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let kubeconfig = dir.join("kubeconfig");
    sim.write_kubeconfig(&kubeconfig).unwrap();
    let dump = dir.join("pods.jsonl");
    let dump_path = dump.to_string_lossy();
    let mirror = ["mirror", "pods", "-A", "--compact", "--duration", "0.5"];
    let args = [&mirror[..], &["--dump", &dump_path]].concat();
    let out = kinformer(&args, &kubeconfig).await;
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["objects"], 25, "{report}");
    let dumped = std::fs::read_to_string(&dump).unwrap();
    assert_eq!(dumped.lines().count(), 25);
    for line in dumped.lines() {
        let pod: Value = serde_json::from_str(line).unwrap();
        assert!(
            pod["spec"]["containers"].is_array(),
            "decoded whole: {line}"
        );
    }

    watch_shows_adds("--compact", 25, &kubeconfig).await;
    std::fs::remove_dir_all(&dir).ok();
}
