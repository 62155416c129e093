//! `kinformer mirror --metrics ADDR` serves client-go's informer and REST client metrics over
//! HTTP.

mod common;

use common::{Dir, LIMIT, Running, get};
use kinformer_sim::{Sim, wait_until};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mirror_serves_informer_metrics() {
    let sim = Sim::builder().pods(40).seed(3).start().await.unwrap();
    let dir = Dir::with_kubeconfig("metrics", &sim);
    let mirror = Running::spawn(
        dir.kinformer()
            .args(["mirror", "pods", "-A", "--summary"])
            .args(["--metrics", "127.0.0.1:0"])
            .arg("--kubeconfig")
            .arg(dir.kubeconfig())
            .arg("--dump")
            .arg(dir.path("dump.jsonl")),
    );
    let addr = mirror.metrics_addr().await;

    let store = r#"informer_store_items{name="pods",group="",version="v1",resource="pods"} 40"#;
    wait_until("the cache's size is served", LIMIT, || async {
        get(&addr, "/metrics").await.contains(store)
    })
    .await;
    let scraped = get(&addr, "/metrics").await;
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

    let stopped = mirror.stop().await;
    assert!(stopped.status.success(), "{}", stopped.stderr);
}
