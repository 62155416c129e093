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

/// client-go's `Do`: only a GET is retried after a reset, broken or closed connection; a
/// refused connection and `Stream()` are never retried.
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

/// client-go's `withRetry.Before`: with a per-host backoff, a retry sleeps once, the larger of
/// `Retry-After` and the backoff (the rule `testRequestWithRetry` drives for `Do`, `Watch` and
/// `Stream`): 5 s vs 1 s sleeps 5 s, 2 s vs 4 s sleeps 4 s, for every call kind.
#[tokio::test(start_paused = true)]
async fn a_retry_sleeps_once_the_larger_of_retry_after_and_the_backoff() {
    type Fail = fn() -> Result<http::Response<ResponseBody>, BoxError>;
    let after_5: Fail = || status_with_retry_after(500, "5");
    let after_2: Fail = || status_with_retry_after(500, "2");
    for (retry_after, fail, initial, slept) in [("5", after_5, 1, 5), ("2", after_2, 4, 4)] {
        for kind in [None, Some(WatchRequest)] {
            let backoff = UrlBackoff::new(Duration::from_secs(initial), Duration::from_secs(30));
            let (svc, calls) = flaky(1, fail);
            let svc = tower::Layer::layer(&RetryLayer::new(10, Some(backoff.clone())), svc);
            let mut req = get();
            if let Some(watch) = kind {
                req.extensions_mut().insert(watch);
            }
            let start = Instant::now();
            assert_eq!(svc.oneshot(req).await.unwrap().status(), 200);
            assert_eq!(calls.load(Ordering::SeqCst), 2);
            assert_eq!(
                start.elapsed(),
                Duration::from_secs(slept),
                "{retry_after} vs {initial}"
            );
            assert_eq!(backoff.delay("h:1"), Duration::ZERO, "a success resets it");
        }
    }
}

#[tokio::test(start_paused = true)]
async fn the_first_attempt_waits_for_the_hosts_backoff() {
    let backoff = UrlBackoff::new(Duration::from_secs(2), Duration::from_secs(30));
    backoff.update("h:1", 503);
    let (svc, calls) = flaky(0, reset);
    let svc = tower::Layer::layer(&RetryLayer::new(10, Some(backoff)), svc);
    let start = Instant::now();
    svc.oneshot(get()).await.unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(start.elapsed(), Duration::from_secs(2));
}

fn eof() -> Result<http::Response<ResponseBody>, BoxError> {
    Err(Box::new(std::io::Error::from(
        std::io::ErrorKind::UnexpectedEof,
    )))
}

fn timed_out() -> Result<http::Response<ResponseBody>, BoxError> {
    Err(Box::new(std::io::Error::from(std::io::ErrorKind::TimedOut)))
}

fn watch(method: http::Method) -> http::Request<Body> {
    let mut req = http::Request::builder()
        .method(method)
        .uri("http://h:1/api/v1/pods?watch=true")
        .body(Body::empty())
        .unwrap();
    req.extensions_mut().insert(WatchRequest);
    req
}

/// client-go's `Watch` retries a probable EOF or a timeout whatever the method
/// (`TestRequestWatchWithRetry`): a POST watch that hits EOF and a GET watch that times out both
/// take 3 attempts with 2 retries, 1 s apart.
#[tokio::test(start_paused = true)]
async fn a_watch_retries_eof_and_timeouts_for_any_method() {
    for (method, fail) in [
        (http::Method::POST, eof as fn() -> _),
        (http::Method::GET, timed_out as fn() -> _),
    ] {
        let (svc, calls) = flaky(2, fail);
        let svc = tower::Layer::layer(&RetryLayer::new(2, None), svc);
        let start = Instant::now();
        assert_eq!(
            svc.oneshot(watch(method.clone())).await.unwrap().status(),
            200
        );
        assert_eq!(calls.load(Ordering::SeqCst), 3, "{method}");
        assert_eq!(start.elapsed(), Duration::from_secs(2));
    }
    // Past the retries allowed, the last error is returned.
    let (svc, calls) = flaky(5, timed_out);
    let svc = tower::Layer::layer(&RetryLayer::new(2, None), svc);
    assert!(svc.oneshot(watch(http::Method::GET)).await.is_err());
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    // A plain (non-watch) request that times out is not retried, as client-go's `Do`.
    let (svc, calls) = flaky(2, timed_out);
    let svc = tower::Layer::layer(&RetryLayer::new(2, None), svc);
    assert!(svc.oneshot(get()).await.is_err());
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}
