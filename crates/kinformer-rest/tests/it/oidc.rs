//! The `oidc` auth-provider against an OIDC issuer served here (discovery document and token
//! endpoint over TLS) and a TLS sim that accepts only the id-token the issuer hands out.

mod issuer;

use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine as _;
use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_rest::{Client, Config, Kubeconfig, KubeconfigOptions, RestClient};
use kinformer_sim::{Sim, SimHandle};
use serde_json::json;

use crate::server::Pki;
use issuer::{Answer, Issuer, issuer};

/// An unsigned JWT whose payload says `exp`; the client reads it without verifying.
fn jwt(subject: &str, exp: i64) -> String {
    let b64 = |v: serde_json::Value| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string())
    };
    let header = b64(json!({"alg": "RS256", "typ": "JWT"}));
    let payload = b64(json!({"iss": "test", "sub": subject, "exp": exp}));
    format!("{header}.{payload}.c2lnbmF0dXJl")
}

fn now() -> i64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    i64::try_from(since.unwrap().as_secs()).unwrap()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("kinformer-rest-oidc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

/// A kubeconfig (JSON is YAML) with the oidc user `me`, a token user `other`, and a second
/// cluster and context that must survive a write-back.
fn kubeconfig(server: &str, server_ca: &str, issuer: &Issuer, id_token: &str) -> serde_json::Value {
    json!({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "sim", "cluster": {"server": server, "certificate-authority-data": b64(server_ca)}},
            {"name": "elsewhere", "cluster": {"server": "https://192.0.2.1:6443", "insecure-skip-tls-verify": true}}
        ],
        "users": [
            {"name": "other", "user": {"token": "other-token", "as-groups": ["a", "b"]}},
            {"name": "me", "user": {"auth-provider": {"name": "oidc", "config": {
                "idp-issuer-url": issuer.url,
                "client-id": "kubectl",
                "client-secret": "s3cret",
                "idp-certificate-authority-data": b64(&issuer.ca_pem),
                "extra-scopes": "groups,email",
                "id-token": id_token,
                "refresh-token": "refresh-1"
            }}}}
        ],
        "contexts": [
            {"name": "sim", "context": {"cluster": "sim", "user": "me", "namespace": "default"}},
            {"name": "elsewhere", "context": {"cluster": "elsewhere", "user": "other"}}
        ],
        "current-context": "sim"
    })
}

