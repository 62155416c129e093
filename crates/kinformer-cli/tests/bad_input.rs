//! Bad input ends the command with one clear line on stderr and a non-zero exit: a resource the
//! server forbids (the report says the cache never synced), a garbage kubeconfig, a corrupt
//! certificate authority; and logs written to a pipe carry no colour codes.

mod common;

use common::{Dir, Finished, LIMIT};
use kinformer_sim::{Fault, FaultKind, Sim, wait_until};
use serde_json::Value;

/// Asserts a failure with exit code 1 and a single `kinformer: ` line; returns that line.
fn one_line_failure(out: &Finished) -> String {
    let stderr = &out.stderr;
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
    let dir = Dir::with_kubeconfig("forbidden", &sim);
    let dump = dir.path("dump.jsonl");
    let mirror = dir.start(&[
        "mirror",
        "pods",
        "-A",
        "--summary",
        "--dump",
        &dump.to_string_lossy(),
    ]);
    // Wait until the informer has met the 403, then stop the command as a user would.
    wait_until(
        "the server answers the pod list with 403",
        LIMIT,
        || async { sim.requests().await.iter().any(|r| r.status == 403) },
    )
    .await;
    let Finished {
        status,
        stdout,
        stderr: logged,
    } = mirror.stop().await;

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
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_to_a_pipe_carry_no_colour_codes() {
    let sim = Sim::builder().configmaps(3).start().await.unwrap();
    let dir = Dir::with_kubeconfig("colour", &sim);
    let watch = dir.start(&["-vv", "watch", "configmaps"]);
    watch
        .stderr_until("debug logs are written", |lines| {
            lines.iter().any(|l| l.contains("DEBUG"))
        })
        .await;
    let out = watch.stop().await;
    let stderr = &out.stderr;
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("DEBUG"), "debug logs are written: {stderr}");
    assert!(!has_colour_codes(stderr), "{stderr:?}");
}

#[tokio::test]
async fn a_garbage_kubeconfig_is_one_clear_line() {
    let dir = Dir::new("garbage");
    let kubeconfig = dir.kubeconfig();
    std::fs::write(&kubeconfig, "garbage: [").unwrap();
    let mirror = dir.start(&["mirror", "pods", "--dump", "/dev/null"]);
    let line = one_line_failure(&mirror.finish().await);
    assert_eq!(line.matches("invalid kubeconfig").count(), 1, "{line}");
    assert!(line.contains(&kubeconfig.display().to_string()), "{line}");
}

#[tokio::test]
async fn a_corrupt_certificate_authority_names_its_file() {
    let dir = Dir::new("corrupt-ca");
    let ca = dir.path("ca.pem");
    std::fs::write(
        &ca,
        "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
    )
    .unwrap();
    let kubeconfig = dir.kubeconfig();
    let yaml = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n    certificate-authority: {}\ncontexts:\n- name: c\n  context: {{cluster: c, user: u}}\ncurrent-context: c\nusers:\n- name: u\n  user: {{token: t}}\n",
        ca.display()
    );
    std::fs::write(&kubeconfig, yaml).unwrap();
    let mirror = dir.start(&["mirror", "pods", "--dump", "/dev/null"]);
    let line = one_line_failure(&mirror.finish().await);
    let expected = format!(
        "cannot parse the certificate-authority file {}",
        ca.display()
    );
    assert!(line.contains(&expected), "{line}");
    assert!(!line.contains("peer"), "{line}");
}
