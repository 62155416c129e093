//! Turning HTTP responses into bodies or typed errors (client-go `transformResponse`).

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http::{HeaderMap, Method, StatusCode};
use http_body_util::BodyExt;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{StatusCause, StatusDetails};
use kinformer_core::Status;

use crate::body::ResponseBody;
use crate::client::error_from_service;
use crate::decode::Media;
use crate::error::{Error, Result};

/// The longest piece of a non-Status error body kept in the error message.
const MAX_ERROR_BODY: usize = 2048;

/// Reads a whole response body.
pub(crate) async fn read_body(body: ResponseBody) -> Result<Bytes> {
    body.collect()
        .await
        .map(http_body_util::Collected::to_bytes)
        .map_err(error_from_service)
}

/// Reads at most `max` bytes of an error response's body and drops the rest: a `Status` is
/// small, and a broken or hostile server must not make us buffer without end. A cut body no
/// longer decodes as a `Status`, so the error falls back to the HTTP code; a body that breaks
/// off is used as far as it came.
pub(crate) async fn read_error_body(mut body: ResponseBody, max: usize) -> Bytes {
    let mut read = BytesMut::new();
    while let Some(Ok(frame)) = body.frame().await {
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let room = max.saturating_sub(read.len());
        if data.len() > room {
            tracing::debug!(max, "error response body cut at the object size limit");
            break;
        }
        read.extend_from_slice(&data);
    }
    read.freeze()
}

/// The `Retry-After` header in whole seconds, as client-go reads it.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(http::header::RETRY_AFTER)?.to_str().ok()?;
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// The error for a non-2xx response: the server's `Status` when the body is one (in JSON or, as
/// the API server answers a protobuf-first `Accept`, in protobuf), else a `Status` synthesised
/// from the code (client-go `NewGenericServerResponse`).
pub(crate) fn error_from_response(
    method: &Method,
    url: &str,
    status: StatusCode,
    headers: &HeaderMap,
    body: &[u8],
) -> Error {
    let after = retry_after(headers);
    let decoded = Media::of(headers)
        .status(body)
        .filter(|s| s.status.as_deref() == Some("Failure") || s.reason.is_some());
    let mut status_obj = decoded.unwrap_or_else(|| generic_status(method, url, status, body));
    // A missing code, or one no HTTP response can have, is the response's own.
    if status_obj.code.is_none_or(|c| !(100..=599).contains(&c)) {
        status_obj.code = Some(i32::from(status.as_u16()));
    }
    if let Some(after) = after {
        let details = status_obj
            .details
            .get_or_insert_with(StatusDetails::default);
        if details.retry_after_seconds.is_none() {
            details.retry_after_seconds = i32::try_from(after.as_secs()).ok();
        }
    }
    Error::from_status(status_obj).with_retry_after(after)
}

fn generic_status(method: &Method, url: &str, status: StatusCode, body: &[u8]) -> Status {
    let code = status.as_u16();
    let (reason, text) = match code {
        409 if method == Method::POST => ("AlreadyExists", "the object already exists"),
        409 => ("Conflict", "the object has been modified"),
        404 => (
            "NotFound",
            "the server could not find the requested resource",
        ),
        400 => (
            "BadRequest",
            "the server rejected our request for an unknown reason",
        ),
        401 => (
            "Unauthorized",
            "the server has asked for the client to provide credentials",
        ),
        403 => (
            "Forbidden",
            "the server does not allow access to the requested resource",
        ),
        405 => (
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource",
        ),
        406 => (
            "NotAcceptable",
            "the server was unable to respond with a content type that the client supports",
        ),
        415 => (
            "UnsupportedMediaType",
            "the server does not support the content type of the request",
        ),
        422 => (
            "Invalid",
            "the server rejected our request due to an error in our request",
        ),
        429 => (
            "TooManyRequests",
            "the server has received too many requests and has asked us to try again later",
        ),
        503 => (
            "ServiceUnavailable",
            "the server is currently unable to handle the request",
        ),
        504 => (
            "Timeout",
            "the server was unable to return a response in the time allotted",
        ),
        c if c >= 500 => (
            "InternalError",
            "an error on the server has prevented the request from succeeding",
        ),
        _ => ("", "an unknown error has occurred"),
    };
    let text_body = String::from_utf8_lossy(&body[..body.len().min(MAX_ERROR_BODY)]).into_owned();
    let message = if code == 403 && !text_body.trim().is_empty() {
        text_body.trim().to_owned()
    } else {
        format!("{text} ({method} {})", path_of(url))
    };
    let causes = (!text_body.trim().is_empty()).then(|| {
        vec![StatusCause {
            reason: Some("UnexpectedServerResponse".to_owned()),
            message: Some(text_body),
            field: None,
        }]
    });
    Status {
        status: Some("Failure".to_owned()),
        code: Some(i32::from(code)),
        reason: (!reason.is_empty()).then(|| reason.to_owned()),
        message: Some(message),
        details: causes.map(|c| StatusDetails {
            causes: Some(c),
            ..StatusDetails::default()
        }),
        ..Status::default()
    }
}

/// The path of a URL, so no query parameter or userinfo reaches a message.
fn path_of(url: &str) -> &str {
    let without_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path_start = if url.contains("://") {
        without_scheme.find('/').map_or(without_scheme.len(), |i| i)
    } else {
        0
    };
    let path = &without_scheme[path_start..];
    path.split_once('?').map_or(path, |(p, _)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_body_wins() {
        let body = br#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"x\" not found","reason":"NotFound","code":404}"#;
        let err = error_from_response(
            &Method::GET,
            "/api/v1/pods/x",
            StatusCode::NOT_FOUND,
            &HeaderMap::new(),
            body,
        );
        assert!(err.is_not_found());
        assert_eq!(
            err.status().and_then(|s| s.message.as_deref()),
            Some("pods \"x\" not found")
        );
    }

    #[test]
    fn plain_text_429_with_retry_after() {
        let mut headers = HeaderMap::new();
        headers.insert(http::header::RETRY_AFTER, "3".parse().unwrap());
        let err = error_from_response(
            &Method::GET,
            "http://h/api/v1/pods?x=1",
            StatusCode::TOO_MANY_REQUESTS,
            &headers,
            b"slow down",
        );
        assert!(err.is_too_many_requests());
        assert_eq!(err.retry_after(), Some(Duration::from_secs(3)));
        let status = err.status().unwrap();
        assert_eq!(
            status.message.as_deref().unwrap(),
            "the server has received too many requests and has asked us to try again later (GET /api/v1/pods)"
        );
        let cause = &status.details.as_ref().unwrap().causes.as_ref().unwrap()[0];
        assert_eq!(cause.message.as_deref(), Some("slow down"));
    }

    #[test]
    fn conflict_vs_already_exists() {
        let h = HeaderMap::new();
        assert!(
            error_from_response(&Method::POST, "/x", StatusCode::CONFLICT, &h, b"")
                .is_already_exists()
        );
        assert!(
            error_from_response(&Method::PUT, "/x", StatusCode::CONFLICT, &h, b"").is_conflict()
        );
        assert!(error_from_response(&Method::GET, "/x", StatusCode::GONE, &h, b"").is_gone());
        assert!(
            error_from_response(&Method::GET, "/x", StatusCode::GATEWAY_TIMEOUT, &h, b"")
                .is_timeout()
        );
    }
}
