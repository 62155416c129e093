//! kubectl on the sim's built-in resources as on a cluster: `api-resources` lists kube-apiserver
//! 1.36's 67, a manifest of the kinds an operator creates applies with default validation,
//! `auth can-i` is answered, and `get componentstatuses` prints. Skipped, with a notice, only
//! when kubectl is not installed and `CI` is not set.

use crate::kubectl::{Kubectl, path_str};
use kinformer_sim::Sim;

const MANIFEST: &str = "apiVersion: v1
kind: ServiceAccount
metadata: {name: operator, namespace: default}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: operator, namespace: default}
rules:
- apiGroups: [apps]
  resources: [deployments]
  verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: operator, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: operator}
subjects:
- {kind: ServiceAccount, name: operator, namespace: default}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: operator, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: operator}}
  template:
    metadata: {labels: {app: operator}}
    spec:
      serviceAccountName: operator
      containers:
      - {name: operator, image: example.com/operator:1, ports: [{containerPort: 8080}]}
---
apiVersion: v1
kind: Service
metadata: {name: operator, namespace: default}
spec:
  selector: {app: operator}
  ports:
  - {port: 80, targetPort: 8080}
";

#[tokio::test]
async fn kubectl_sees_every_built_in_resource_and_applies_an_operator() {
    let sim = Sim::builder().start().await.unwrap();
    let Some(k) = Kubectl::new(&sim, "builtins") else {
        return;
    };
    let resources = k.run(&["api-resources", "--no-headers"]).await;
    assert_eq!(resources.lines().count(), 67, "{resources}");
    for name in [
        "serviceaccounts",
        "services",
        "jobs",
        "roles",
        "customresourcedefinitions",
    ] {
        assert!(resources.lines().any(|l| l.starts_with(name)), "{name}");
    }
    let manifest = k.write("operator.yaml", MANIFEST);
    let applied = k.run(&["apply", "-f", path_str(&manifest)]).await;
    assert_eq!(
        applied.lines().collect::<Vec<_>>(),
        [
            "serviceaccount/operator created",
            "role.rbac.authorization.k8s.io/operator created",
            "rolebinding.rbac.authorization.k8s.io/operator created",
            "deployment.apps/operator created",
            "service/operator created",
        ]
    );
    // Server-side printing: the real server's columns.
    let printed = k
        .run(&[
            "get",
            "deployments,services,serviceaccounts,roles,rolebindings",
        ])
        .await;
    let headers: Vec<String> = printed
        .lines()
        .filter(|l| l.starts_with("NAME "))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        headers,
        [
            "NAME READY UP-TO-DATE AVAILABLE AGE",
            "NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE",
            "NAME SECRETS AGE",
            "NAME CREATED AT",
            "NAME ROLE AGE",
        ]
    );
    let explained = k
        .run(&["explain", "pods.spec.containers.livenessProbe"])
        .await;
    for field in ["httpGet\t<HTTPGetAction>", "initialDelaySeconds\t<integer>"] {
        assert!(explained.contains(field), "{field}: {explained}");
    }
    let again = k.run(&["apply", "-f", path_str(&manifest)]).await;
    assert!(again.lines().all(|l| l.ends_with("unchanged")), "{again}");
    assert_eq!(
        k.run(&["auth", "can-i", "create", "pods"]).await.trim(),
        "yes"
    );
    // A service account's token, through its TokenRequest subresource.
    let token = k.run(&["create", "token", "operator"]).await;
    assert_eq!(token.trim().split('.').count(), 3, "{token}");
    let statuses = k.run(&["get", "componentstatuses", "-o", "name"]).await;
    assert_eq!(statuses.lines().count(), 3, "{statuses}");
}
