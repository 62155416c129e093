//! client-go's `TestRequestWatch`, ported: how `Request::watch` answers each failure.

use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;

use super::*;

/// One answer of a scripted server: a response, or a transport error.
type Answer = fn() -> std::result::Result<http::Response<crate::body::ResponseBody>, BoxError>;

fn answer(
    code: http::StatusCode,
    body: &'static str,
) -> std::result::Result<http::Response<crate::body::ResponseBody>, BoxError> {
    let mut resp = http::Response::new(crate::body::boxed(Body::from(body)));
    *resp.status_mut() = code;
    Ok(resp)
}

fn forbidden() -> std::result::Result<http::Response<crate::body::ResponseBody>, BoxError> {
    answer(http::StatusCode::FORBIDDEN, "")
}

fn unauthorized() -> std::result::Result<http::Response<crate::body::ResponseBody>, BoxError> {
    answer(http::StatusCode::UNAUTHORIZED, "")
}

fn unauthorized_status() -> std::result::Result<http::Response<crate::body::ResponseBody>, BoxError>
{
    let status =
        r#"{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Unauthorized"}"#;
    answer(http::StatusCode::UNAUTHORIZED, status)
}

fn io_failure(
    kind: std::io::ErrorKind,
) -> std::result::Result<http::Response<crate::body::ResponseBody>, BoxError> {
    Err(Box::new(std::io::Error::from(kind)))
}

fn eof() -> std::result::Result<http::Response<crate::body::ResponseBody>, BoxError> {
    io_failure(std::io::ErrorKind::UnexpectedEof)
}

fn broken_pipe() -> std::result::Result<http::Response<crate::body::ResponseBody>, BoxError> {
    io_failure(std::io::ErrorKind::BrokenPipe)
}

fn reset() -> std::result::Result<http::Response<crate::body::ResponseBody>, BoxError> {
    io_failure(std::io::ErrorKind::ConnectionReset)
}

fn not_retryable() -> std::result::Result<http::Response<crate::body::ResponseBody>, BoxError> {
    Err("err".into())
}

fn internal_error_retry_after()
-> std::result::Result<http::Response<crate::body::ResponseBody>, BoxError> {
    let mut resp = http::Response::new(crate::body::boxed(Body::empty()));
    *resp.status_mut() = http::StatusCode::INTERNAL_SERVER_ERROR;
    resp.headers_mut().insert(
        http::header::RETRY_AFTER,
        http::HeaderValue::from_static("1"),
    );
    Ok(resp)
}

/// client-go's `TestRequestWatch`, case by case: the attempts made and the error returned.
///
/// Four cases differ on purpose (ARCHITECTURE, "Where kinformer differs from client-go"): when
/// the last attempt ends in a probable EOF (EOF, a write on a broken connection, a reset) or a
/// timeout, client-go returns an empty, closed watch and no error; kinformer returns the transport
/// error, so the reflector re-watches from its resourceVersion instead of taking the empty watch
/// for a very short one and relisting, and the watch-error handler learns the cause.
#[tokio::test(start_paused = true)]
async fn watch_answers_as_client_gos_request_watch_except_after_a_probable_eof() {
    type Expect = fn(&Error) -> bool;
    let cases: [(&str, u32, Vec<Answer>, Expect); 9] = [
        (
            "error is not retryable",
            0,
            vec![not_retryable],
            Error::is_transport,
        ),
        (
            "server returns forbidden",
            0,
            vec![forbidden],
            Error::is_forbidden,
        ),
        (
            "server returns unauthorized",
            0,
            vec![unauthorized],
            Error::is_unauthorized,
        ),
        (
            "server returns unauthorized with a Status",
            0,
            vec![unauthorized_status],
            Error::is_unauthorized,
        ),
        // client-go: an empty watch (4 cases).
        (
            "server returns EOF error",
            0,
            vec![eof],
            Error::is_transport,
        ),
        (
            "server returns can't write HTTP request on broken connection error",
            0,
            vec![broken_pipe],
            Error::is_transport,
        ),
        (
            "server returns connection reset by peer",
            0,
            vec![reset],
            Error::is_transport,
        ),
        (
            "max retries 2, server always returns EOF error",
            2,
            vec![eof, eof, eof],
            Error::is_transport,
        ),
        (
            "max retries 2, server always returns a response with Retry-After header",
            2,
            vec![internal_error_retry_after; 3],
            Error::is_internal_error,
        ),
    ];
    for (name, max_retries, answers, expect) in cases {
        let attempts = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = Arc::clone(&attempts);
        let expected_attempts = answers.len();
        let svc = tower::service_fn(move |_req: http::Request<Body>| {
            let n = count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let answer = answers[n.min(answers.len() - 1)];
            async move { answer() }
        });
        let svc = tower::Layer::layer(&crate::layers::RetryLayer::new(max_retries, None), svc);
        let rc = RestClient::new(Client::new(svc), "", "v1");
        let err = rc.get().resource("pods").watch::<Pod>().await.unwrap_err();
        assert!(expect(&err), "{name}: {err:?}");
        assert_eq!(
            attempts.load(std::sync::atomic::Ordering::SeqCst),
            expected_attempts,
            "{name}"
        );
    }
    // "Request has error": no attempt at all.
    let (rc, seen) = fixed(200, "");
    let err = rc
        .get()
        .namespace("a/b")
        .resource("pods")
        .watch::<Pod>()
        .await
        .unwrap_err();
    assert!(err.is_invalid_request());
    assert!(seen.lock().unwrap().is_empty());
}
