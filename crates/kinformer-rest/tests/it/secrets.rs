//! Credentials never show: distinct secrets are planted in every kind of credential, then
//! searched for in `Debug` output, in the errors of failing requests and in every TRACE log line.

use std::fmt::Debug;
use std::path::Path;

use base64::Engine as _;
use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_core::ListOptions;
use kinformer_rest::auth::{Auth, AuthLayer, ExecConfig, Identity, InteractiveMode, Secret};
use kinformer_rest::{Client, Config, Kubeconfig, KubeconfigOptions, RestClient};
use kinformer_sim::{Fault, FaultKind, Sim};

use crate::capture::capture;
use crate::server::Pki;

const BEARER: &str = "bearer-SECRET-b7f3a1";
const TOKEN_FILE: &str = "tokenfile-SECRET-c9e2d4";
const EXEC_TOKEN: &str = "exec-SECRET-a4b8c2";
const PASSWORD: &str = "basic-SECRET-d1f6e9";
const PROXY_PASSWORD: &str = "proxy-SECRET-e3a7b5";
const EXEC_ARG: &str = "arg-SECRET-f2c8d6";

/// Every text a user or a log could see, labelled by where it came from.
#[derive(Default)]
struct Seen(Vec<(String, String)>);

impl Seen {
    fn debug(&mut self, label: &str, value: &dyn Debug) {
        self.0
            .push((label.to_owned(), format!("{value:?} {value:#?}")));
    }

    fn error(&mut self, label: &str, err: &kinformer_rest::Error) {
        let mut text = format!("{err} {err:?} {err:#?}");
        let mut cause = std::error::Error::source(err);
        while let Some(e) = cause {
            text.push_str(&format!(" <- {e} {e:?}"));
            cause = e.source();
        }
        self.0.push((label.to_owned(), text));
    }

    /// Panics naming each place a secret showed in (not the secret itself).
    fn assert_clean(&self, secrets: &[&str]) {
        let leaks: Vec<String> = self
            .0
            .iter()
            .flat_map(|(label, text)| {
                secrets
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| text.contains(*s))
                    .map(move |(i, _)| format!("secret #{i} in {label}"))
            })
            .collect();
        assert!(leaks.is_empty(), "leaks: {leaks:#?}");
    }
}

fn script(dir: &Path, name: &str, body: &str) -> ExecConfig {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    ExecConfig::new("client.authentication.k8s.io/v1", "/bin/sh")
        .unwrap()
        .with_args([path.display().to_string(), EXEC_ARG.to_owned()])
        .with_env([("PLUGIN_TOKEN", Secret::new(EXEC_TOKEN))])
        .with_interactive_mode(InteractiveMode::Never)
}

