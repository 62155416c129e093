//! Proxies as client-go reads them, against proxies on loopback: a kubeconfig `proxy-url`
//! (`http://`, `https://`, `socks5://` with and without credentials) and `HTTPS_PROXY` from an
//! injected environment; TLS to the sim and HTTP/2 through each.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::ListOptions;
use kinformer_rest::stack::ProxyEnv;
use kinformer_rest::{Client, Config, Kubeconfig, KubeconfigOptions, RestClient};
use kinformer_sim::{Sim, SimHandle};

use kinformer_sim::proxy::{HttpProxy, PROXY_ONLY_HOST, ProxyHandle, Socks5Proxy};

use crate::server::{Handler, Options, respond, serve};
use crate::tls::chain;
use crate::transport::get_cm;

async fn tls_sim() -> SimHandle {
    Sim::builder().pods(3).tls(true).start().await.unwrap()
}

/// The sim's kubeconfig with `proxy-url: proxy_url`, loaded as kubectl would.
fn kubeconfig_with_proxy(sim: &SimHandle, proxy_url: &str) -> kinformer_rest::Result<Config> {
    let server = format!("    server: {}\n", sim.url());
    let yaml = sim
        .kubeconfig()
        .replace(&server, &format!("{server}    proxy-url: {proxy_url}\n"));
    assert!(yaml.contains("proxy-url"));
    let kubeconfig = Kubeconfig::from_yaml(&yaml, None)?;
    Config::from_custom_kubeconfig(kubeconfig, &KubeconfigOptions::default())
}

/// Lists the sim's pods through `config` (TLS verified against the sim's CA), then holds four
/// watches at once: over HTTP/1.1 each would need its own connection, so one connection at the
/// sim means ALPN chose `h2` inside the tunnel.
async fn list_and_multiplex(sim: &SimHandle, config: &Config) {
    let pods = RestClient::new(Client::from_config(config).unwrap(), "", "v1");
    let list = pods.get().resource("pods").list::<Pod>().await.unwrap();
    assert_eq!(list.items.len(), 3);
    let options = ListOptions::default()
        .resource_version(&list.resource_version)
        .timeout_seconds(60);
    let mut watches = Vec::new();
    for _ in 0..4 {
        let request = pods.get().resource("pods").versioned_params(&options);
        watches.push(request.watch::<Pod>().await.unwrap());
    }
    let stats = sim.stats().await;
    assert_eq!(stats.open_watches, 4);
    assert_eq!(
        stats.connections_accepted, 1,
        "the list and four watches share one HTTP/2 connection"
    );
    drop(watches);
}

/// The whole chain of a transport error's messages.
fn transport_error(err: &kinformer_rest::Error) -> String {
    assert!(err.is_transport(), "{err:?}");
    chain(err)
}

fn sim_ca(sim: &SimHandle) -> Vec<u8> {
    sim.ca_pem().unwrap().as_bytes().to_vec()
}

#[tokio::test]
async fn http_connect_proxy_carries_tls_and_http2() {
    let sim = tls_sim().await;
    let proxy = HttpProxy::new()
        .credentials("alice", "s3cret")
        .start()
        .await
        .unwrap();
    let config =
        kubeconfig_with_proxy(&sim, &format!("http://alice:s3cret@{}", proxy.addr())).unwrap();
    list_and_multiplex(&sim, &config).await;
    let heads = proxy.requests();
    assert_eq!(heads.len(), 1, "one tunnel: {heads:?}");
    assert!(
        heads[0].starts_with(&format!("CONNECT {} HTTP/1.1\r\n", sim.addr())),
        "{}",
        heads[0]
    );
}

#[tokio::test]
async fn an_http_proxy_refusing_connect_is_a_transport_error() {
    let sim = tls_sim().await;
    let proxy = HttpProxy::new()
        .credentials("alice", "s3cret")
        .start()
        .await
        .unwrap();
    let config =
        kubeconfig_with_proxy(&sim, &format!("http://alice:wrong@{}", proxy.addr())).unwrap();
    let pods = RestClient::new(Client::from_config(&config).unwrap(), "", "v1");
    let err = pods.get().resource("pods").list::<Pod>().await.unwrap_err();
    let text = transport_error(&err);
    assert!(
        text.contains("refused the tunnel") && text.contains("407 Proxy Authentication Required"),
        "{text}"
    );
    assert!(!text.contains("wrong"), "{text}");
}