fn write(path: &Path, value: &serde_json::Value) {
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

fn client_from(paths: &[&Path]) -> RestClient {
    let paths: Vec<PathBuf> = paths.iter().map(|p| p.to_path_buf()).collect();
    let kubeconfig = Kubeconfig::read_paths(&paths).unwrap().unwrap();
    let config = Config::from_custom_kubeconfig(kubeconfig, &KubeconfigOptions::default()).unwrap();
    RestClient::new(Client::from_config(&config).unwrap(), "", "v1")
}

async fn get_configmaps(rc: &RestClient) -> kinformer_rest::Result<usize> {
    let list = rc
        .get()
        .namespace("default")
        .resource("configmaps")
        .list::<ConfigMap>()
        .await?;
    Ok(list.items.len())
}

/// The oidc user's `auth-provider.config` in the file at `path`.
fn provider_config(path: &Path) -> serde_json::Value {
    let doc = read(path);
    let me = doc["users"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["name"] == "me")
        .unwrap();
    me["user"]["auth-provider"]["config"].clone()
}

/// A TLS sim that accepts only `token`, the kubeconfig file for it, and the issuer.
struct Setup {
    _sim: SimHandle,
    issuer: Issuer,
    dir: PathBuf,
    file: PathBuf,
}

async fn setup(name: &str, answer: Answer, sim_token: &str, id_token: &str) -> Setup {
    let sim = Sim::builder()
        .configmaps(3)
        .tls(true)
        .token(sim_token)
        .start()
        .await
        .unwrap();
    let issuer = issuer(answer).await;
    let dir = temp_dir(name);
    let file = dir.join("config");
    let doc = kubeconfig(sim.url(), sim.ca_pem().unwrap(), &issuer, id_token);
    write(&file, &doc);
    Setup {
        _sim: sim,
        issuer,
        dir,
        file,
    }
}

fn tokens(id_token: &str, refresh_token: Option<&str>) -> Answer {
    Answer::Tokens {
        id_token: id_token.to_owned(),
        refresh_token: refresh_token.map(str::to_owned),
    }
}

/// The common case: the kubeconfig's id-token has expired, and the issuer refreshes it to a
/// fresh one (returned) that the sim accepts, with `refresh_token` as the new refresh token.
async fn expired(name: &str, refresh_token: Option<&str>) -> (String, Setup) {
    let fresh = jwt("fresh", now() + 3600);
    let s = setup(
        name,
        tokens(&fresh, refresh_token),
        &fresh,
        &jwt("old", now() - 60),
    )
    .await;
    (fresh, s)
}

/// The kubeconfig (JSON is YAML) in the file at `path`.
fn read(path: &Path) -> serde_json::Value {
    serde_yaml_ng::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Changes the oidc user's `auth-provider.config` in the file at `path`.
fn edit_provider_config(
    path: &Path,
    edit: impl FnOnce(&mut serde_json::Map<String, serde_json::Value>),
) {
    let mut doc = read(path);
    let config = doc["users"][1]["user"]["auth-provider"]["config"]
        .as_object_mut()
        .unwrap();
    edit(config);
    write(path, &doc);
}

#[tokio::test]
async fn an_expired_id_token_is_refreshed_before_the_first_request() {
    let (fresh, s) = expired("expired", Some("refresh-2")).await;
    let kubeconfig = Kubeconfig::read_from(&s.file).unwrap();
    let config = Config::from_custom_kubeconfig(kubeconfig, &KubeconfigOptions::default()).unwrap();
    let debug = format!("{config:?}");
    for secret in ["refresh-1", "s3cret", "eyJ"] {
        assert!(!debug.contains(secret), "{debug}");
    }
    let rc = RestClient::new(Client::from_config(&config).unwrap(), "", "v1");
    // Built before the refresh from the same configuration: it shares the refreshed tokens.
    let sibling = RestClient::new(Client::from_config(&config).unwrap(), "", "v1");

    assert_eq!(get_configmaps(&rc).await.unwrap(), 3);

    let requests = s.issuer.token_requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].form,
        "grant_type=refresh_token&refresh_token=refresh-1"
    );
    let basic = format!("Basic {}", b64("kubectl:s3cret"));
    assert_eq!(requests[0].authorization.as_deref(), Some(basic.as_str()));
    let written = provider_config(&s.file);
    assert_eq!(written["id-token"], fresh.as_str());
    assert_eq!(written["refresh-token"], "refresh-2");
    // The next requests use the refreshed token without asking the issuer again.
    assert_eq!(get_configmaps(&rc).await.unwrap(), 3);
    assert_eq!(get_configmaps(&sibling).await.unwrap(), 3);
    assert_eq!(s.issuer.token_requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_share_one_refresh() {
    let (_, s) = expired("concurrent", None).await;
    let rc = client_from(&[&s.file]);
    // Hold the refresh in flight while every request is started.
    s.issuer.release.send_replace(false);
    let requests: Vec<_> = (0..20)
        .map(|_| {
            let rc = rc.clone();
            tokio::spawn(async move { get_configmaps(&rc).await })
        })
        .collect();
    tokio::time::timeout(Duration::from_secs(20), async {
        while s.issuer.token_requests().is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("a refresh starts");
    s.issuer.release.send_replace(true);
    for request in requests {
        assert_eq!(request.await.unwrap().unwrap(), 3);
    }
    assert_eq!(
        s.issuer.token_requests().len(),
        1,
        "one refresh for all requests"
    );
    // Not rotated: the refresh token stays as it was.
    assert_eq!(provider_config(&s.file)["refresh-token"], "refresh-1");
}

#[tokio::test]
async fn the_write_back_replaces_only_the_users_tokens_in_the_file_it_came_from() {
    let (fresh, s) = expired("writeback", Some("refresh-2")).await;
    // A second file that comes first in the path list: it sets the current context and defines
    // another user; the oidc user's file must be the one written.
    let first = s.dir.join("first");
    let first_doc = json!({
        "apiVersion": "v1", "kind": "Config",
        "users": [{"name": "first-user", "user": {"token": "t"}}],
        "current-context": "sim"
    });
    write(&first, &first_doc);
    let first_before = std::fs::read(&first).unwrap();
    let before = read(&s.file);
    #[cfg(unix)]
    let inode_before = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&s.file).unwrap());

    let rc = client_from(&[&first, &s.file]);
    assert_eq!(get_configmaps(&rc).await.unwrap(), 3);

    assert_eq!(std::fs::read(&first).unwrap(), first_before);
    let mut after = read(&s.file);
    let me = after["users"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|u| u["name"] == "me")
        .unwrap();
    let config = &mut me["user"]["auth-provider"]["config"];
    assert_eq!(config["id-token"], fresh.as_str());
    assert_eq!(config["refresh-token"], "refresh-2");
    config["id-token"] = before["users"][1]["user"]["auth-provider"]["config"]["id-token"].clone();
    config["refresh-token"] = json!("refresh-1");
    assert_eq!(
        after, before,
        "every other user, cluster and context is kept as it was"
    );
    // Replaced by a rename: a new file, and no temporary file left beside it.
    #[cfg(unix)]
    assert_ne!(
        std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&s.file).unwrap()),
        inode_before
    );
    let mut names: Vec<String> = std::fs::read_dir(&s.dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["config", "first"]);
}

