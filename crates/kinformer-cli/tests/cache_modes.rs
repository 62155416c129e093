//! The cache modes of `mirror` and `watch`: `--metadata-only` caches and shows
//! `PartialObjectMetadata` whatever the resource; `--compact` holds whole objects packed and
//! shows them decoded.

mod common;

use common::{Dir, Finished};
use kinformer_sim::Sim;
use serde_json::Value;

/// Runs the command with `args` to its end; fails the test if it fails.
async fn kinformer(dir: &Dir, args: &[&str]) -> Finished {
    let out = dir.start(args).finish().await;
    assert!(out.status.success(), "{args:?}: {}", out.stderr);
    out
}

/// `kinformer watch pods -A <mode>` prints one `ADDED` line per pod, and nothing more by the
/// time it is stopped.
async fn watch_shows_adds(mode: &str, pods: usize, dir: &Dir) {
    let adds = |lines: &[String]| lines.iter().filter(|l| l.starts_with("ADDED")).count();
    let watch = dir.start(&["watch", "pods", "-A", mode]);
    watch
        .stdout_until(&format!("{pods} pods are ADDED"), |lines| {
            adds(lines) >= pods
        })
        .await;
    let out = watch.stop().await;
    assert!(out.status.success(), "{}", out.stderr);
    let lines: Vec<String> = out.stdout.lines().map(str::to_owned).collect();
    assert_eq!(adds(&lines), pods, "{}", out.stdout);
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
    let dir = Dir::with_kubeconfig("meta", &sim);

    for (resource, count) in [("pods", 25), ("configmaps", 7)] {
        let dump = dir.path(&format!("{resource}.jsonl"));
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
        let out = kinformer(&dir, &args).await;
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
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

    watch_shows_adds("--metadata-only", 25, &dir).await;
}

/// `--compact` holds whole pods packed and dumps and shows them decoded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mirror_and_watch_hold_a_compact_cache() {
    let sim = Sim::builder().pods(25).seed(9).start().await.unwrap();
    let dir = Dir::with_kubeconfig("compact", &sim);
    let dump = dir.path("pods.jsonl");
    let dump_path = dump.to_string_lossy();
    let mirror = ["mirror", "pods", "-A", "--compact", "--duration", "0.5"];
    let args = [&mirror[..], &["--dump", &dump_path]].concat();
    let out = kinformer(&dir, &args).await;
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
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

    watch_shows_adds("--compact", 25, &dir).await;
}

/// A mirror that stops as soon as it is synced has handled every listed object: its handler
/// syncs before it reports synced, in every holding.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mirror_reports_synced_once_its_handler_has_every_object() {
    let pods = 3_000;
    let sim = Sim::builder().pods(pods).seed(10).start().await.unwrap();
    let dir = Dir::with_kubeconfig("handled", &sim);
    let holdings = [
        &["--compact"][..],
        &["--tiered", "--hot", "16"],
        &["--compact", "--compress"],
        &[],
    ];
    for holding in holdings {
        let mirror = [
            "mirror",
            "pods",
            "-A",
            "--duration",
            "0",
            "--dump",
            "/dev/null",
        ];
        let out = kinformer(&dir, &[&mirror[..], holding].concat()).await;
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(report["objects"], pods, "{holding:?}: {report}");
        assert_eq!(report["handler_calls"], pods, "{holding:?}: {report}");
    }
}

/// `--compress` holds pods compressed past the dictionary's training set, and they read back
/// as a plain compact cache's do; it needs a packed holding.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compressed_cache_dumps_what_an_uncompressed_one_does() {
    let pods = 1_500;
    let sim = Sim::builder().pods(pods).seed(11).start().await.unwrap();
    let dir = Dir::with_kubeconfig("compressed", &sim);
    let mut dumps = Vec::new();
    for holding in [&["--compact"][..], &["--compact", "--compress"]] {
        let dump = dir.path(&format!("pods-{}.jsonl", holding.len()));
        let dump_path = dump.to_string_lossy();
        let mirror = [
            "mirror",
            "pods",
            "-A",
            "--duration",
            "0",
            "--dump",
            &dump_path,
        ];
        let out = kinformer(&dir, &[&mirror[..], holding].concat()).await;
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(report["objects"], pods, "{holding:?}: {report}");
        let mut lines: Vec<String> = std::fs::read_to_string(&dump)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
        lines.sort();
        dumps.push(lines);
    }
    assert_eq!(dumps[0].len(), pods);
    assert!(
        dumps[0] == dumps[1],
        "the compressed cache dumped other pods"
    );
    let out = dir
        .start(&["mirror", "pods", "-A", "--compress"])
        .finish()
        .await;
    assert!(!out.status.success());
    assert!(out.stderr.contains("--compact"), "{}", out.stderr);
}
