use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::*;
use crate::auth::{ExecConfig, Secret};
use crate::body::boxed;
use crate::error::BoxError;
use crate::test_util::temp_dir;

/// A server that accepts only `Authorization: <accept>` (when set) and records what it saw.
#[derive(Clone, Default)]
struct Server {
    seen: Arc<Mutex<Vec<String>>>,
    accept: Arc<Mutex<Option<String>>>,
}

impl Server {
    fn service(&self) -> impl StackService {
        let this = self.clone();
        tower::service_fn(move |req: http::Request<Body>| {
            let auth = req
                .headers()
                .get(AUTHORIZATION)
                .map(|v| v.to_str().unwrap().to_owned())
                .unwrap_or_default();
            this.seen.lock().unwrap().push(auth.clone());
            let ok = this
                .accept
                .lock()
                .unwrap()
                .as_ref()
                .is_none_or(|a| *a == auth);
            async move {
                let mut resp = http::Response::new(boxed(Body::empty()));
                if !ok {
                    *resp.status_mut() = http::StatusCode::UNAUTHORIZED;
                }
                Ok::<_, BoxError>(resp)
            }
        })
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

async fn send(layer: &AuthLayer, server: &Server) -> Result<http::StatusCode, BoxError> {
    let svc = tower::Layer::layer(layer, server.service());
    let req = http::Request::get("/api/v1/pods")
        .body(Body::empty())
        .unwrap();
    svc.oneshot(req).await.map(|r| r.status())
}

#[tokio::test]
async fn static_credentials_and_existing_header() {
    let server = Server::default();
    let layer = AuthLayer::new(&Auth::Bearer(Secret::new("abc"))).unwrap();
    send(&layer, &server).await.unwrap();
    let basic = AuthLayer::new(&Auth::Basic {
        username: "u".into(),
        password: Secret::new("p"),
    })
    .unwrap();
    send(&basic, &server).await.unwrap();
    assert_eq!(server.seen(), ["Bearer abc", "Basic dTpw"]);
    let svc = tower::Layer::layer(&layer, server.service());
    let req = http::Request::get("/")
        .header(AUTHORIZATION, "Bearer mine")
        .body(Body::empty())
        .unwrap();
    svc.oneshot(req).await.unwrap();
    assert_eq!(server.seen()[2], "Bearer mine");
    assert!(!format!("{layer:?}").contains("abc"));
}

#[tokio::test(start_paused = true)]
async fn token_file_rotation_and_401_reread() {
    let dir = temp_dir("token");
    let path = dir.join("token");
    std::fs::write(&path, "one\n").unwrap();
    let server = Server::default();
    let layer = AuthLayer::new(&Auth::TokenFile(path.clone())).unwrap();
    send(&layer, &server).await.unwrap();
    std::fs::write(&path, "two").unwrap();
    send(&layer, &server).await.unwrap();
    tokio::time::advance(Duration::from_secs(51)).await;
    send(&layer, &server).await.unwrap();
    assert_eq!(server.seen(), ["Bearer one", "Bearer one", "Bearer two"]);

    // Rotated again; the server already wants the new token: one 401, then a re-read and resend.
    std::fs::write(&path, "three").unwrap();
    *server.accept.lock().unwrap() = Some("Bearer three".into());
    assert_eq!(send(&layer, &server).await.unwrap(), 200);
    assert_eq!(server.seen()[3..], ["Bearer two", "Bearer three"]);

    // An unreadable file keeps the last good token.
    std::fs::remove_file(&path).unwrap();
    tokio::time::advance(Duration::from_secs(51)).await;
    assert_eq!(send(&layer, &server).await.unwrap(), 200);
    // A missing or empty token file fails at construction.
    let err = AuthLayer::new(&Auth::TokenFile(dir.join("nope"))).unwrap_err();
    assert!(err.is_auth() && err.to_string().contains("nope"), "{err:?}");
    std::fs::write(dir.join("empty"), " \n").unwrap();
    assert!(
        AuthLayer::new(&Auth::TokenFile(dir.join("empty")))
            .unwrap_err()
            .is_auth()
    );
}

/// Writes a plugin printing `token-<n>` (n counts runs) with the given expiry.
fn plugin(dir: &Path, api_version: &str, expiry: Option<&str>) -> ExecConfig {
    let script = dir.join("plugin.sh");
    let expiry = expiry
        .map(|e| format!(r#","expirationTimestamp":"{e}""#))
        .unwrap_or_default();
    std::fs::write(
        &script,
        format!(
            r#"#!/bin/sh
n=$(cat "$COUNTER" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$COUNTER"
case "$KUBERNETES_EXEC_INFO" in *'"kind":"ExecCredential"'*) ;; *) exit 3;; esac
echo '{{"apiVersion":"{api_version}","kind":"ExecCredential","status":{{"token":"'"$PREFIX"'-'$n'"{expiry}}}}}'
"#
        ),
    )
    .unwrap();
    ExecConfig::new(api_version, "/bin/sh")
        .unwrap()
        .with_args([script.display().to_string()])
        .with_env([
            (
                "COUNTER",
                Secret::new(dir.join("count").display().to_string()),
            ),
            ("PREFIX", Secret::new("token")),
        ])
        .with_interactive_mode(crate::auth::InteractiveMode::Never)
}

#[tokio::test]
async fn exec_plugin_caches_until_expiry_and_reruns_on_401() {
    let dir = temp_dir("exec");
    let server = Server::default();
    let config = plugin(
        &dir,
        "client.authentication.k8s.io/v1",
        Some("2999-01-01T00:00:00Z"),
    );
    let layer = AuthLayer::new(&Auth::Exec(Box::new(config))).unwrap();
    send(&layer, &server).await.unwrap();
    send(&layer, &server).await.unwrap();
    assert_eq!(server.seen(), ["Bearer token-1", "Bearer token-1"]);
    *server.accept.lock().unwrap() = Some("Bearer token-2".into());
    assert_eq!(send(&layer, &server).await.unwrap(), 200);
    assert_eq!(server.seen()[2..], ["Bearer token-1", "Bearer token-2"]);

    let dir = temp_dir("exec-expired");
    let server = Server::default();
    let config = plugin(
        &dir,
        "client.authentication.k8s.io/v1beta1",
        Some("2000-01-01T00:00:00Z"),
    );
    let layer = AuthLayer::new(&Auth::Exec(Box::new(config))).unwrap();
    send(&layer, &server).await.unwrap();
    send(&layer, &server).await.unwrap();
    assert_eq!(server.seen(), ["Bearer token-1", "Bearer token-2"]);
}

#[tokio::test]
async fn exec_plugin_errors_are_typed_and_secret_free() {
    let dir = temp_dir("exec-bad");
    let server = Server::default();
    // The plugin answers v1; the client asks for v1beta1.
    let answers_v1 = plugin(&dir, "client.authentication.k8s.io/v1", None);
    let config = ExecConfig::new("client.authentication.k8s.io/v1beta1", answers_v1.command())
        .unwrap()
        .with_args(answers_v1.args().iter().cloned())
        .with_env(answers_v1.env().iter().cloned())
        .with_interactive_mode(answers_v1.interactive_mode());
    let layer = AuthLayer::new(&Auth::Exec(Box::new(config))).unwrap();
    let err = crate::client::error_from_service(send(&layer, &server).await.unwrap_err());
    assert!(err.is_auth());
    assert!(err.to_string().contains("expected"), "{err}");
    assert!(!format!("{err} {err:?}").contains("token-1"));

    let missing = ExecConfig::new("client.authentication.k8s.io/v1", "/nonexistent/kubelogin")
        .unwrap()
        .with_install_hint("install kubelogin");
    let layer = AuthLayer::new(&Auth::Exec(Box::new(missing))).unwrap();
    let err = crate::client::error_from_service(send(&layer, &server).await.unwrap_err());
    assert!(err.to_string().contains("install kubelogin"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_run_the_plugin_once() {
    let dir = temp_dir("exec-concurrent");
    let server = Server::default();
    let config = plugin(
        &dir,
        "client.authentication.k8s.io/v1",
        Some("2999-01-01T00:00:00Z"),
    );
    let layer = AuthLayer::new(&Auth::Exec(Box::new(config))).unwrap();
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let (layer, server) = (layer.clone(), server.clone());
            tokio::spawn(async move { send(&layer, &server).await.unwrap() })
        })
        .collect();
    for t in tasks {
        assert_eq!(t.await.unwrap(), 200);
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("count")).unwrap().trim(),
        "1"
    );
    assert!(server.seen().iter().all(|s| s == "Bearer token-1"));
}
