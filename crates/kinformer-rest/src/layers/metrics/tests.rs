//! What the stack reports to the hooks, by call kind.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::{Method, StatusCode};

use super::RequestMetrics;
use crate::test_util::{Answer, scripted};
use crate::{Client, Config, RestClient};

/// Every hook call, as text.
#[derive(Default)]
struct Recorder(Mutex<Vec<String>>);

impl Recorder {
    fn push(&self, line: String) {
        self.0.lock().unwrap().push(line);
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut self.0.lock().unwrap())
    }
}

impl RequestMetrics for Recorder {
    fn request_result(&self, method: &Method, host: &str, code: Option<StatusCode>) {
        self.push(format!("result {method} {host} {code:?}"));
    }
    fn request_retry(&self, method: &Method, host: &str, code: Option<StatusCode>) {
        self.push(format!("retry {method} {host} {code:?}"));
    }
    fn request_latency(&self, method: &Method, host: &str, latency: Duration) {
        self.push(format!("latency {method} {host} {latency:?}"));
    }
    fn rate_limiter_latency(&self, method: &Method, host: &str, latency: Duration) {
        self.push(format!("limiter {method} {host} {latency:?}"));
    }
    fn request_size(&self, method: &Method, host: &str, bytes: u64) {
        self.push(format!("request {method} {host} {bytes}"));
    }
    fn response_size(&self, method: &Method, host: &str, bytes: u64) {
        self.push(format!("response {method} {host} {bytes}"));
    }
}

#[tokio::test(start_paused = true)]
async fn a_stream_is_counted_but_neither_timed_nor_sized() {
    let recorder = Arc::new(Recorder::default());
    let config = Config::new("https://10.0.0.1:6443".parse().unwrap())
        .with_metrics(Arc::clone(&recorder) as Arc<dyn RequestMetrics>)
        .with_rate_limit(crate::RateLimit::Unlimited);
    let transport = scripted(vec![Answer::Status(200, vec![], "log line\n")]);
    let client = Client::from_config_with_transport(&config, transport).unwrap();
    let rest = RestClient::new(client, "", "v1");
    let logs = rest
        .get()
        .namespace("default")
        .resource("pods")
        .name("p")
        .sub_resource("log")
        .stream()
        .await
        .unwrap();
    drop(logs);
    assert_eq!(recorder.take(), ["result GET 10.0.0.1:6443 Some(200)"]);

    // The same answer to a plain call: sized both ways and timed once its body is read.
    rest.get().resource("pods").do_raw().await.unwrap();
    assert_eq!(
        recorder.take(),
        [
            "request GET 10.0.0.1:6443 0",
            "result GET 10.0.0.1:6443 Some(200)",
            "latency GET 10.0.0.1:6443 0ns",
            "response GET 10.0.0.1:6443 9",
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn without_hooks_requests_pass_through() {
    let config = Config::new("http://h:1".parse().unwrap());
    let transport = scripted(vec![Answer::Status(200, vec![], "{}")]);
    let client = Client::from_config_with_transport(&config, transport).unwrap();
    let body = RestClient::new(client, "", "v1")
        .get()
        .resource("pods")
        .do_raw()
        .await;
    assert_eq!(body.unwrap().as_ref(), b"{}");
}
