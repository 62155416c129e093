//! The `rest_client_*` families as the client stack feeds them, over a scripted transport and
//! against the sim.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use prometheus_client::registry::Registry;

use crate::stack::RestClientMetrics;
use crate::test_util::{Answer, scripted};
use crate::{Client, Config, RateLimit, RestClient};

/// A client at `http://h:1` on a transport answering `answers` (see [`scripted`]), reporting
/// to a fresh registry.
fn client_on(answers: Vec<Answer>, rate_limit: RateLimit) -> (RestClient, Registry) {
    let mut registry = Registry::default();
    let metrics = RestClientMetrics::register(&mut registry);
    let config = Config::new("http://h:1".parse().unwrap())
        .with_metrics(Arc::new(metrics))
        .with_rate_limit(rate_limit);
    let client = Client::from_config_with_transport(&config, scripted(answers)).unwrap();
    (RestClient::new(client, "", "v1"), registry)
}

fn scrape(registry: &Registry) -> String {
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, registry).unwrap();
    text
}

/// The value of the sample `series` (name and labels), or `None` when it is absent.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .map(|value| value.parse().unwrap())
}

#[tokio::test(start_paused = true)]
async fn a_retried_get_counts_each_attempt_and_times_the_whole_request() {
    let body = r#"{"kind":"ConfigMap","metadata":{"name":"cm"}}"#;
    let answers = vec![
        Answer::Status(503, vec![("retry-after", "2")], "busy"),
        Answer::Status(200, vec![], body),
    ];
    let (rest, registry) = client_on(answers, RateLimit::default());
    let _: ConfigMap = rest
        .get()
        .namespace("default")
        .resource("configmaps")
        .name("cm")
        .into()
        .await
        .unwrap();

    let text = scrape(&registry);
    let at = |series: &str| sample(&text, series);
    let result =
        |code| format!(r#"rest_client_requests_total{{code="{code}",method="GET",host="h:1"}}"#);
    assert_eq!(at(&result("503")), Some(1.0), "{text}");
    assert_eq!(at(&result("200")), Some(1.0), "{text}");
    let retry = r#"rest_client_request_retries_total{code="200",verb="GET",host="h:1"}"#;
    assert_eq!(at(retry), Some(1.0), "{text}");
    let verb = r#"{verb="GET",host="h:1"}"#;
    // One request, timed across its Retry-After wait.
    assert_eq!(
        at(&format!("rest_client_request_duration_seconds_count{verb}")),
        Some(1.0)
    );
    let took = at(&format!("rest_client_request_duration_seconds_sum{verb}")).unwrap();
    assert!((2.0..2.1).contains(&took), "{took}: {text}");
    let le_4 = r#"rest_client_request_duration_seconds_bucket{le="4.0",verb="GET",host="h:1"}"#;
    let le_1 = r#"rest_client_request_duration_seconds_bucket{le="1.0",verb="GET",host="h:1"}"#;
    assert_eq!((at(le_1), at(le_4)), (Some(0.0), Some(1.0)), "{text}");
    // Each attempt waited on the limiter (a full bucket: no wait) and sent an empty body.
    assert_eq!(
        at(&format!(
            "rest_client_rate_limiter_duration_seconds_count{verb}"
        )),
        Some(2.0)
    );
    assert_eq!(
        at(&format!(
            "rest_client_rate_limiter_duration_seconds_sum{verb}"
        )),
        Some(0.0)
    );
    assert_eq!(
        at(&format!("rest_client_request_size_bytes_count{verb}")),
        Some(2.0)
    );
    assert_eq!(
        at(&format!("rest_client_request_size_bytes_sum{verb}")),
        Some(0.0)
    );
    // The response: the final body only.
    assert_eq!(
        at(&format!("rest_client_response_size_bytes_count{verb}")),
        Some(1.0)
    );
    let size = at(&format!("rest_client_response_size_bytes_sum{verb}"));
    assert_eq!(size, Some(body.len() as f64), "{text}");
}

#[tokio::test(start_paused = true)]
async fn a_write_without_a_response_is_an_error_code_and_is_not_retried() {
    let (rest, registry) = client_on(vec![Answer::Broken], RateLimit::Unlimited);
    let body = r#"{"metadata":{"name":"cm"}}"#;
    let sent = rest
        .post()
        .namespace("default")
        .resource("configmaps")
        .body(body)
        .do_raw()
        .await;
    assert!(sent.is_err());

    let text = scrape(&registry);
    let at = |series: &str| sample(&text, series);
    let error = r#"rest_client_requests_total{code="<error>",method="POST",host="h:1"}"#;
    assert_eq!(at(error), Some(1.0), "{text}");
    assert!(
        !text.contains("rest_client_request_retries_total{"),
        "{text}"
    );
    let verb = r#"{verb="POST",host="h:1"}"#;
    assert_eq!(
        at(&format!("rest_client_request_size_bytes_sum{verb}")),
        Some(body.len() as f64)
    );
    assert_eq!(
        at(&format!("rest_client_request_duration_seconds_count{verb}")),
        Some(1.0)
    );
    // No limiter (negative QPS), no response.
    assert!(
        !text.contains("rest_client_rate_limiter_duration_seconds_count{"),
        "{text}"
    );
    assert!(
        !text.contains("rest_client_response_size_bytes_count{"),
        "{text}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_watch_is_timed_to_its_headers_and_an_error_body_is_measured() {
    let forbidden = r#"{"kind":"Status","code":403,"reason":"Forbidden"}"#;
    let answers = vec![Answer::Open, Answer::Status(403, vec![], forbidden)];
    let (rest, registry) = client_on(answers, RateLimit::default());
    let watch = rest
        .get()
        .resource("configmaps")
        .watch::<ConfigMap>()
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_secs(30)).await;

    let text = scrape(&registry);
    let at = |series: &str| sample(&text, series);
    let verb = r#"{verb="GET",host="h:1"}"#;
    // Observed while the stream is still open, with the time to its headers.
    assert_eq!(
        at(&format!("rest_client_request_duration_seconds_count{verb}")),
        Some(1.0)
    );
    assert_eq!(
        at(&format!("rest_client_request_duration_seconds_sum{verb}")),
        Some(0.0)
    );
    assert!(
        !text.contains("rest_client_response_size_bytes_count{"),
        "{text}"
    );
    // A watch's first attempt skips the limiter, and client-go reports no watch request size.
    assert!(
        !text.contains("rest_client_rate_limiter_duration_seconds_count{"),
        "{text}"
    );
    assert!(
        !text.contains("rest_client_request_size_bytes_count{"),
        "{text}"
    );
    drop(watch);

    let denied = rest
        .get()
        .resource("configmaps")
        .do_raw()
        .await
        .unwrap_err();
    assert_eq!(denied.status_code(), Some(403));
    let text = scrape(&registry);
    let at = |series: &str| sample(&text, series);
    let code = r#"rest_client_requests_total{code="403",method="GET",host="h:1"}"#;
    assert_eq!(at(code), Some(1.0), "{text}");
    let size = at(&format!("rest_client_response_size_bytes_sum{verb}"));
    assert_eq!(size, Some(forbidden.len() as f64), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sim_is_measured_per_attempt_with_its_host() {
    use kinformer_sim::{Fault, FaultKind};

    let sim = kinformer_sim::Sim::builder()
        .configmaps(3)
        .start()
        .await
        .unwrap();
    let mut unavailable = FaultKind::status(503);
    if let FaultKind::Status { retry_after, .. } = &mut unavailable {
        *retry_after = Some(0);
    }
    sim.add_faults([Fault::new(unavailable).verbs(["list"])])
        .await;
    let mut registry = Registry::default();
    let metrics = RestClientMetrics::register(&mut registry);
    let config = Config::new(sim.url().parse().unwrap()).with_metrics(Arc::new(metrics));
    let rest = RestClient::new(Client::from_config(&config).unwrap(), "", "v1");
    let list = rest
        .get()
        .resource("configmaps")
        .list::<ConfigMap>()
        .await
        .unwrap();
    assert_eq!(list.items.len(), 3);

    let text = scrape(&registry);
    let at = |series: &str| sample(&text, series);
    let host = sim.addr().to_string();
    let result =
        |code| format!(r#"rest_client_requests_total{{code="{code}",method="GET",host="{host}"}}"#);
    assert_eq!(at(&result("503")), Some(1.0), "{text}");
    assert_eq!(at(&result("200")), Some(1.0), "{text}");
    let retry =
        format!(r#"rest_client_request_retries_total{{code="200",verb="GET",host="{host}"}}"#);
    assert_eq!(at(&retry), Some(1.0), "{text}");
    let verb = format!(r#"{{verb="GET",host="{host}"}}"#);
    assert_eq!(
        at(&format!("rest_client_request_duration_seconds_count{verb}")),
        Some(1.0)
    );
    let size = at(&format!("rest_client_response_size_bytes_sum{verb}")).unwrap();
    assert!(size > 100.0, "the list's bytes: {text}");
}
