//! `/readyz` follows the controller: not ready before its caches synced, ready while its
//! workers run, not ready once it stopped; `/healthz` answers throughout.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
use kinformer_rest::Client;
use kinformer_runtime::{Action, Controller, ControllerConfig, Health, Probes};
use kinformer_sim::Sim;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

#[derive(Debug, thiserror::Error)]
#[error("never")]
struct Never;

/// One HTTP/1.1 GET: the status code and the body.
async fn get(addr: std::net::SocketAddr, path: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let status = response[9..12].parse().unwrap();
    let body = response.split_once("\r\n\r\n").unwrap().1.to_owned();
    (status, body)
}

async fn eventually(addr: std::net::SocketAddr, path: &str, status: u16) -> String {
    tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let (code, body) = get(addr, path).await;
            if code == status {
                return body;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("in time")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_follows_the_controller() {
    let sim = Sim::builder().configmaps(3).start().await.unwrap();
    let health = Health::new();
    let server = Probes::new(health.clone())
        .serve("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let addr = server.local_addr();
    let check = health.check("controller");
    assert_eq!(get(addr, "/healthz").await, (200, "ok".to_owned()));
    assert_eq!(
        get(addr, "/readyz").await,
        (
            503,
            "[-]controller failed: not ready\nreadyz check failed\n".to_owned()
        )
    );

    let factory = SharedInformerFactory::new(Client::new(sim.service()), FactoryConfig::default());
    let controller = Controller::for_type(
        factory.informer_for::<ConfigMap>(),
        ControllerConfig::default(),
    )
    .with_ready_check(check.clone());
    factory.start();
    let reconcile =
        |_: Arc<ConfigMap>, _: Arc<()>| async { Ok::<_, Never>(Action::await_change()) };
    let results = controller.stream(reconcile, |_, _, _| Action::backoff(), Arc::new(()));
    assert_eq!(
        eventually(addr, "/readyz?verbose", 200).await,
        "[+]controller ok\nreadyz check passed\n"
    );
    drop(results);
    eventually(addr, "/readyz", 503).await;
    assert!(!check.is_ready());
    assert_eq!(get(addr, "/healthz").await.0, 200);
    assert_eq!(get(addr, "/metrics").await.0, 404, "no registry given");
    factory.shutdown().await;
}