#[tokio::test]
async fn socks5_proxy_carries_tls_and_http2() {
    let sim = tls_sim().await;
    let proxy = Socks5Proxy::new().start().await.unwrap();
    let config = kubeconfig_with_proxy(&sim, &format!("socks5://{}", proxy.addr())).unwrap();
    list_and_multiplex(&sim, &config).await;
    assert_eq!(proxy.connects(), [sim.addr().to_string()]);
}

#[tokio::test]
async fn socks5_credentials_are_checked() {
    let sim = tls_sim().await;
    let proxy = Socks5Proxy::new()
        .credentials("alice", "s3cret")
        .start()
        .await
        .unwrap();
    let good =
        kubeconfig_with_proxy(&sim, &format!("socks5://alice:s3cret@{}", proxy.addr())).unwrap();
    list_and_multiplex(&sim, &good).await;

    for (url, says) in [
        (
            format!("socks5://alice:wrong@{}", proxy.addr()),
            "authentication failed",
        ),
        (
            format!("socks5://{}", proxy.addr()),
            "requires authentication",
        ),
    ] {
        let config = kubeconfig_with_proxy(&sim, &url).unwrap();
        let text = transport_error(&get_cm(&config).await.unwrap_err());
        assert!(text.contains(says) && !text.contains("wrong"), "{text}");
    }
    assert_eq!(
        proxy.connects().len(),
        1,
        "only the good credentials got a connection"
    );
}

/// A TLS-terminating `CONNECT` proxy with its own CA: trusted through the config's roots, as
/// client-go verifies an `https://` proxy with the transport's TLS settings.
#[tokio::test]
async fn https_proxy_carries_tls_and_http2() {
    let sim = tls_sim().await;
    let proxy = HttpProxy::new().tls(true).start().await.unwrap();
    let mut config = kubeconfig_with_proxy(&sim, proxy.url()).unwrap();
    // Trusting only the sim's CA, the proxy's certificate is refused.
    let text = transport_error(&get_cm(&config).await.unwrap_err());
    assert!(text.contains("TLS handshake with the proxy"), "{text}");
    assert!(proxy.requests().is_empty());

    let mut roots = sim_ca(&sim);
    roots.extend_from_slice(proxy.ca_pem().unwrap().as_bytes());
    config = config.with_root_ca(roots).unwrap();
    list_and_multiplex(&sim, &config).await;
    assert_eq!(proxy.connects().len(), 1);
    assert!(proxy.requests()[0].starts_with("CONNECT "));
}

/// A server name only the proxy resolves, reached through `HTTPS_PROXY`.
async fn through_https_proxy_env(sim: &SimHandle, proxy: &ProxyHandle) {
    let url = format!("https://{PROXY_ONLY_HOST}:{}", sim.addr().port());
    let env = ProxyEnv::from_vars([
        ("https_proxy", proxy.url().to_owned()),
        ("NO_PROXY", "10.0.0.0/8,.svc,localhost".to_owned()),
    ]);
    let mut config = Config::new(url.parse().unwrap()).with_proxy_env(env);
    config = config.with_root_ca(sim_ca(sim)).unwrap();
    // The sim's certificate names localhost and 127.0.0.1.
    config = config.with_tls_server_name("localhost").unwrap();
    list_and_multiplex(sim, &config).await;
}

