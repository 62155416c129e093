//! The `kinformer-sim` binary: flags, port file, kubeconfig, churn.

use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Empty};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::process::Command;

async fn get(port: u16, path: &str, token: &str) -> serde_json::Value {
    let io = TokioIo::new(TcpStream::connect(("127.0.0.1", port)).await.unwrap());
    let (mut sender, conn) = hyper::client::conn::http1::handshake(io).await.unwrap();
    tokio::spawn(conn);
    let req = http::Request::get(path)
        .header("host", "127.0.0.1")
        .header("authorization", format!("Bearer {token}"))
        .body(Empty::<bytes::Bytes>::new())
        .unwrap();
    let body = sender
        .send_request(req)
        .await
        .unwrap()
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes();
    serde_json::from_slice(&body).unwrap()
}

/// The `kinformer-sim` binary honours its flags: port file, kubeconfig with the token, seeded
/// objects, bearer auth and churn that keeps advancing the revision.
#[tokio::test]
async fn binary_serves_with_its_flags() {
    let dir = std::env::temp_dir().join(format!("kinformer-sim-bin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (port_file, kubeconfig) = (dir.join("port"), dir.join("kubeconfig"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_kinformer-sim"))
        .args([
            "--pods",
            "7",
            "--configmaps",
            "3",
            "--namespaces",
            "2",
            "--seed",
            "4",
            "--churn",
            "50",
        ])
        .args([
            "--token",
            "t",
            "--compact-interval",
            "0",
            "--bookmark-interval",
            "5",
            "--max-history",
            "1000",
        ])
        .arg("--port-file")
        .arg(&port_file)
        .arg("--write-kubeconfig")
        .arg(&kubeconfig)
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut port = None;
    for _ in 0..500 {
        if let Some(p) = std::fs::read_to_string(&port_file)
            .ok()
            .and_then(|s| s.trim().parse::<u16>().ok())
        {
            port = Some(p);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let port = port.expect("the port file appears");
    let kc = std::fs::read_to_string(&kubeconfig).unwrap();
    assert!(
        kc.contains(&format!("server: http://127.0.0.1:{port}")) && kc.contains("token: \"t\"")
    );
    let pods = get(port, "/api/v1/pods", "t").await;
    assert!(
        pods["items"].as_array().unwrap().len() >= 5,
        "7 pods, give or take churn"
    );
    assert_eq!(
        get(port, "/api/v1/configmaps", "t").await["items"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let first = get(port, "/_control/stats", "").await["revision"]
        .as_u64()
        .unwrap();
    // Churn writes asynchronously: wait (bounded) for the revision to move past `first`.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut stats = get(port, "/_control/stats", "").await;
    while stats["revision"].as_u64().unwrap() <= first && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
        stats = get(port, "/_control/stats", "").await;
    }
    assert!(
        stats["revision"].as_u64().unwrap() > first,
        "churn is writing: {stats}"
    );
    child.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
