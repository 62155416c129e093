//! [`RestClientMetrics`]: the client's request metrics for a Prometheus registry, under
//! client-go's names.

use std::time::Duration;

use http::{Method, StatusCode};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use super::RequestMetrics;

/// client-go's buckets for `rest_client_request_duration_seconds` and
/// `rest_client_rate_limiter_duration_seconds`.
const LATENCY_BUCKETS: [f64; 12] = [
    0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0,
];
/// client-go's buckets for the request and response sizes: 64 bytes to 16 MiB.
const SIZE_BUCKETS: [f64; 11] = [
    64.0,
    256.0,
    512.0,
    1024.0,
    4096.0,
    16384.0,
    65536.0,
    262_144.0,
    1_048_576.0,
    4_194_304.0,
    16_777_216.0,
];

/// The labels of `rest_client_requests_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabels {
    code: String,
    method: String,
    host: String,
}

/// The labels of `rest_client_request_retries_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RetryLabels {
    code: String,
    verb: String,
    host: String,
}

/// The labels of the latency and size histograms.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct VerbLabels {
    verb: String,
    host: String,
}

type Histograms = Family<VerbLabels, Histogram, fn() -> Histogram>;

/// The client's request metrics under client-go 1.36's names (component-base's `restclient`
/// adapters), with their labels and buckets:
///
/// | metric | labels |
/// | --- | --- |
/// | `rest_client_requests_total` (every attempt) | `code`, `method`, `host` |
/// | `rest_client_request_retries_total` (attempts after the first) | `code`, `verb`, `host` |
/// | `rest_client_request_duration_seconds`, `rest_client_rate_limiter_duration_seconds`, `rest_client_request_size_bytes`, `rest_client_response_size_bytes` | `verb`, `host` |
///
/// `code` is the status code, or `<error>` for an attempt without a response; `verb` and
/// `method` are the HTTP method; `host` is the server's `host:port`. Clones share the families.
///
/// # Examples
/// ```
/// use std::sync::Arc;
///
/// use kinformer_rest::stack::RestClientMetrics;
/// use kinformer_rest::{Client, Config, RestClient};
/// use prometheus_client::registry::Registry;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let sim = kinformer_sim::Sim::builder().configmaps(2).start().await?;
/// let mut registry = Registry::default();
/// let metrics = RestClientMetrics::register(&mut registry);
/// let config = Config::new(sim.url().parse()?).with_metrics(Arc::new(metrics));
/// let client = Client::from_config(&config)?;
/// RestClient::new(client, "", "v1")
///     .get()
///     .resource("configmaps")
///     .list::<k8s_openapi::api::core::v1::ConfigMap>()
///     .await?;
///
/// let mut text = String::new();
/// prometheus_client::encoding::text::encode(&mut text, &registry)?;
/// let host = sim.addr().to_string();
/// assert!(text.contains(&format!(r#"rest_client_requests_total{{code="200",method="GET",host="{host}"}} 1"#)));
/// assert!(text.contains(&format!(r#"rest_client_request_duration_seconds_count{{verb="GET",host="{host}"}} 1"#)));
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct RestClientMetrics {
    requests: Family<ResultLabels, Counter>,
    retries: Family<RetryLabels, Counter>,
    request_duration: Histograms,
    rate_limiter_duration: Histograms,
    request_size: Histograms,
    response_size: Histograms,
}

impl RestClientMetrics {
    /// Registers the families in `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let metrics = Self {
            requests: Family::default(),
            retries: Family::default(),
            request_duration: Family::new_with_constructor(latency_histogram),
            rate_limiter_duration: Family::new_with_constructor(latency_histogram),
            request_size: Family::new_with_constructor(size_histogram),
            response_size: Family::new_with_constructor(size_histogram),
        };
        let m = &metrics;
        registry.register(
            "rest_client_requests",
            "Number of HTTP requests, partitioned by status code, method, and host",
            m.requests.clone(),
        );
        registry.register(
            "rest_client_request_retries",
            "Number of request retries, partitioned by status code, verb, and host",
            m.retries.clone(),
        );
        registry.register(
            "rest_client_request_duration_seconds",
            "Request latency in seconds. Broken down by verb, and host",
            m.request_duration.clone(),
        );
        registry.register(
            "rest_client_rate_limiter_duration_seconds",
            "Client side rate limiter latency in seconds. Broken down by verb, and host",
            m.rate_limiter_duration.clone(),
        );
        registry.register(
            "rest_client_request_size_bytes",
            "Request size in bytes. Broken down by verb and host",
            m.request_size.clone(),
        );
        registry.register(
            "rest_client_response_size_bytes",
            "Response size in bytes. Broken down by verb and host",
            m.response_size.clone(),
        );
        metrics
    }
}

fn latency_histogram() -> Histogram {
    Histogram::new(LATENCY_BUCKETS)
}

fn size_histogram() -> Histogram {
    Histogram::new(SIZE_BUCKETS)
}

/// client-go's `code` label: the status, or `<error>` (an error's text would be unbounded).
fn code_label(code: Option<StatusCode>) -> String {
    code.map_or_else(|| "<error>".to_owned(), |c| c.as_u16().to_string())
}

fn verb(method: &Method, host: &str) -> VerbLabels {
    VerbLabels {
        verb: method.as_str().to_owned(),
        host: host.to_owned(),
    }
}

#[allow(
    clippy::cast_precision_loss,
    reason = "sizes are bucketed; 2^53 bytes is plenty"
)]
fn bytes_f64(bytes: u64) -> f64 {
    bytes as f64
}

impl RequestMetrics for RestClientMetrics {
    fn request_result(&self, method: &Method, host: &str, code: Option<StatusCode>) {
        self.requests
            .get_or_create(&ResultLabels {
                code: code_label(code),
                method: method.as_str().to_owned(),
                host: host.to_owned(),
            })
            .inc();
    }

    fn request_retry(&self, method: &Method, host: &str, code: Option<StatusCode>) {
        self.retries
            .get_or_create(&RetryLabels {
                code: code_label(code),
                verb: method.as_str().to_owned(),
                host: host.to_owned(),
            })
            .inc();
    }

    fn request_latency(&self, method: &Method, host: &str, latency: Duration) {
        self.request_duration
            .get_or_create(&verb(method, host))
            .observe(latency.as_secs_f64());
    }

    fn rate_limiter_latency(&self, method: &Method, host: &str, latency: Duration) {
        self.rate_limiter_duration
            .get_or_create(&verb(method, host))
            .observe(latency.as_secs_f64());
    }

    fn request_size(&self, method: &Method, host: &str, bytes: u64) {
        self.request_size
            .get_or_create(&verb(method, host))
            .observe(bytes_f64(bytes));
    }

    fn response_size(&self, method: &Method, host: &str, bytes: u64) {
        self.response_size
            .get_or_create(&verb(method, host))
            .observe(bytes_f64(bytes));
    }
}

#[cfg(test)]
mod tests;
