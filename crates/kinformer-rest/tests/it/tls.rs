//! TLS verification: on by default, off only through kubeconfig `insecure-skip-tls-verify` or
//! the `danger_` API; each certificate failure is a typed, readable error.

use std::sync::Arc;

use kinformer_rest::{Config, Kubeconfig, KubeconfigOptions};

use crate::server::{Options, Pki, TestServer, respond, self_signed, serve};
use crate::transport::get_cm;

const CM: &str =
    r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns"}}"#;

async fn tls_server(cert: (String, String)) -> TestServer {
    let options = Options {
        tls: Some(cert),
        ..Options::default()
    };
    serve(options, Arc::new(|_req| respond(200, CM))).await
}

/// The error and every cause, as a person reading a log would see them.
pub(crate) fn chain(err: &kinformer_rest::Error) -> String {
    let mut text = err.to_string();
    let mut cause = std::error::Error::source(err);
    while let Some(e) = cause {
        text.push_str(" <- ");
        text.push_str(&e.to_string());
        cause = e.source();
    }
    text
}

fn trusting(server: &TestServer, ca_pem: &str) -> Config {
    let mut config = Config::new(server.url("https"));
    config = config.with_root_ca(ca_pem.as_bytes().to_vec()).unwrap();
    config
}

/// Asserts a TLS failure whose readable chain names `what`.
async fn assert_tls_failure(config: &Config, what: &str) {
    let err = get_cm(config).await.unwrap_err();
    let text = chain(&err);
    assert!(err.is_tls() && err.is_transport(), "{text}");
    assert!(text.contains("TLS handshake with 127.0.0.1:"), "{text}");
    assert!(text.contains(what), "expected {what:?} in: {text}");
}

#[tokio::test]
async fn the_right_authority_is_accepted() {
    let pki = Pki::new("cluster-ca");
    let server = tls_server(pki.leaf(&["127.0.0.1"])).await;
    let config = trusting(&server, &pki.ca_pem);
    assert!(
        !config.danger_accept_invalid_certs(),
        "verification is on by default"
    );
    get_cm(&config).await.unwrap();
}

#[tokio::test]
async fn an_unknown_authority_is_rejected() {
    let server = tls_server(Pki::new("cluster-ca").leaf(&["127.0.0.1"])).await;
    let config = trusting(&server, &Pki::new("another-ca").ca_pem);
    assert_tls_failure(&config, "UnknownIssuer").await;
    // Without a configured CA the system roots are used: they do not know this one either.
    assert_tls_failure(&Config::new(server.url("https")), "UnknownIssuer").await;
}

#[tokio::test]
async fn an_expired_certificate_is_rejected() {
    let pki = Pki::new("cluster-ca");
    let server = tls_server(pki.expired_leaf(&["127.0.0.1"])).await;
    assert_tls_failure(&trusting(&server, &pki.ca_pem), "expired").await;
}

#[tokio::test]
async fn a_certificate_for_another_host_is_rejected() {
    let pki = Pki::new("cluster-ca");
    let server = tls_server(pki.leaf(&["api.other.test", "10.0.0.1"])).await;
    assert_tls_failure(
        &trusting(&server, &pki.ca_pem),
        "certificate not valid for name",
    )
    .await;
    // Naming the certificate's host with tls-server-name makes it valid.
    let mut named = trusting(&server, &pki.ca_pem);
    named = named.with_tls_server_name("api.other.test").unwrap();
    get_cm(&named).await.unwrap();
}

#[tokio::test]
async fn a_self_signed_server_needs_insecure_skip_tls_verify() {
    let server = tls_server(self_signed(&["localhost"])).await;
    let kubeconfig = |insecure: bool| {
        let yaml = format!(
            "clusters:\n- name: c\n  cluster:\n    server: {}\n    insecure-skip-tls-verify: {insecure}\n\
             contexts:\n- name: c\n  context: {{cluster: c, user: u}}\nusers:\n- name: u\n  user: {{}}\n\
             current-context: c\n",
            server.url("https")
        );
        let k = Kubeconfig::from_yaml(&yaml, None).unwrap();
        Config::from_custom_kubeconfig(k, &KubeconfigOptions::default()).unwrap()
    };
    let strict = kubeconfig(false);
    assert!(!strict.danger_accept_invalid_certs());
    assert_tls_failure(&strict, "invalid peer certificate").await;
    let insecure = kubeconfig(true);
    assert!(insecure.danger_accept_invalid_certs());
    get_cm(&insecure).await.unwrap();
    // The same switch in code is named for what it is.
    let danger = Config::new(server.url("https")).with_danger_accept_invalid_certs(true);
    get_cm(&danger).await.unwrap();
}