#[tokio::test]
async fn https_proxy_from_the_environment_resolves_the_server_name() {
    let sim = tls_sim().await;
    let proxy = HttpProxy::new().start().await.unwrap();
    through_https_proxy_env(&sim, &proxy).await;
    let target = format!("{PROXY_ONLY_HOST}:{}", sim.addr().port());
    assert!(
        proxy.requests()[0]
            .starts_with(&format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n")),
        "{:?}",
        proxy.requests()
    );

    let sim = tls_sim().await;
    let socks = Socks5Proxy::new().start().await.unwrap();
    through_https_proxy_env(&sim, &socks).await;
    assert_eq!(
        socks.connects(),
        [format!("{PROXY_ONLY_HOST}:{}", sim.addr().port())],
        "the name goes to the proxy unresolved"
    );
}

#[tokio::test]
async fn environment_proxies_skip_loopback_and_yield_to_proxy_url() {
    let sim = tls_sim().await;
    let env_proxy = HttpProxy::new().start().await.unwrap();
    let env = || ProxyEnv::from_vars([("HTTPS_PROXY", format!("http://{}", env_proxy.addr()))]);

    // The sim is on 127.0.0.1: never proxied from the environment.
    let mut direct = Config::new(sim.url().parse().unwrap()).with_proxy_env(env());
    direct = direct.with_root_ca(sim_ca(&sim)).unwrap();
    list_and_multiplex(&sim, &direct).await;
    assert!(env_proxy.requests().is_empty());

    // proxy-url applies to every request, loopback included, and wins over the environment.
    let sim = tls_sim().await;
    let socks = Socks5Proxy::new().start().await.unwrap();
    let config = kubeconfig_with_proxy(&sim, &format!("socks5://{}", socks.addr()))
        .unwrap()
        .with_proxy_env(env());
    list_and_multiplex(&sim, &config).await;
    assert_eq!(socks.connects().len(), 1);
    assert!(env_proxy.requests().is_empty());
}

#[tokio::test]
async fn http_servers_go_through_http_proxies_in_absolute_form() {
    const CM: &str =
        r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns"}}"#;
    let handler: Handler = Arc::new(|_req| respond(200, CM));
    let plain = serve(Options::default(), handler).await;
    let proxy = HttpProxy::new().start().await.unwrap();
    let mut config = Config::new(plain.url("http"));
    config = config
        .with_proxy_url(format!("http://user:pw@{}", proxy.addr()))
        .unwrap();
    get_cm(&config).await.unwrap();
    let forwarded = &proxy.requests()[0];
    assert!(
        forwarded.starts_with(&format!(
            "GET http://{}/api/v1/namespaces/ns/configmaps/cm HTTP/1.1\r\n",
            plain.addr
        )),
        "{forwarded}"
    );
    assert!(
        forwarded.contains("proxy-authorization: Basic dXNlcjpwdw==\r\n"),
        "{forwarded}"
    );
    // The server gets it in origin form, without the proxy's credentials.
    let received = plain.seen().last().unwrap().clone();
    assert_eq!(received.uri, "/api/v1/namespaces/ns/configmaps/cm");
    assert!(received.headers.get("proxy-authorization").is_none());
    // Through SOCKS5 the requests are the server's own.
    let socks = Socks5Proxy::new().start().await.unwrap();
    config = config
        .with_proxy_url(format!("socks5://{}", socks.addr()))
        .unwrap();
    get_cm(&config).await.unwrap();
    assert_eq!(socks.connects(), [plain.addr.to_string()]);
    assert_eq!(
        plain.seen().last().unwrap().uri,
        "/api/v1/namespaces/ns/configmaps/cm"
    );
    assert!(
        plain
            .seen()
            .last()
            .unwrap()
            .headers
            .get("proxy-authorization")
            .is_none()
    );
}

#[tokio::test]
async fn bad_proxy_urls_are_config_errors_naming_proxy_url() {
    let sim = Sim::builder().tls(true).start().await.unwrap();
    for url in [
        "gopher://proxy.local:70",
        "http://proxy.local:port",
        "socks5://",
    ] {
        let err = kubeconfig_with_proxy(&sim, url).unwrap_err();
        assert!(err.is_config(), "{url}: {err:?}");
        assert!(err.to_string().contains("proxy-url"), "{url}: {err}");
    }
    let err = Config::new(sim.url().parse().unwrap())
        .with_proxy_url("ftp://user:hunter2@proxy.local")
        .unwrap_err();
    assert!(
        err.is_config() && err.to_string().contains("proxy-url"),
        "{err}"
    );
    assert!(!err.to_string().contains("hunter2"));
}

#[tokio::test]
async fn an_unreachable_proxy_is_a_transport_error() {
    let sim = tls_sim().await;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let mut config = kubeconfig_with_proxy(&sim, &format!("socks5://{addr}")).unwrap();
    config = config.with_connect_timeout(Duration::from_secs(5)).unwrap();
    let err = get_cm(&config).await.unwrap_err();
    assert!(err.is_transport(), "{err:?}");
}
