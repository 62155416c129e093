//! The layer stack from a `Config` over a custom transport (no socket): rate limiting, retries,
//! warnings, user agent.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use kinformer_rest::stack::{ClientRateLimiter, WarningHandler};
use kinformer_rest::{Body, Client, Config, RestClient};
use tokio::time::Instant;

fn ok_service(
    calls: Arc<AtomicU32>,
) -> impl tower::Service<
    http::Request<Body>,
    Response = http::Response<Full<Bytes>>,
    Error = Infallible,
    Future: Send,
> + Clone
+ Send
+ Sync
+ 'static {
    tower::service_fn(move |req: http::Request<Body>| {
        assert!(
            req.uri()
                .to_string()
                .starts_with("http://sim.local/api/v1/")
        );
        calls.fetch_add(1, Ordering::SeqCst);
        async move { Ok::<_, Infallible>(http::Response::new(Full::new(Bytes::from_static(b"{}")))) }
    })
}

#[tokio::test(start_paused = true)]
async fn default_rate_limit_is_5_qps_burst_10_and_shared() {
    let calls = Arc::new(AtomicU32::new(0));
    let config = Config::new("http://sim.local".parse().unwrap());
    let client = Client::from_config_with_transport(&config, ok_service(calls.clone())).unwrap();
    let rc = RestClient::new(client, "", "v1");
    let start = Instant::now();
    for _ in 0..10 {
        rc.get().resource("pods").do_raw().await.unwrap();
    }
    assert_eq!(start.elapsed(), Duration::ZERO);
    for _ in 0..5 {
        rc.get().resource("pods").do_raw().await.unwrap();
    }
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(990) && took <= Duration::from_millis(1010),
        "{took:?}"
    );

    // One limiter shared by two clients; a negative QPS disables limiting.
    let shared = ClientRateLimiter::new(kinformer_rest::TokenBucket::new(1.0, 2).unwrap());
    let mut config = Config::new("http://sim.local".parse().unwrap());
    config = config.with_rate_limit(kinformer_rest::RateLimit::Shared(shared));
    let a = RestClient::new(
        Client::from_config_with_transport(&config, ok_service(calls.clone())).unwrap(),
        "",
        "v1",
    );
    let b = RestClient::new(
        Client::from_config_with_transport(&config, ok_service(calls.clone())).unwrap(),
        "",
        "v1",
    );
    let start = Instant::now();
    a.get().resource("pods").do_raw().await.unwrap();
    b.get().resource("pods").do_raw().await.unwrap();
    a.get().resource("pods").do_raw().await.unwrap();
    assert_eq!(start.elapsed(), Duration::from_secs(1));
    let mut config = Config::new("http://sim.local".parse().unwrap());
    config = config.with_rate_limit(kinformer_rest::RateLimit::Unlimited);
    let free = RestClient::new(
        Client::from_config_with_transport(&config, ok_service(calls)).unwrap(),
        "",
        "v1",
    );
    let start = Instant::now();
    for _ in 0..50 {
        free.get().resource("pods").do_raw().await.unwrap();
    }
    assert_eq!(start.elapsed(), Duration::ZERO);
}

#[derive(Debug, Default)]
struct Collect(Mutex<Vec<String>>);

impl WarningHandler for Collect {
    fn handle_warning(&self, _code: u16, _agent: &str, text: &str) {
        self.0.lock().unwrap().push(text.to_owned());
    }
}

#[tokio::test(start_paused = true)]
async fn retry_after_then_success_with_warnings() {
    let calls = Arc::new(AtomicU32::new(0));
    let c = calls.clone();
    let svc = tower::service_fn(move |_req: http::Request<Body>| {
        let n = c.fetch_add(1, Ordering::SeqCst);
        async move {
            let mut resp = if n < 2 {
                let mut r = http::Response::new(Full::new(Bytes::from_static(
                    b"Too many requests, please try again later.",
                )));
                *r.status_mut() = http::StatusCode::TOO_MANY_REQUESTS;
                r.headers_mut().insert("retry-after", "2".parse().unwrap());
                r
            } else {
                http::Response::new(Full::new(Bytes::from_static(b"{}")))
            };
            resp.headers_mut().insert(
                "warning",
                "299 - \"v1beta1 is deprecated\"".parse().unwrap(),
            );
            Ok::<_, Infallible>(resp)
        }
    });
    let collect = Arc::new(Collect::default());
    let mut config = Config::new("http://sim.local".parse().unwrap());
    config = config.with_warning_handler(collect.clone());
    let rc = RestClient::new(
        Client::from_config_with_transport(&config, svc).unwrap(),
        "",
        "v1",
    );
    let start = Instant::now();
    rc.get().resource("pods").do_raw().await.unwrap();
    assert_eq!(start.elapsed(), Duration::from_secs(4));
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    assert_eq!(collect.0.lock().unwrap().len(), 3);

    // Exhausted retries surface the last 429 with its Retry-After.
    calls.store(0, Ordering::SeqCst);
    let err = rc
        .get()
        .resource("pods")
        .max_retries(1)
        .do_raw()
        .await
        .unwrap_err();
    assert!(err.is_too_many_requests());
    assert_eq!(err.retry_after(), Some(Duration::from_secs(2)));
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn impersonation_and_user_agent_headers() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let svc = tower::service_fn(move |req: http::Request<Body>| {
        s2.lock().unwrap().push(req.headers().clone());
        async move { Ok::<_, Infallible>(http::Response::new(Full::new(Bytes::from_static(b"{}")))) }
    });
    let who = kinformer_rest::auth::Impersonate::new("jane")
        .and_then(|who| who.with_groups(["dev", "ops"]))
        .unwrap();
    let config = Config::new("http://sim.local".parse().unwrap())
        .with_impersonate(who)
        .with_user_agent("my-controller/1.0")
        .unwrap();
    let rc = RestClient::new(
        Client::from_config_with_transport(&config, svc).unwrap(),
        "",
        "v1",
    );
    rc.get().resource("pods").do_raw().await.unwrap();
    let headers = seen.lock().unwrap()[0].clone();
    assert_eq!(headers["impersonate-user"], "jane");
    let groups: Vec<_> = headers.get_all("impersonate-group").iter().collect();
    assert_eq!(groups, ["dev", "ops"]);
    assert_eq!(headers["user-agent"], "my-controller/1.0");
    assert_eq!(headers["accept"], "application/json, */*");
}