#[tokio::test]
async fn a_401_refreshes_once_and_retries_the_request() {
    let fresh = jwt("fresh", now() + 3600);
    // Unexpired, so it is sent as it is; the server no longer accepts it.
    let revoked = jwt("revoked", now() + 3600);
    let s = setup("401", tokens(&fresh, None), &fresh, &revoked).await;
    let rc = client_from(&[&s.file]);

    assert_eq!(get_configmaps(&rc).await.unwrap(), 3);
    assert_eq!(s.issuer.token_requests().len(), 1);
    assert_eq!(provider_config(&s.file)["id-token"], fresh.as_str());
}

#[tokio::test]
async fn a_refreshed_token_the_server_also_rejects_ends_in_the_401_after_one_retry() {
    let other = jwt("not-accepted-either", now() + 3600);
    let s = setup(
        "401twice",
        tokens(&other, None),
        "the-only-token",
        &jwt("revoked", now() + 3600),
    )
    .await;
    let rc = client_from(&[&s.file]);

    let err = get_configmaps(&rc).await.unwrap_err();
    assert!(err.is_unauthorized(), "{err}");
    assert_eq!(s.issuer.token_requests().len(), 1);
}

#[tokio::test]
async fn a_rejected_refresh_token_is_an_auth_error_and_nothing_is_written() {
    let fresh = jwt("fresh", now() + 3600);
    let s = setup("rejected", Answer::Reject, &fresh, &jwt("old", now() - 60)).await;
    let before = std::fs::read(&s.file).unwrap();
    let rc = client_from(&[&s.file]);

    let err = get_configmaps(&rc).await.unwrap_err();
    assert!(err.is_auth(), "{err}");
    let message = err.to_string();
    assert!(message.contains("rejected the refresh token"), "{message}");
    assert!(message.contains("invalid_grant"), "{message}");
    assert!(
        !message.contains("refresh-1"),
        "the token is not quoted: {message}"
    );
    assert_eq!(std::fs::read(&s.file).unwrap(), before);
    assert_eq!(
        std::fs::read_dir(&s.dir).unwrap().count(),
        1,
        "no temporary file"
    );
}

#[tokio::test]
async fn no_refresh_token_and_an_expired_id_token_is_an_auth_error() {
    let (_, s) = expired("norefresh", None).await;
    edit_provider_config(&s.file, |config| {
        config.remove("refresh-token");
    });
    let rc = client_from(&[&s.file]);

    let err = get_configmaps(&rc).await.unwrap_err();
    assert!(
        err.is_auth() && err.to_string().contains("no refresh-token"),
        "{err}"
    );
    assert!(s.issuer.token_requests().is_empty());
}

#[tokio::test]
async fn the_issuer_ca_may_be_a_file() {
    let (_, s) = expired("cafile", None).await;
    let ca = s.dir.join("idp-ca.pem");
    std::fs::write(&ca, &s.issuer.ca_pem).unwrap();
    edit_provider_config(&s.file, |config| {
        config.remove("idp-certificate-authority-data");
        config.insert(
            "idp-certificate-authority".into(),
            json!(ca.display().to_string()),
        );
    });
    let rc = client_from(&[&s.file]);

    assert_eq!(get_configmaps(&rc).await.unwrap(), 3);
    assert_eq!(s.issuer.token_requests().len(), 1);
}

#[tokio::test]
async fn an_untrusted_issuer_fails_the_refresh_and_writes_nothing() {
    let (_, s) = expired("untrusted", None).await;
    let other_ca = Pki::new("someone-else").ca_pem;
    edit_provider_config(&s.file, |config| {
        config.insert(
            "idp-certificate-authority-data".into(),
            json!(b64(&other_ca)),
        );
    });
    let before = std::fs::read(&s.file).unwrap();
    let rc = client_from(&[&s.file]);

    let err = get_configmaps(&rc).await.unwrap_err();
    assert!(err.is_tls() || err.is_transport(), "{err}");
    assert!(s.issuer.token_requests().is_empty());
    assert_eq!(std::fs::read(&s.file).unwrap(), before);
}
