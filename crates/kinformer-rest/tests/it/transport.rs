//! TLS, HTTP versions, gzip, auth and multiplexed watches over loopback sockets.

use std::io::Write as _;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kinformer_core::{ListOptions, WatchEvent};
use kinformer_rest::auth::{Auth, Identity, Secret};
use kinformer_rest::{Client, Config, RestClient};

use crate::server::{Handler, Options, Pki, respond, serve, streaming};

const CM: &str = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns"},"data":{"k":"v"}}"#;

fn configmap_handler() -> Handler {
    Arc::new(|_req| respond(200, CM))
}

/// GET configmap `ns/cm` through a client built from `config`.
pub(crate) async fn get_cm(config: &Config) -> kinformer_rest::Result<ConfigMap> {
    let client = Client::from_config(config)?;
    RestClient::new(client, "", "v1")
        .get()
        .namespace("ns")
        .resource("configmaps")
        .name("cm")
        .into()
        .await
}

fn tls_config(url: http::Uri, ca: &str) -> Config {
    Config::new(url).with_root_ca(ca).unwrap()
}

#[tokio::test]
async fn tls_with_pinned_ca_negotiates_http2() {
    let pki = Pki::new("test-ca");
    let options = Options {
        tls: Some(pki.leaf(&["127.0.0.1", "api.test"])),
        ..Options::default()
    };
    let server = serve(options, configmap_handler()).await;
    let cm = get_cm(&tls_config(server.url("https"), &pki.ca_pem))
        .await
        .unwrap();
    assert_eq!(cm.data.unwrap()["k"], "v");
    let seen = server.seen();
    assert_eq!(seen[0].version, http::Version::HTTP_2);
    assert_eq!(
        seen[0]
            .uri
            .rsplit_once(':')
            .map(|(_, p)| p.split_once('/').unwrap().1),
        Some("api/v1/namespaces/ns/configmaps/cm")
    );
    assert!(
        seen[0].headers["user-agent"]
            .to_str()
            .unwrap()
            .starts_with("kinformer/")
    );

    // tls-server-name picks the name to verify.
    let mut named = tls_config(server.url("https"), &pki.ca_pem);
    named = named.with_tls_server_name("api.test").unwrap();
    get_cm(&named).await.unwrap();
}

#[tokio::test]
async fn tls_rejects_wrong_ca_and_wrong_name() {
    let pki = Pki::new("test-ca");
    let options = Options {
        tls: Some(pki.leaf(&["127.0.0.1"])),
        ..Options::default()
    };
    let server = serve(options, configmap_handler()).await;
    let other = Pki::new("other-ca");
    let err = get_cm(&tls_config(server.url("https"), &other.ca_pem))
        .await
        .unwrap_err();
    assert!(err.is_transport(), "{err:?}");
    let mut wrong_name = tls_config(server.url("https"), &pki.ca_pem);
    wrong_name = wrong_name
        .with_tls_server_name("not-the-server.test")
        .unwrap();
    let err = get_cm(&wrong_name).await.unwrap_err();
    assert!(err.is_transport(), "{err:?}");
    // The danger switch accepts it (and is named so).
    let insecure = Config::new(server.url("https")).with_danger_accept_invalid_certs(true);
    get_cm(&insecure).await.unwrap();
    // Bad CA material is a config error before any connection.
    let err = Config::new(server.url("https"))
        .with_root_ca("not pem")
        .unwrap_err();
    assert!(err.is_config(), "{err:?}");
}

#[tokio::test]
async fn client_certificates() {
    let pki = Pki::new("test-ca");
    let clients = Pki::new("client-ca");
    let options = Options {
        tls: Some(pki.leaf(&["127.0.0.1"])),
        client_ca: Some(clients.ca_pem.clone()),
        ..Options::default()
    };
    let server = serve(options, configmap_handler()).await;
    let mut config = tls_config(server.url("https"), &pki.ca_pem);
    let (cert, key) = clients.leaf(&["system:node:test"]);
    config = config.with_identity(Identity::from_pem(cert, key.clone()));
    assert!(!format!("{config:?}").contains(&key[30..60]));
    get_cm(&config).await.unwrap();

    let without = tls_config(server.url("https"), &pki.ca_pem);
    assert!(get_cm(&without).await.unwrap_err().is_transport());
    let (stranger, stranger_key) = Pki::new("stranger").leaf(&["x"]);
    let mut wrong = tls_config(server.url("https"), &pki.ca_pem);
    wrong = wrong.with_identity(Identity::from_pem(stranger, stranger_key));
    assert!(get_cm(&wrong).await.unwrap_err().is_transport());
}

