//! What kubectl shows of recorded events. Skipped, with a notice, only when kubectl is not
//! installed and `CI` is not set.

use std::process::Stdio;
use std::time::Duration;

use kinformer_events::{Config, EventType};
use tokio::process::Command;

use crate::{CONTROLLER, pod, recorder, sim};

#[tokio::test]
async fn kubectl_get_events_shows_the_series() {
    if !kinformer_sim::kubectl_installed("the kubectl test") {
        return;
    }
    let sim = sim().await;
    let dir = std::env::temp_dir().join(format!("kinformer-events-kubectl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let kubeconfig = dir.join("kubeconfig");
    sim.write_kubeconfig(&kubeconfig).unwrap();

    let recorder = recorder(&sim, Config::default());
    for _ in 0..2 {
        recorder.event(
            &pod("web-0"),
            EventType::Warning,
            "BackOff",
            "Restarting",
            "back-off restarting",
        );
    }
    let stats = recorder.shutdown().await;
    assert_eq!(stats.written, 1);

    let kubectl = |args: &[&str]| {
        let mut command = Command::new("kubectl");
        command
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .arg("--cache-dir")
            .arg(dir.join("cache"))
            .args(args)
            .stdin(Stdio::null())
            .kill_on_drop(true);
        command
    };
    let run = |args: &'static [&'static str]| {
        let mut command = kubectl(args);
        async move {
            let out = tokio::time::timeout(Duration::from_secs(30), command.output())
                .await
                .expect("kubectl timed out")
                .unwrap();
            assert!(
                out.status.success(),
                "kubectl {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8(out.stdout).unwrap()
        }
    };
    let json = run(&["get", "events.events.k8s.io", "-n", "shop", "-o", "json"]).await;
    let list: serde_json::Value = serde_json::from_str(&json).unwrap();
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["series"]["count"], 2);
    assert_eq!(items[0]["reportingController"], CONTROLLER);
    assert_eq!(items[0]["regarding"]["name"], "web-0");

    // Printed by the server as kube-apiserver prints an Event: its repeats in LAST SEEN.
    let table = run(&["get", "events.events.k8s.io", "-n", "shop"]).await;
    let row = table.lines().nth(1).unwrap_or_default();
    for part in [
        "(x2 over",
        "Warning",
        "BackOff",
        "pod/web-0",
        "back-off restarting",
    ] {
        assert!(row.contains(part), "{part}: {table}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
