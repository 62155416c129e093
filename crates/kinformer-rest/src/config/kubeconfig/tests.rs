use std::path::PathBuf;

use base64::Engine as _;

use super::*;
use crate::auth::{Auth, InteractiveMode};
use crate::config::Config;
use crate::test_util::temp_dir;

fn b64(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(s)
}

/// The certificate authority of the first file's `kind-dev` cluster (from a file) and of its
/// `gke` cluster (as data): two distinct PEM certificates.
fn ca(from_data: bool) -> &'static str {
    static CAS: std::sync::OnceLock<[String; 2]> = std::sync::OnceLock::new();
    let cas = CAS.get_or_init(|| {
        let pem = |name: &str| {
            rcgen::generate_simple_self_signed(vec![name.to_owned()])
                .unwrap()
                .cert
                .pem()
        };
        [pem("ca-from-file"), pem("ca-from-data")]
    });
    &cas[usize::from(from_data)]
}

/// A kubeconfig like `kind`/`gke` write: file and data fields, exec with env, several contexts.
fn first_file(dir: &std::path::Path) -> PathBuf {
    std::fs::create_dir_all(dir.join("certs")).unwrap();
    std::fs::write(dir.join("certs/ca.pem"), ca(false)).unwrap();
    std::fs::write(dir.join("certs/client.crt"), "CERT FROM FILE").unwrap();
    std::fs::write(dir.join("certs/client.key"), "KEY FROM FILE").unwrap();
    std::fs::write(dir.join("token"), "file-token").unwrap();
    let path = dir.join("config");
    std::fs::write(
        &path,
        format!(
            r#"apiVersion: v1
kind: Config
preferences: {{}}
clusters:
- name: kind-dev
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority: certs/ca.pem
- name: gke
  cluster:
    server: https://34.1.2.3
    certificate-authority-data: {ca}
    certificate-authority: /nonexistent/ignored-because-data-wins
    tls-server-name: kubernetes.default
    proxy-url: http://proxy.local:3128
users:
- name: kind-dev
  user:
    client-certificate: certs/client.crt
    client-key: certs/client.key
- name: gke-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ./bin/gke-gcloud-auth-plugin
      args: ["--flag"]
      env:
      - name: CLOUDSDK_CORE_PROJECT
        value: my-project
      installHint: Install gke-gcloud-auth-plugin
      provideClusterInfo: true
      interactiveMode: Never
- name: sa
  user:
    tokenFile: token
contexts:
- name: kind-dev
  context: {{cluster: kind-dev, user: kind-dev}}
- name: gke
  context: {{cluster: gke, user: gke-user, namespace: prod}}
- name: sa
  context: {{cluster: kind-dev, user: sa}}
current-context: kind-dev
"#,
            ca = b64(ca(true))
        ),
    )
    .unwrap();
    path
}

fn second_file(dir: &std::path::Path) -> PathBuf {
    let path = dir.join("second");
    std::fs::write(
        &path,
        r#"apiVersion: v1
kind: Config
clusters:
- name: kind-dev
  cluster: {server: "https://shadowed.example:1"}
- name: other
  cluster: {server: "http://127.0.0.1:8001"}
users:
- name: basic
  user: {username: admin, password: hunter2}
- name: both
  user: {username: admin, password: p, token: t}
- name: provider
  user:
    auth-provider: {name: oidc, config: {id-token: x}}
- name: impersonator
  user:
    token: t
    as: jane
    as-uid: "42"
    as-groups: [dev, ops]
    as-user-extra: {scopes: [read]}
contexts:
- name: other
  context: {cluster: other, user: basic}
- name: both
  context: {cluster: other, user: both}
- name: provider
  context: {cluster: other, user: provider}
- name: impersonating
  context: {cluster: other, user: impersonator}
- name: kind-dev
  context: {cluster: other, user: basic}
current-context: other
"#,
    )
    .unwrap();
    path
}

fn merged() -> (PathBuf, Kubeconfig) {
    let dir = temp_dir("kubeconfig");
    let first = first_file(&dir);
    let second = second_file(&dir.join("..").join(dir.file_name().unwrap()));
    let config = Kubeconfig::read_paths(&[first, dir.join("missing"), second.clone(), second])
        .unwrap()
        .unwrap();
    (dir, config)
}

fn load(k: &Kubeconfig, context: Option<&str>) -> crate::Result<Config> {
    let options = KubeconfigOptions {
        context: context.map(str::to_owned),
        ..KubeconfigOptions::default()
    };
    Config::from_custom_kubeconfig(k.clone(), &options)
}

#[test]
fn merge_first_file_wins_and_relative_paths_resolve() {
    let (dir, k) = merged();
    assert_eq!(k.current_context(), Some("kind-dev"));
    assert_eq!(k.context_names().count(), 7);
    let config = load(&k, None).unwrap();
    // The first file's kind-dev cluster and context win over the second's.
    assert_eq!(config.cluster_url(), "https://127.0.0.1:6443/");
    assert_eq!(config.root_ca(), Some(ca(false).as_bytes()));
    let identity = config.identity().unwrap();
    assert_eq!(identity.cert_pem(), b"CERT FROM FILE");
    assert_eq!(identity.key_pem(), b"KEY FROM FILE");
    assert!(matches!(config.auth(), Auth::None));
    let sa = load(&k, Some("sa")).unwrap();
    assert!(matches!(sa.auth(), Auth::TokenFile(p) if *p == dir.join("token")));
}

