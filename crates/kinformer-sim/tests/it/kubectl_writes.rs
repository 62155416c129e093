//! kubectl's writes against the simulator over TLS with a token: server-side apply with its
//! conflicts, the three patch types, a server-side dry run, Leases, `kubectl scale` through the
//! scale subresource, and deletes by label and of a whole collection. Skipped, with a notice,
//! only when kubectl is not installed and `CI` is not set.

use crate::kubectl::{path_str, tls_sim_with_kubectl};

const APPLIED: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: default\ndata:\n  k: one\n";
const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: app\n        image: app:1\n      - name: side\n        image: side:1\n";

#[tokio::test]
async fn kubectl_apply_patch_dry_run_and_leases() {
    let Some((_sim, k)) = tls_sim_with_kubectl("writes").await else {
        return;
    };
    let file = k.write("applied.yaml", APPLIED);
    let out = k
        .run(&["apply", "--server-side", "-f", path_str(&file)])
        .await;
    assert!(
        out.contains("configmap/applied serverside-applied"),
        "{out}"
    );
    let managers = k
        .run(&[
            "get",
            "cm",
            "applied",
            "--show-managed-fields",
            "-o",
            "jsonpath={.metadata.managedFields[*].manager}/{.metadata.managedFields[*].operation}",
        ])
        .await;
    assert_eq!(managers, "kubectl/Apply");
    let changed = k.write("changed.yaml", &APPLIED.replace("k: one", "k: two"));
    let (ok, err) = k
        .attempt(&[
            "apply",
            "--server-side",
            "--field-manager=other",
            "-f",
            path_str(&changed),
        ])
        .await;
    assert!(
        !ok && err.contains("conflict with \"kubectl\"") && err.contains(".data.k"),
        "{err}"
    );
    k.run(&[
        "apply",
        "--server-side",
        "--field-manager=other",
        "--force-conflicts",
        "-f",
        path_str(&changed),
    ])
    .await;
    assert_eq!(
        k.run(&["get", "cm", "applied", "-o", "jsonpath={.data.k}"])
            .await,
        "two"
    );

    k.run(&[
        "patch",
        "cm",
        "applied",
        "--type",
        "json",
        "-p",
        r#"[{"op":"add","path":"/data/j","value":"json"}]"#,
    ])
    .await;
    k.run(&[
        "patch",
        "cm",
        "applied",
        "--type",
        "merge",
        "-p",
        r#"{"data":{"m":"merge"}}"#,
    ])
    .await;
    assert_eq!(
        k.run(&["get", "cm", "applied", "-o", "jsonpath={.data.j}/{.data.m}"])
            .await,
        "json/merge"
    );
    let (ok, err) = k
        .attempt(&[
            "patch",
            "cm",
            "applied",
            "--type",
            "json",
            "-p",
            r#"[{"op":"test","path":"/data/k","value":"nope"}]"#,
        ])
        .await;
    assert!(!ok && err.contains("test failed"), "{err}");

    let deploy = k.write("deploy.yaml", DEPLOYMENT);
    k.run(&["create", "-f", path_str(&deploy)]).await;
    k.run(&[
        "patch",
        "deployment",
        "web",
        "--type",
        "strategic",
        "-p",
        r#"{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:2"}]}}}}"#,
    ])
    .await;
    let images = k
        .run(&[
            "get",
            "deployment",
            "web",
            "-o",
            "jsonpath={.spec.template.spec.containers[*].image}",
        ])
        .await;
    assert_eq!(images, "app:2 side:1", "containers merge by name");

    let dry = k.write("dry.yaml", &APPLIED.replace("name: applied", "name: dry"));
    let out = k
        .run(&["create", "--dry-run=server", "-f", path_str(&dry)])
        .await;
    assert!(
        out.contains("configmap/dry created (server dry run)"),
        "{out}"
    );
    let (found, _) = k.attempt(&["get", "cm", "dry"]).await;
    assert!(!found, "a server-side dry run creates nothing");

    let lease = k.write("lease.yaml", "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: leader\n  namespace: default\nspec:\n  holderIdentity: one\n  leaseDurationSeconds: 15\n");
    k.run(&["create", "-f", path_str(&lease)]).await;
    let leases = k.run(&["get", "lease", "-A", "-o", "name"]).await;
    assert_eq!(leases.trim(), "lease.coordination.k8s.io/leader");
}

