//! Bad input ends the command with one clear line on stderr and a non-zero exit: a resource the
//! server forbids (the report says the cache never synced), a garbage kubeconfig, a corrupt
//! certificate authority; and logs written to a pipe carry no colour codes.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use kinformer_sim::{Fault, FaultKind, Sim};
use serde_json::Value;
use tokio::io::AsyncReadExt;
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_kinformer");

/// A fresh folder for one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kinformer-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The binary's output, within a bound.
async fn run(args: &[&str], kubeconfig: &Path) -> Output {
    let command = Command::new(BIN)
        .args(args)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .output();
    tokio::time::timeout(Duration::from_secs(60), command)
        .await
        .expect("the command ends")
        .unwrap()
}

/// Asserts a failure with exit code 1 and a single `kinformer: ` line; returns that line.
fn one_line_failure(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("kinformer: "), "{stderr}");
    stderr.trim().to_owned()
}

fn has_colour_codes(text: &str) -> bool {
    text.contains('\u{1b}')
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forbidden_resource_is_reported_as_never_synced() {
    let sim = Sim::builder().pods(5).start().await.unwrap();
    let forbidden = Fault::new(FaultKind::status(403))
        .count(-1)
        .verbs(["list", "watch"])
        .resources(["pods"]);
    sim.add_faults([forbidden]).await;
    let dir = temp_dir("forbidden");
    let kubeconfig = dir.join("kubeconfig");
    sim.write_kubeconfig(&kubeconfig).unwrap();
    let mut child = Command::new(BIN)
        .args(["mirror", "pods", "-A", "--summary", "--kubeconfig"])
        .arg(&kubeconfig)
        .arg("--dump")
        .arg(dir.join("dump.jsonl"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // Wait until the informer has met the 403, then stop the command as a user would.
    tokio::time::timeout(Duration::from_secs(30), async {
        while !sim.requests().await.iter().any(|r| r.status == 403) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the server answers the pod list with 403");
    let pid = child.id().unwrap().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().await;
    assert!(killed.unwrap().success());
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .await
        .unwrap();
    let mut logged = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut logged)
        .await
        .unwrap();
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .expect("the mirror stops on SIGTERM")
        .unwrap();

    assert_eq!(status.code(), Some(1), "{logged}");
    let report: Value = serde_json::from_str(&stdout).expect("one JSON report line");
    assert_eq!(report["synced"], false, "{report}");
    assert_eq!(report["objects"], 0, "{report}");
    assert!(report["seconds_to_sync"].is_null(), "{report}");
    let last = logged.trim().lines().last().unwrap_or_default();
    assert!(
        last.starts_with("kinformer: the cache never synced: last error: ") && last.contains("403"),
        "{logged}"
    );
    assert!(!has_colour_codes(&logged), "{logged:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_to_a_pipe_carry_no_colour_codes() {
    let sim = Sim::builder().configmaps(3).start().await.unwrap();
    let dir = temp_dir("colour");
    let kubeconfig = dir.join("kubeconfig");
    sim.write_kubeconfig(&kubeconfig).unwrap();
    let out = run(
        &["-vv", "watch", "configmaps", "--duration", "1"],
        &kubeconfig,
    )
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("DEBUG"), "debug logs are written: {stderr}");
    assert!(!has_colour_codes(&stderr), "{stderr:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test]
async fn a_garbage_kubeconfig_is_one_clear_line() {
    let dir = temp_dir("garbage");
    let kubeconfig = dir.join("kubeconfig");
    std::fs::write(&kubeconfig, "garbage: [").unwrap();
    let out = run(&["mirror", "pods", "--dump", "/dev/null"], &kubeconfig).await;
    let line = one_line_failure(&out);
    assert_eq!(line.matches("invalid kubeconfig").count(), 1, "{line}");
    assert!(line.contains(&kubeconfig.display().to_string()), "{line}");
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test]
async fn a_corrupt_certificate_authority_names_its_file() {
    let dir = temp_dir("corrupt-ca");
    let ca = dir.join("ca.pem");
    std::fs::write(
        &ca,
        "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
    )
    .unwrap();
    let kubeconfig = dir.join("kubeconfig");
    let yaml = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n    certificate-authority: {}\ncontexts:\n- name: c\n  context: {{cluster: c, user: u}}\ncurrent-context: c\nusers:\n- name: u\n  user: {{token: t}}\n",
        ca.display()
    );
    std::fs::write(&kubeconfig, yaml).unwrap();
    let out = run(&["mirror", "pods", "--dump", "/dev/null"], &kubeconfig).await;
    let line = one_line_failure(&out);
    let expected = format!(
        "cannot parse the certificate-authority file {}",
        ca.display()
    );
    assert!(line.contains(&expected), "{line}");
    assert!(!line.contains("peer"), "{line}");
    std::fs::remove_dir_all(&dir).ok();
}