/// Plugins: one that answers with the token, one that fails after printing it to stderr, and
/// one whose answer is malformed around it.
fn plugins(dir: &Path) -> Vec<(&'static str, ExecConfig)> {
    let credential = |status: &str| {
        format!(
            r#"echo '{{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{status}}}'"#
        )
    };
    vec![
        (
            "exec token",
            script(
                dir,
                "ok.sh",
                &credential(&format!(r#"{{"token":"{EXEC_TOKEN}"}}"#)),
            ),
        ),
        (
            "exec failing",
            script(
                dir,
                "fail.sh",
                r#"echo "the token is $PLUGIN_TOKEN" >&2; exit 1"#,
            ),
        ),
        (
            "exec malformed",
            script(dir, "bad.sh", &credential(&format!(r#""{EXEC_TOKEN}""#))),
        ),
        (
            "exec wrong type",
            script(
                dir,
                "type.sh",
                &credential(&format!(r#"{{"token":["{EXEC_TOKEN}"]}}"#)),
            ),
        ),
    ]
}

async fn exercise(seen: &mut Seen, label: &str, config: &Config) {
    seen.debug(&format!("{label}: Config"), config);
    seen.debug(&format!("{label}: Auth"), config.auth());
    match AuthLayer::new(config.auth()) {
        Ok(layer) => seen.debug(&format!("{label}: AuthLayer"), &layer),
        Err(e) => seen.error(&format!("{label}: AuthLayer::new"), &e),
    }
    let client = match Client::from_config(config) {
        Ok(client) => client,
        Err(e) => return seen.error(&format!("{label}: Client::from_config"), &e),
    };
    seen.debug(&format!("{label}: Client"), &client);
    let rc = RestClient::new(client, "", "v1");
    seen.debug(&format!("{label}: RestClient"), &rc);
    let request = rc
        .get()
        .resource("configmaps")
        .header("authorization", &format!("Bearer {BEARER}"))
        .body(format!(r#"{{"token":"{EXEC_TOKEN}"}}"#));
    seen.debug(&format!("{label}: Request"), &request);
    if let Err(e) = rc.get().resource("configmaps").list::<ConfigMap>().await {
        seen.error(&format!("{label}: list"), &e);
    }
    let opts = ListOptions::default().timeout_seconds(1);
    match rc
        .get()
        .resource("configmaps")
        .versioned_params(&opts)
        .watch::<ConfigMap>()
        .await
    {
        Ok(watch) => seen.debug(&format!("{label}: WatchStream"), &watch),
        Err(e) => seen.error(&format!("{label}: watch"), &e),
    }
}

fn kubeconfig_with_every_credential(server: &str, key_pem: &str, cert_pem: &str) -> Kubeconfig {
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let yaml = format!(
        r#"clusters:
- name: c
  cluster: {{server: "{server}", proxy-url: "http://admin:{PROXY_PASSWORD}@127.0.0.1:3128"}}
users:
- name: token
  user: {{token: {BEARER}, client-certificate-data: {cert}, client-key-data: {key}}}
- name: basic
  user: {{username: admin, password: {PASSWORD}}}
- name: exec
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: /bin/true
      args: ["{EXEC_ARG}"]
      env: [{{name: PLUGIN_TOKEN, value: {EXEC_TOKEN}}}]
contexts:
- {{name: token, context: {{cluster: c, user: token}}}}
- {{name: basic, context: {{cluster: c, user: basic}}}}
- {{name: exec, context: {{cluster: c, user: exec}}}}
current-context: token
"#,
        cert = b64(cert_pem),
        key = b64(key_pem),
    );
    Kubeconfig::from_yaml(&yaml, None).unwrap()
}

#[tokio::test]
async fn no_secret_in_debug_errors_or_logs() {
    let (logs, _guard) = capture();
    let dir = std::env::temp_dir().join(format!("kinformer-rest-secrets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (cert, key) = Pki::new("client-ca").leaf(&["user"]);
    // A piece of the key's base64 body: distinct, and present in any leak of the key.
    let key_fragment = key.lines().nth(1).unwrap()[..40].to_owned();
    let secrets = [
        BEARER,
        TOKEN_FILE,
        EXEC_TOKEN,
        PASSWORD,
        PROXY_PASSWORD,
        EXEC_ARG,
        &key_fragment,
    ];
    let mut seen = Seen::default();

    let sim = Sim::builder()
        .configmaps(2)
        .tls(true)
        .token(BEARER)
        .start()
        .await
        .unwrap();
    let from_sim = Kubeconfig::from_yaml(&sim.kubeconfig(), None).unwrap();
    let base = Config::from_custom_kubeconfig(from_sim, &KubeconfigOptions::default()).unwrap();

    // The right token (with a client key) works, then meets a 403.
    let mut bearer = base.clone();
    bearer = bearer.with_auth(Auth::Bearer(Secret::new(BEARER)));
    bearer = bearer.with_identity(Identity::from_pem(cert.clone(), key.clone()));
    let rc = RestClient::new(Client::from_config(&bearer).unwrap(), "", "v1");
    let list = rc
        .get()
        .resource("configmaps")
        .list::<ConfigMap>()
        .await
        .unwrap();
    assert_eq!(list.items.len(), 2, "the planted token was really sent");
    exercise(&mut seen, "bearer ok", &bearer).await;
    let forbidden = FaultKind::status(403);
    sim.add_faults([Fault::new(forbidden)]).await;
    exercise(&mut seen, "bearer 403", &bearer).await;
    sim.clear_faults().await;

    // Every other credential is refused with a 401, or fails before a request.
    let token_file = dir.join("token");
    std::fs::write(&token_file, format!("{TOKEN_FILE}\n")).unwrap();
    let mut configs = vec![
        ("token file", Auth::TokenFile(token_file)),
        (
            "basic",
            Auth::Basic {
                username: "admin".into(),
                password: Secret::new(PASSWORD),
            },
        ),
    ];
    for (label, exec) in plugins(&dir) {
        seen.debug(&format!("{label}: ExecConfig"), &exec);
        configs.push((label, Auth::Exec(Box::new(exec))));
    }
    for (label, auth) in configs {
        let mut config = base.clone();
        config = config.with_auth(auth);
        exercise(&mut seen, label, &config).await;
    }

    // No server, and a server whose certificate is not trusted, with every credential set.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_url = format!("https://{}", closed.local_addr().unwrap());
    drop(closed);
    let mut refused = Config::new(closed_url.parse().unwrap());
    refused = refused.with_auth(Auth::Bearer(Secret::new(BEARER)));
    refused = refused.with_identity(Identity::from_pem(cert.clone(), key.clone()));
    refused = refused.with_max_retries(0);
    exercise(&mut seen, "connection refused", &refused).await;
    let mut untrusted = bearer.clone();
    untrusted = untrusted
        .with_root_ca(Pki::new("another-ca").ca_pem.into_bytes())
        .unwrap();
    exercise(&mut seen, "tls failure", &untrusted).await;
    // A key that does not match its certificate fails before any request.
    let (other_cert, _) = Pki::new("other").leaf(&["x"]);
    let mut mismatched = bearer.clone();
    mismatched = mismatched.with_identity(Identity::from_pem(other_cert, key.clone()));
    exercise(&mut seen, "mismatched key", &mismatched).await;

    // The same credentials from a kubeconfig.
    let kubeconfig = kubeconfig_with_every_credential(sim.url(), &key, &cert);
    seen.debug("Kubeconfig", &kubeconfig);
    for context in ["token", "basic", "exec"] {
        let options = KubeconfigOptions::context(context);
        match Config::from_custom_kubeconfig(kubeconfig.clone(), &options) {
            Ok(config) => seen.debug(&format!("kubeconfig {context}: Config"), &config),
            Err(e) => seen.error(&format!("kubeconfig {context}"), &e),
        }
    }

    let log = logs.text();
    assert!(
        log.contains("TRACE") || log.contains("DEBUG"),
        "nothing was captured"
    );
    seen.0.push(("TRACE logs".into(), log));
    seen.assert_clean(&secrets);
    let _ = std::fs::remove_dir_all(&dir);
}
