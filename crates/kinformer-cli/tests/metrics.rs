//! `kinformer mirror --metrics ADDR` serves client-go's informer and REST client metrics over
//! HTTP.

use std::process::Stdio;
use std::time::Duration;

use kinformer_sim::Sim;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_kinformer");

/// One `GET path` over a fresh connection; the whole response as text.
async fn get(addr: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    response
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mirror_serves_informer_metrics() {
    let sim = Sim::builder().pods(40).seed(3).start().await.unwrap();
    let dir = std::env::temp_dir().join(format!("kinformer-cli-metrics-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let kubeconfig = dir.join("kubeconfig");
    sim.write_kubeconfig(&kubeconfig).unwrap();
    let mut child = Command::new(BIN)
        .args(["mirror", "pods", "-A", "--summary", "--duration", "60"])
        .args(["--metrics", "127.0.0.1:0"])
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .arg("--dump")
        .arg(dir.join("dump.jsonl"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(url) = line.strip_prefix("metrics: http://") {
                return url.trim_end_matches("/metrics").to_owned();
            }
        }
        panic!("the mirror ended without serving metrics");
    })
    .await
    .expect("the metrics address is printed");

    let store = r#"informer_store_items{name="pods",group="",version="v1",resource="pods"} 40"#;
    let scraped = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let response = get(&addr, "/metrics").await;
            if response.contains(store) {
                return response;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the cache's size is served");
    assert!(scraped.starts_with("HTTP/1.1 200"), "{scraped}");
    assert!(scraped.contains("text/plain; version=0.0.4"), "{scraped}");
    let lists = r#"reflector_lists_total{name="pods",resource_type="Pod"} 1"#;
    assert!(scraped.contains(lists), "{scraped}");
    let handler = r#"informer_pending_notifications{name="pods",group="",version="v1",resource="pods",handler="mirror"}"#;
    assert!(scraped.contains(handler), "{scraped}");
    // The client's requests, beside the informer's metrics, under client-go's names.
    let host = sim
        .url()
        .trim_start_matches("http://")
        .trim_end_matches('/');
    let requests =
        format!(r#"rest_client_requests_total{{code="200",method="GET",host="{host}"}}"#);
    assert!(scraped.contains(&requests), "{scraped}");
    for family in [
        "rest_client_request_duration_seconds_count",
        "rest_client_rate_limiter_duration_seconds_count",
        "rest_client_response_size_bytes_count",
        "rest_client_request_size_bytes_count",
    ] {
        let series = format!(r#"{family}{{verb="GET",host="{host}"}}"#);
        assert!(scraped.contains(&series), "{series}: {scraped}");
    }
    assert!(get(&addr, "/other").await.starts_with("HTTP/1.1 404"));

    child.kill().await.unwrap();
    std::fs::remove_dir_all(&dir).ok();
}