#[test]
fn data_wins_over_file_and_exec_is_complete() {
    let (dir, k) = merged();
    let gke = load(&k, Some("gke")).unwrap();
    assert_eq!(gke.root_ca(), Some(ca(true).as_bytes()));
    assert_eq!(gke.tls_server_name(), Some("kubernetes.default"));
    assert_eq!(gke.proxy_url(), Some("http://proxy.local:3128"));
    assert_eq!(gke.default_namespace(), "prod");
    let Auth::Exec(exec) = gke.auth() else {
        panic!("expected exec, got {:?}", gke.auth())
    };
    assert_eq!(exec.api_version(), "client.authentication.k8s.io/v1beta1");
    assert_eq!(
        PathBuf::from(exec.command()),
        dir.join("./bin/gke-gcloud-auth-plugin")
    );
    assert_eq!(exec.args(), ["--flag"]);
    assert_eq!(exec.env()[0].0, "CLOUDSDK_CORE_PROJECT");
    assert_eq!(exec.env()[0].1.expose(), "my-project");
    assert_eq!(exec.install_hint(), Some("Install gke-gcloud-auth-plugin"));
    assert_eq!(exec.interactive_mode(), InteractiveMode::Never);
    let info = exec.cluster_info.as_ref().unwrap();
    assert_eq!(info["server"], "https://34.1.2.3/");
    assert_eq!(info["certificate-authority-data"], b64(ca(true)));
    // The env value is a secret: never in Debug.
    assert!(!format!("{gke:?}").contains("my-project"));
}

#[test]
fn basic_auth_conflicts_and_unsupported_providers() {
    let (_, k) = merged();
    let other = load(&k, Some("other")).unwrap();
    assert!(
        matches!(other.auth(), Auth::Basic { username, password } if username == "admin" && password.expose() == "hunter2")
    );
    assert!(!format!("{other:?}").contains("hunter2"));
    assert!(
        load(&k, Some("both"))
            .unwrap_err()
            .to_string()
            .contains("may not both be set")
    );
    // An oidc provider without its issuer is refused, naming the missing setting.
    assert!(
        load(&k, Some("provider"))
            .unwrap_err()
            .to_string()
            .contains("users[].user.auth-provider oidc needs idp-issuer-url")
    );
    let err = load(&k, Some("nope")).unwrap_err();
    assert!(err.is_config() && err.to_string().contains("\"nope\" not found"));
}

#[test]
fn impersonation_fields() {
    let (_, k) = merged();
    let config = load(&k, Some("impersonating")).unwrap();
    let who = config.impersonate().unwrap();
    assert_eq!(who.user(), "jane");
    assert_eq!(who.uid(), Some("42"));
    assert_eq!(who.groups(), ["dev", "ops"]);
    assert_eq!(who.extra()["scopes"], ["read"]);
    assert!(load(&k, Some("other")).unwrap().impersonate().is_none());
}

#[test]
fn insecure_with_ca_is_rejected_and_insecure_alone_is_danger() {
    let yaml = |extra: &str| {
        format!(
            "clusters:\n- name: c\n  cluster:\n    server: https://h\n    insecure-skip-tls-verify: true\n{extra}contexts:\n- name: c\n  context: {{cluster: c}}\ncurrent-context: c\n"
        )
    };
    let k = Kubeconfig::from_yaml(&yaml(""), None).unwrap();
    assert!(load(&k, None).unwrap().danger_accept_invalid_certs());
    let k = Kubeconfig::from_yaml(
        &yaml(&format!("    certificate-authority-data: {}\n", b64("x"))),
        None,
    )
    .unwrap();
    assert!(load(&k, None).unwrap_err().to_string().contains("insecure"));
}

#[test]
fn kubectl_agrees_on_the_merged_view() {
    let Ok(out) = std::process::Command::new("kubectl")
        .arg("version")
        .arg("--client")
        .output()
    else {
        // Under CI a skipped comparison would prove nothing.
        assert!(
            std::env::var_os("CI").is_none(),
            "kubectl is not on PATH, and CI is set: the kubectl comparison must run"
        );
        eprintln!("notice: kubectl not found on PATH; skipping the kubectl comparison");
        return;
    };
    assert!(out.status.success());
    let dir = temp_dir("kubectl");
    let first = first_file(&dir);
    let second = second_file(&dir);
    let list = std::env::join_paths([&first, &second]).unwrap();
    let view = |args: &[&str]| {
        let out = std::process::Command::new("kubectl")
            .args(["config", "view", "--minify", "--flatten", "-o"])
            .args(args)
            .env("KUBECONFIG", &list)
            .env_remove("HOME")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let k = Kubeconfig::read_paths(&[first, second]).unwrap().unwrap();
    let ours = load(&k, None).unwrap();
    assert_eq!(
        view(&["jsonpath={.clusters[0].cluster.server}"]),
        ours.cluster_url().to_string().trim_end_matches('/')
    );
    assert_eq!(view(&["jsonpath={.current-context}"]), "kind-dev");
    // kubectl resolved the relative CA path against the file's folder, as we did.
    let ca = view(&["jsonpath={.clusters[0].cluster.certificate-authority-data}"]);
    assert_eq!(
        ca,
        b64(std::str::from_utf8(ours.root_ca().unwrap()).unwrap())
    );
}

mod bad_input;