#[tokio::test]
async fn http1_over_tls_plain_http_and_h2c() {
    let pki = Pki::new("test-ca");
    let options = Options {
        tls: Some(pki.leaf(&["127.0.0.1"])),
        http1_only: true,
        ..Options::default()
    };
    let server = serve(options, configmap_handler()).await;
    get_cm(&tls_config(server.url("https"), &pki.ca_pem))
        .await
        .unwrap();
    assert_eq!(server.seen()[0].version, http::Version::HTTP_11);

    let plain = serve(Options::default(), configmap_handler()).await;
    get_cm(&Config::new(plain.url("http"))).await.unwrap();
    let mut h2c = Config::new(plain.url("http"));
    h2c = h2c.with_http2_prior_knowledge(true);
    get_cm(&h2c).await.unwrap();
    let versions: Vec<_> = plain.seen().iter().map(|s| s.version).collect();
    assert_eq!(versions, [http::Version::HTTP_11, http::Version::HTTP_2]);
}

#[tokio::test]
async fn connection_refused_is_transport() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let err = get_cm(&Config::new(format!("http://{addr}").parse().unwrap()))
        .await
        .unwrap_err();
    assert!(err.is_transport() && !err.is_tls(), "{err:?}");
}

#[tokio::test]
async fn gzip_responses_are_decoded() {
    let handler: Handler = Arc::new(|req| {
        let wants = req
            .headers()
            .get("accept-encoding")
            .is_some_and(|v| v == "gzip");
        if !wants {
            return respond(200, CM);
        }
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(CM.as_bytes()).unwrap();
        let mut resp = respond(200, e.finish().unwrap());
        resp.headers_mut()
            .insert("content-encoding", "gzip".parse().unwrap());
        resp
    });
    let server = serve(Options::default(), handler).await;
    let cm = get_cm(&Config::new(server.url("http"))).await.unwrap();
    assert_eq!(cm.metadata.name.as_deref(), Some("cm"));
    let mut off = Config::new(server.url("http"));
    off = off.with_compression(false);
    get_cm(&off).await.unwrap();
    let seen = server.seen();
    assert_eq!(seen[0].headers["accept-encoding"], "gzip");
    assert!(seen[1].headers.get("accept-encoding").is_none());
}

#[tokio::test]
async fn bearer_token_and_401() {
    let handler: Handler = Arc::new(|req| match req.headers().get("authorization") {
        Some(v) if v == "Bearer good" => respond(200, CM),
        _ => respond(
            401,
            r#"{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Unauthorized","code":401,"message":"Unauthorized"}"#,
        ),
    });
    let server = serve(Options::default(), handler).await;
    let mut config = Config::new(server.url("http"));
    config = config.with_auth(Auth::Bearer(Secret::new("good")));
    get_cm(&config).await.unwrap();
    config = config.with_auth(Auth::Bearer(Secret::new("bad")));
    let err = get_cm(&config).await.unwrap_err();
    assert!(err.is_unauthorized());
    assert!(!format!("{err} {err:?}").contains("bad"));
}

#[tokio::test]
async fn many_watches_share_one_http2_connection() {
    let pki = Pki::new("test-ca");
    let senders = Arc::new(std::sync::Mutex::new(Vec::new()));
    let s2 = senders.clone();
    let handler: Handler = Arc::new(move |_req| {
        let (tx, resp) = streaming();
        s2.lock().unwrap().push(tx);
        resp
    });
    let options = Options {
        tls: Some(pki.leaf(&["127.0.0.1"])),
        ..Options::default()
    };
    let server = serve(options, handler).await;
    let client = Client::from_config(&tls_config(server.url("https"), &pki.ca_pem)).unwrap();
    let pods = RestClient::new(client, "", "v1");
    const WATCHES: usize = 40;
    let mut streams = Vec::new();
    for i in 0..WATCHES {
        let opts = ListOptions::default()
            .resource_version(i.to_string())
            .bookmarks(true);
        streams.push(
            pods.get()
                .resource("pods")
                .versioned_params(&opts)
                .watch::<Pod>()
                .await
                .unwrap(),
        );
    }
    assert_eq!(server.connections(), 1, "all watches should be multiplexed");
    for (i, tx) in senders.lock().unwrap().iter().enumerate() {
        let event =
            format!("{{\"type\":\"ADDED\",\"object\":{{\"metadata\":{{\"name\":\"p{i}\"}}}}}}\n");
        tx.send(Bytes::from(event)).unwrap();
    }
    for (i, stream) in streams.iter_mut().enumerate() {
        let event = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        let WatchEvent::Added(pod) = event else {
            panic!("unexpected {event:?}")
        };
        assert_eq!(pod.metadata.name.as_deref(), Some(format!("p{i}").as_str()));
    }
    // Closing the server side ends each watch cleanly.
    senders.lock().unwrap().clear();
    for stream in &mut streams {
        assert!(
            tokio::time::timeout(Duration::from_secs(10), stream.next())
                .await
                .unwrap()
                .is_none()
        );
    }
}

