//! Kubeconfig `clusters[].cluster` and `users[].user` fields, each read from a file and seen on
//! the wire (or in what an exec plugin receives); fields client-go no longer supports are refused
//! with an error naming them. docs/kubeconfig.md lists every field and the test that shows it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use kinformer_rest::{Config, Kubeconfig, KubeconfigOptions};
use serde_json::json;

use crate::server::{Options, Pki, TestServer, respond, serve};
use crate::transport::get_cm;

const CM: &str =
    r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns"}}"#;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "kinformer-rest-fields-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `doc` (JSON is YAML) to `dir/config` and loads `context` from that file.
fn load(dir: &Path, doc: &serde_json::Value, context: &str) -> kinformer_rest::Result<Config> {
    let file = dir.join("config");
    std::fs::write(&file, doc.to_string()).unwrap();
    let kubeconfig = Kubeconfig::read_from(&file)?;
    Config::from_custom_kubeconfig(kubeconfig, &KubeconfigOptions::context(context))
}

/// One context per user, all on `cluster`.
fn kubeconfig(
    clusters: serde_json::Value,
    users: &[(&str, &str, serde_json::Value)],
) -> serde_json::Value {
    let contexts: Vec<_> = users
        .iter()
        .map(|(name, cluster, _)| json!({"name": name, "context": {"cluster": cluster, "user": name}}))
        .collect();
    let users: Vec<_> = users
        .iter()
        .map(|(name, _, user)| json!({"name": name, "user": user}))
        .collect();
    json!({"apiVersion": "v1", "kind": "Config", "preferences": {}, "clusters": clusters, "users": users, "contexts": contexts})
}

