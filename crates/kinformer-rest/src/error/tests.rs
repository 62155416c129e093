use super::*;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{StatusCause, StatusDetails};

fn status(code: i32, reason: &str) -> Status {
    Status {
        code: Some(code),
        reason: Some(reason.into()),
        ..Status::default()
    }
}

#[test]
fn error_is_small_send_sync() {
    fn assert_send_sync<T: Send + Sync + 'static>() {}
    assert_send_sync::<Error>();
    assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
}

#[test]
fn predicates_follow_reason_then_code() {
    assert!(Error::from_status(status(404, "NotFound")).is_not_found());
    assert!(Error::from_status(status(404, "")).is_not_found());
    assert!(!Error::from_status(status(404, "Conflict")).is_not_found());
    assert!(Error::from_status(status(409, "Conflict")).is_conflict());
    assert!(Error::from_status(status(401, "Unauthorized")).is_unauthorized());
    assert!(Error::from_status(status(410, "Gone")).is_gone());
    assert!(!Error::from_status(status(410, "Gone")).is_resource_expired());
    assert!(Error::from_status(status(410, "Expired")).is_resource_expired());
    assert!(Error::from_status(status(429, "Whatever")).is_too_many_requests());
    assert!(Error::from_status(status(504, "Timeout")).is_timeout());
    assert!(Error::new(Kind::Timeout, "deadline").is_timeout());
    assert!(Error::new(Kind::Transport, "refused").is_transport());
}

#[test]
fn too_large_resource_version_all_forms() {
    let mut s = status(504, "Timeout");
    s.details = Some(StatusDetails {
        causes: Some(vec![StatusCause {
            reason: Some("ResourceVersionTooLarge".into()),
            ..StatusCause::default()
        }]),
        ..StatusDetails::default()
    });
    assert!(Error::from_status(s).is_too_large_resource_version());
    let mut s = status(504, "Timeout");
    s.message = Some("Too large resource version: 9, current: 3".into());
    assert!(Error::from_status(s).is_too_large_resource_version());
    let mut s = status(504, "Timeout");
    s.details = Some(StatusDetails {
        causes: Some(vec![StatusCause {
            message: Some("Too large resource version".into()),
            ..StatusCause::default()
        }]),
        ..StatusDetails::default()
    });
    assert!(Error::from_status(s).is_too_large_resource_version());
}

#[test]
fn retry_after_from_header_or_details() {
    let e = Error::from_status(status(429, "TooManyRequests"))
        .with_retry_after(Some(Duration::from_secs(3)));
    assert_eq!(e.retry_after(), Some(Duration::from_secs(3)));
    let mut s = status(429, "TooManyRequests");
    s.details = Some(StatusDetails {
        retry_after_seconds: Some(7),
        ..StatusDetails::default()
    });
    assert_eq!(
        Error::from_status(s).retry_after(),
        Some(Duration::from_secs(7))
    );
}

#[test]
fn display_does_not_repeat_source() {
    let io = std::io::Error::other("connection refused");
    let e = Error::new(Kind::Transport, "GET http://127.0.0.1:1/api").with_source(io);
    assert_eq!(e.to_string(), "transport error: GET http://127.0.0.1:1/api");
    assert!(std::error::Error::source(&e).is_some());
}