#[tokio::test]
async fn exec_plugin_client_certificate() {
    let pki = Pki::new("test-ca");
    let clients = Pki::new("client-ca");
    let options = Options {
        tls: Some(pki.leaf(&["127.0.0.1"])),
        client_ca: Some(clients.ca_pem.clone()),
        ..Options::default()
    };
    let server = serve(options, configmap_handler()).await;
    let (cert, key) = clients.leaf(&["exec-user"]);
    let dir = std::env::temp_dir().join(format!("kinformer-rest-it-exec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let credential = serde_json::json!({
        "apiVersion": "client.authentication.k8s.io/v1",
        "kind": "ExecCredential",
        "status": {"clientCertificateData": cert, "clientKeyData": key},
    });
    std::fs::write(dir.join("cred.json"), credential.to_string()).unwrap();
    let exec = kinformer_rest::auth::ExecConfig::new("client.authentication.k8s.io/v1", "/bin/cat")
        .unwrap()
        .with_args([dir.join("cred.json").display().to_string()])
        .with_interactive_mode(kinformer_rest::auth::InteractiveMode::Never);
    let mut config = tls_config(server.url("https"), &pki.ca_pem);
    config = config.with_auth(Auth::Exec(Box::new(exec)));
    get_cm(&config).await.unwrap();
    assert!(server.seen()[0].headers.get("authorization").is_none());
}

/// Copies `from` to `to` until `frozen` is set; then swallows everything and never closes.
async fn pipe(
    mut from: impl tokio::io::AsyncRead + Unpin,
    mut to: impl tokio::io::AsyncWrite + Unpin,
    frozen: Arc<std::sync::atomic::AtomicBool>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buf = vec![0u8; 16 * 1024];
    while let Ok(n) = from.read(&mut buf).await {
        if n == 0 {
            return;
        }
        if frozen.load(std::sync::atomic::Ordering::SeqCst) {
            std::future::pending::<()>().await;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

/// A TCP proxy to `upstream` that can freeze: a dead network path only HTTP/2 pings notice.
async fn freezable_proxy(
    upstream: std::net::SocketAddr,
    frozen: Arc<std::sync::atomic::AtomicBool>,
) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let server = tokio::net::TcpStream::connect(upstream).await.unwrap();
            let (cr, cw) = client.into_split();
            let (sr, sw) = server.into_split();
            tokio::spawn(pipe(cr, sw, frozen.clone()));
            tokio::spawn(pipe(sr, cw, frozen.clone()));
        }
    });
    addr
}

#[tokio::test]
async fn http2_pings_detect_a_dead_connection() {
    let senders = Arc::new(std::sync::Mutex::new(Vec::new()));
    let s2 = senders.clone();
    let handler: Handler = Arc::new(move |_req| {
        let (tx, resp) = streaming();
        s2.lock().unwrap().push(tx);
        resp
    });
    let server = serve(Options::default(), handler).await;
    let frozen = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let proxy = freezable_proxy(server.addr, frozen.clone()).await;
    let mut config = Config::new(format!("http://{proxy}").parse().unwrap());
    config = config.with_http2_prior_knowledge(true);
    config = config
        .with_http2_keepalive_interval(Some(Duration::from_millis(300)))
        .unwrap();
    config = config
        .with_http2_keepalive_timeout(Duration::from_millis(300))
        .unwrap();
    let pods = RestClient::new(Client::from_config(&config).unwrap(), "", "v1");
    let mut watch = pods.get().resource("pods").watch::<Pod>().await.unwrap();
    senders.lock().unwrap()[0]
        .send(Bytes::from_static(
            b"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\n",
        ))
        .unwrap();
    assert!(matches!(watch.next().await, Some(Ok(WatchEvent::Added(_)))));
    // The path dies silently: no FIN, no RST, no data. The ping times out and the watch fails.
    frozen.store(true, std::sync::atomic::Ordering::SeqCst);
    let start = std::time::Instant::now();
    let end = tokio::time::timeout(Duration::from_secs(10), watch.next())
        .await
        .unwrap();
    let err = end.unwrap().unwrap_err();
    assert!(err.is_transport(), "{err:?}");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}