fn header(server: &TestServer, name: &str) -> Vec<String> {
    let seen = server.seen();
    let last = seen.last().expect("a request arrived");
    last.headers
        .get_all(name)
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn cluster_fields_shape_the_connection() {
    let dir = temp_dir("cluster");
    let pki = Pki::new("fields-ca");
    std::fs::write(dir.join("ca.pem"), &pki.ca_pem).unwrap();
    // The certificate names only the in-cluster service name, not the address dialled.
    let options = Options {
        tls: Some(pki.leaf(&["kubernetes.default.svc"])),
        ..Options::default()
    };
    let server = serve(options, Arc::new(|_req| respond(200, CM))).await;
    let url = server.url("https").to_string();
    let ext =
        json!([{"name": "example.com/extra", "extension": {"anything": ["kept", "ignored"]}}]);
    let clusters = json!([
        {"name": "named", "cluster": {
            "server": url, "certificate-authority": "ca.pem",
            "tls-server-name": "kubernetes.default.svc", "disable-compression": true, "extensions": ext}},
        {"name": "unnamed", "cluster": {"server": url, "certificate-authority": "ca.pem"}},
    ]);
    let doc = kubeconfig(
        clusters,
        &[
            ("named", "named", json!({"extensions": ext})),
            ("unnamed", "unnamed", json!({})),
        ],
    );

    let named = load(&dir, &doc, "named").unwrap();
    get_cm(&named).await.unwrap();
    assert!(
        header(&server, "accept-encoding").is_empty(),
        "disable-compression"
    );

    let unnamed = load(&dir, &doc, "unnamed").unwrap();
    let err = get_cm(&unnamed).await.unwrap_err();
    assert!(
        err.is_tls(),
        "without tls-server-name the address is checked: {err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn compression_is_asked_for_unless_disabled() {
    let dir = temp_dir("gzip");
    let server = serve(Options::default(), Arc::new(|_req| respond(200, CM))).await;
    let clusters = json!([{"name": "c", "cluster": {"server": server.url("http").to_string()}}]);
    let doc = kubeconfig(clusters, &[("u", "c", json!({}))]);
    get_cm(&load(&dir, &doc, "u").unwrap()).await.unwrap();
    assert_eq!(header(&server, "accept-encoding"), ["gzip"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn user_fields_reach_the_wire() {
    let dir = temp_dir("user");
    std::fs::write(dir.join("token"), "token-from-file\n").unwrap();
    let server = serve(Options::default(), Arc::new(|_req| respond(200, CM))).await;
    let clusters = json!([{"name": "c", "cluster": {"server": server.url("http").to_string()}}]);
    let doc = kubeconfig(
        clusters,
        &[
            (
                "token",
                "c",
                json!({
                "token": "static-token", "as": "jane", "as-uid": "42",
                "as-groups": ["dev", "ops"], "as-user-extra": {"scopes": ["read", "write"]}}),
            ),
            ("token-file", "c", json!({"tokenFile": "token"})),
            (
                "basic",
                "c",
                json!({"username": "admin", "password": "hunter2"}),
            ),
        ],
    );

    get_cm(&load(&dir, &doc, "token").unwrap()).await.unwrap();
    assert_eq!(header(&server, "authorization"), ["Bearer static-token"]);
    assert_eq!(header(&server, "impersonate-user"), ["jane"]);
    assert_eq!(header(&server, "impersonate-uid"), ["42"]);
    assert_eq!(header(&server, "impersonate-group"), ["dev", "ops"]);
    assert_eq!(
        header(&server, "impersonate-extra-scopes"),
        ["read", "write"]
    );

    get_cm(&load(&dir, &doc, "token-file").unwrap())
        .await
        .unwrap();
    assert_eq!(header(&server, "authorization"), ["Bearer token-from-file"]);

    get_cm(&load(&dir, &doc, "basic").unwrap()).await.unwrap();
    let basic = base64::engine::general_purpose::STANDARD.encode("admin:hunter2");
    assert_eq!(header(&server, "authorization"), [format!("Basic {basic}")]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn exec_plugins_get_the_cluster_and_its_exec_extension() {
    let dir = temp_dir("exec-info");
    let server = serve(Options::default(), Arc::new(|_req| respond(200, CM))).await;
    let script = dir.join("plugin.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nprintf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$OUT\"\n\
         echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"exec-token\"}}'\n",
    )
    .unwrap();
    let clusters = json!([{"name": "c", "cluster": {
    "server": server.url("http").to_string(), "disable-compression": true,
    "extensions": [
        {"name": "client.authentication.k8s.io/exec", "extension": {"audience": "kinformer"}},
        {"name": "example.com/other", "extension": {"not": "sent"}}
    ]}}]);
    let exec = |command: &str| {
        json!({"exec": {
            "apiVersion": "client.authentication.k8s.io/v1", "command": command,
            "args": [script.display().to_string()],
            "env": [{"name": "OUT", "value": dir.join("info.json").display().to_string()}],
            "installHint": "get it from https://example.com/plugin",
            "provideClusterInfo": true, "interactiveMode": "Never"}})
    };
    let with = |key: &str, value: serde_json::Value| {
        let mut user = exec("/bin/sh");
        user["exec"][key] = value;
        user
    };
    let doc = kubeconfig(
        clusters,
        &[
            ("exec", "c", exec("/bin/sh")),
            ("missing", "c", exec("no-such-plugin-kinformer")),
            (
                "v1alpha1",
                "c",
                with("apiVersion", json!("client.authentication.k8s.io/v1alpha1")),
            ),
            (
                "no-version",
                "c",
                with("apiVersion", serde_json::Value::Null),
            ),
            ("bad-mode", "c", with("interactiveMode", json!("Sometimes"))),
        ],
    );

    get_cm(&load(&dir, &doc, "exec").unwrap()).await.unwrap();
    assert_eq!(header(&server, "authorization"), ["Bearer exec-token"]);
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("info.json")).unwrap()).unwrap();
    let cluster = &info["spec"]["cluster"];
    assert_eq!(cluster["server"], server.url("http").to_string());
    assert_eq!(cluster["disable-compression"], true);
    assert_eq!(cluster["config"], json!({"audience": "kinformer"}));

    let err = get_cm(&load(&dir, &doc, "missing").unwrap())
        .await
        .unwrap_err();
    assert!(err.is_auth(), "{err}");
    assert!(
        err.to_string()
            .contains("get it from https://example.com/plugin"),
        "installHint: {err}"
    );

    for (context, needle) in [
        (
            "v1alpha1",
            "apiVersion \"client.authentication.k8s.io/v1alpha1\" is not supported",
        ),
        ("no-version", "without apiVersion"),
        ("bad-mode", "interactiveMode \"Sometimes\""),
    ] {
        let err = load(&dir, &doc, context).unwrap_err();
        assert!(
            err.is_config() && err.to_string().contains(needle),
            "{context}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn client_certificates_from_files_and_data() {
    let dir = temp_dir("client-cert");
    let pki = Pki::new("client-cert-ca");
    let (cert, key) = pki.leaf(&["jane"]);
    std::fs::write(dir.join("jane.crt"), &cert).unwrap();
    std::fs::write(dir.join("jane.key"), &key).unwrap();
    let options = Options {
        tls: Some(pki.leaf(&["127.0.0.1"])),
        client_ca: Some(pki.ca_pem.clone()),
        ..Options::default()
    };
    let server = serve(options, Arc::new(|_req| respond(200, CM))).await;
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let clusters = json!([{"name": "c", "cluster": {
        "server": server.url("https").to_string(), "certificate-authority-data": b64(&pki.ca_pem)}}]);
    let doc = kubeconfig(
        clusters,
        &[
            (
                "files",
                "c",
                json!({"client-certificate": "jane.crt", "client-key": "jane.key"}),
            ),
            (
                "data",
                "c",
                json!({"client-certificate-data": b64(&cert), "client-key-data": b64(&key)}),
            ),
            ("none", "c", json!({})),
            ("half", "c", json!({"client-certificate": "jane.crt"})),
        ],
    );
    get_cm(&load(&dir, &doc, "files").unwrap()).await.unwrap();
    get_cm(&load(&dir, &doc, "data").unwrap()).await.unwrap();
    assert!(
        get_cm(&load(&dir, &doc, "none").unwrap()).await.is_err(),
        "the server requires a certificate"
    );
    let err = load(&dir, &doc, "half").unwrap_err();
    assert!(
        err.to_string()
            .contains("needs both a certificate and a key"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn removed_auth_providers_are_refused_naming_the_field() {
    let dir = temp_dir("providers");
    let clusters = json!([{"name": "c", "cluster": {"server": "https://127.0.0.1:6443"}}]);
    let exec = json!({"apiVersion": "client.authentication.k8s.io/v1", "command": "kubelogin"});
    let doc = kubeconfig(
        clusters,
        &[
            (
                "gcp",
                "c",
                json!({"auth-provider": {"name": "gcp", "config": {"access-token": "x"}}}),
            ),
            (
                "azure",
                "c",
                json!({"auth-provider": {"name": "azure", "config": null}}),
            ),
            (
                "no-issuer",
                "c",
                json!({"auth-provider": {"name": "oidc", "config": {"client-id": "k"}}}),
            ),
            (
                "no-client",
                "c",
                json!({"auth-provider": {"name": "oidc", "config": {"idp-issuer-url": "https://idp"}}}),
            ),
            (
                "both",
                "c",
                json!({"exec": exec, "auth-provider": {"name": "oidc", "config": {}}}),
            ),
            (
                "oidc",
                "c",
                json!({"auth-provider": {"name": "oidc", "config": {
                "idp-issuer-url": "https://idp", "client-id": "k", "extra-scopes": "groups,email"}}}),
            ),
        ],
    );
    for (context, needle) in [
        ("gcp", "users[].user.auth-provider \"gcp\" is not supported"),
        (
            "azure",
            "users[].user.auth-provider \"azure\" is not supported",
        ),
        ("no-issuer", "needs idp-issuer-url"),
        ("no-client", "needs client-id"),
        ("both", "users[].user.auth-provider and users[].user.exec"),
    ] {
        let err = load(&dir, &doc, context).unwrap_err();
        assert!(err.is_config(), "{context}: {err}");
        assert!(err.to_string().contains(needle), "{context}: {err}");
    }
    assert!(
        load(&dir, &doc, "gcp")
            .unwrap_err()
            .to_string()
            .contains("users[].user.exec"),
        "the error points to exec plugins"
    );
    let oidc = load(&dir, &doc, "oidc").unwrap();
    let kinformer_rest::auth::Auth::Oidc(oidc) = oidc.auth() else {
        panic!("not oidc: {:?}", oidc.auth())
    };
    assert_eq!(oidc.issuer_url(), "https://idp");
    assert_eq!(oidc.extra_scopes(), ["groups", "email"]);
    assert_eq!(oidc.persisted_file(), Some(dir.join("config").as_path()));
    let _ = std::fs::remove_dir_all(&dir);
}