/// A ConfigMap manifest labelled `team: {team}`.
fn labelled(name: &str, team: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: default\n  labels:\n    team: {team}\n"
    )
}

#[tokio::test]
async fn kubectl_scale_and_delete_by_label() {
    let Some((_sim, k)) = tls_sim_with_kubectl("scale").await else {
        return;
    };
    let deploy = k.write("deploy.yaml", DEPLOYMENT);
    k.run(&["create", "-f", path_str(&deploy)]).await;
    // `kubectl scale` finds deployments/scale in discovery and patches it.
    let out = k.run(&["scale", "deployment", "web", "--replicas=3"]).await;
    assert!(out.contains("deployment.apps/web scaled"), "{out}");
    assert_eq!(
        k.run(&[
            "get",
            "deployment",
            "web",
            "-o",
            "jsonpath={.spec.replicas}/{.metadata.generation}"
        ])
        .await,
        "3/2"
    );
    // With --current-replicas it reads the Scale and replaces it under its resourceVersion.
    k.run(&[
        "scale",
        "deployment",
        "web",
        "--current-replicas=3",
        "--replicas=1",
    ])
    .await;
    let (ok, err) = k
        .attempt(&[
            "scale",
            "deployment",
            "web",
            "--current-replicas=3",
            "--replicas=5",
        ])
        .await;
    assert!(
        !ok && err.contains("Expected replicas to be 3, was 1"),
        "{err}"
    );
    let scale = k
        .run(&[
            "get",
            "--raw",
            "/apis/apps/v1/namespaces/default/deployments/web/scale",
        ])
        .await;
    let scale: serde_json::Value = serde_json::from_str(&scale).unwrap();
    assert_eq!(
        (
            &scale["kind"],
            &scale["spec"]["replicas"],
            &scale["status"]["selector"]
        ),
        (
            &serde_json::json!("Scale"),
            &serde_json::json!(1),
            &serde_json::json!("app=web")
        )
    );
    let (ok, err) = k
        .attempt(&["scale", "configmap", "web", "--replicas=2"])
        .await;
    assert!(!ok, "a ConfigMap has no scale: {err}");

    for (name, team) in [("a", "red"), ("b", "red"), ("c", "blue"), ("d", "blue")] {
        let file = k.write(&format!("{name}.yaml"), &labelled(name, team));
        k.run(&["create", "-f", path_str(&file)]).await;
    }
    // kubectl deletes by label as a list and one DELETE per object.
    let out = k.run(&["delete", "configmaps", "-l", "team=red"]).await;
    assert!(
        out.contains("configmap \"a\" deleted") && out.contains("configmap \"b\" deleted"),
        "{out}"
    );
    assert_eq!(
        k.run(&["get", "configmaps", "-o", "name"]).await.trim(),
        "configmap/c\nconfigmap/d"
    );
    // A DELETE of the collection itself answers the list of what it deleted.
    let deleted = k
        .run(&[
            "delete",
            "--raw",
            "/api/v1/namespaces/default/configmaps?labelSelector=team%3Dblue",
        ])
        .await;
    let deleted: serde_json::Value = serde_json::from_str(&deleted).unwrap();
    assert_eq!(deleted["kind"], "ConfigMapList");
    assert_eq!(deleted["items"].as_array().map(Vec::len), Some(2));
    assert_eq!(k.run(&["get", "configmaps", "-o", "name"]).await.trim(), "");
}
