use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use tokio::time::Instant;

use super::*;
use crate::body::{ResponseBody, boxed};
use crate::error::BoxError;

/// A service that fails `failures` times with `fail`, then answers 200, counting calls.
fn flaky(
    failures: u32,
    fail: fn() -> Result<http::Response<ResponseBody>, BoxError>,
) -> (impl StackService, Arc<AtomicU32>) {
    let calls = Arc::new(AtomicU32::new(0));
    let c = calls.clone();
    let svc = tower::service_fn(move |_req: http::Request<Body>| {
        let n = c.fetch_add(1, Ordering::SeqCst);
        async move {
            if n < failures {
                fail()
            } else {
                Ok(http::Response::new(boxed(Body::from("ok"))))
            }
        }
    });
    (svc, calls)
}

fn status_with_retry_after(
    code: u16,
    after: &str,
) -> Result<http::Response<ResponseBody>, BoxError> {
    let mut resp = http::Response::new(boxed(Body::from("try again later")));
    *resp.status_mut() = http::StatusCode::from_u16(code).unwrap();
    resp.headers_mut()
        .insert(http::header::RETRY_AFTER, after.parse().unwrap());
    Ok(resp)
}

fn get() -> http::Request<Body> {
    http::Request::get("http://h:1/api/v1/pods")
        .body(Body::empty())
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn retries_429_after_the_delay() {
    let (svc, calls) = flaky(2, || status_with_retry_after(429, "3"));
    let svc = tower::Layer::layer(&RetryLayer::default(), svc);
    let start = Instant::now();
    let resp = svc.oneshot(get()).await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    assert_eq!(start.elapsed(), Duration::from_secs(6));
}

#[tokio::test(start_paused = true)]
async fn gives_up_after_max_retries_with_the_last_response() {
    let (svc, calls) = flaky(100, || status_with_retry_after(503, "1"));
    let svc = tower::Layer::layer(&RetryLayer::default(), svc);
    let resp = svc.oneshot(get()).await.unwrap();
    assert_eq!(resp.status(), 503);
    assert_eq!(calls.load(Ordering::SeqCst), 11);
    let (svc, calls) = flaky(100, || status_with_retry_after(503, "1"));
    let svc = tower::Layer::layer(&RetryLayer::default(), svc);
    let mut req = get();
    req.extensions_mut().insert(MaxRetries(2));
    svc.oneshot(req).await.unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 3);
}

#[tokio::test(start_paused = true)]
async fn no_retry_without_retry_after_or_for_4xx() {
    let (svc, calls) = flaky(1, || {
        let mut r = http::Response::new(boxed(Body::empty()));
        *r.status_mut() = http::StatusCode::INTERNAL_SERVER_ERROR;
        Ok(r)
    });
    let svc = tower::Layer::layer(&RetryLayer::default(), svc);
    assert_eq!(svc.oneshot(get()).await.unwrap().status(), 500);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let (svc, calls) = flaky(1, || status_with_retry_after(404, "1"));
    let svc = tower::Layer::layer(&RetryLayer::default(), svc);
    assert_eq!(svc.oneshot(get()).await.unwrap().status(), 404);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

fn reset() -> Result<http::Response<ResponseBody>, BoxError> {
    Err(Box::new(std::io::Error::from(
        std::io::ErrorKind::ConnectionReset,
    )))
}

#[tokio::test(start_paused = true)]
async fn broken_connections_retried_for_get_only() {
    let (svc, calls) = flaky(2, reset);
    let svc = tower::Layer::layer(&RetryLayer::default(), svc);
    assert_eq!(svc.oneshot(get()).await.unwrap().status(), 200);
    assert_eq!(calls.load(Ordering::SeqCst), 3);

    let (svc, calls) = flaky(2, reset);
    let svc = tower::Layer::layer(&RetryLayer::default(), svc);
    let post = http::Request::post("http://h:1/api/v1/pods")
        .body(Body::from("{}"))
        .unwrap();
    assert!(svc.oneshot(post).await.is_err());
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    let (svc, calls) = flaky(2, || {
        Err(Box::new(std::io::Error::from(
            std::io::ErrorKind::ConnectionRefused,
        )))
    });
    let svc = tower::Layer::layer(&RetryLayer::default(), svc);
    assert!(svc.oneshot(get()).await.is_err());
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    let (svc, calls) = flaky(2, reset);
    let svc = tower::Layer::layer(&RetryLayer::default(), svc);
    let mut req = get();
    req.extensions_mut().insert(NoTransportRetry);
    assert!(svc.oneshot(req).await.is_err());
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn url_backoff_delays_attempts() {
    let backoff = UrlBackoff::new(Duration::from_secs(2), Duration::from_secs(30));
    let (svc, _) = flaky(2, || status_with_retry_after(500, "1"));
    let svc = tower::Layer::layer(&RetryLayer::new(10, Some(backoff.clone())), svc);
    let start = Instant::now();
    svc.oneshot(get()).await.unwrap();
    // Sleeps max(backoff, Retry-After) = 2 s then 4 s before the retries, and the backoff's own
    // delay (2 s, 4 s) before each retried attempt.
    assert_eq!(start.elapsed(), Duration::from_secs(12));
    assert_eq!(backoff.delay("h:1"), Duration::ZERO);
}
