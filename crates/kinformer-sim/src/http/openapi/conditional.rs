//! An OpenAPI document's validators and conditional requests, as kube-openapi's handlers answer
//! them through Go's `http.ServeContent`: the ETag is the quoted upper-case hex SHA-512 of the
//! document's JSON (the same for its protobuf form, which `Vary: Accept` tells caches apart),
//! `Last-Modified` is when the server last built the document, a matching `If-None-Match` (or,
//! without one, an `If-Modified-Since` no older than the document) is answered 304, and a failed
//! `If-Match` or `If-Unmodified-Since` 412. Range requests are not modeled.

use std::collections::HashMap;
use std::sync::Mutex;

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Response, StatusCode, header};

use crate::body::SimBody;
use crate::clock::{http_date, now_secs, parse_http_date};

/// When each served document last changed: its path's ETag with the time it was first seen, so
/// `Last-Modified` moves only when the document does.
#[derive(Debug, Default)]
pub(crate) struct DocumentDates(Mutex<HashMap<String, (String, u64)>>);

impl DocumentDates {
    /// The time (seconds since the Unix epoch) the document at `path` took the ETag `etag`.
    pub(super) fn since(&self, path: &str, etag: &str) -> u64 {
        // The map is only ever replaced entry by entry: a poisoned lock still holds dates.
        let mut dates = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let now = u64::try_from(now_secs()).unwrap_or_default();
        match dates.get(path) {
            Some((known, when)) if known == etag => *when,
            _ => {
                dates.insert(path.to_owned(), (etag.to_owned(), now));
                now
            }
        }
    }
}

/// One form of a document, ready to serve.
#[derive(Debug)]
pub(super) struct Served {
    pub(super) body: Bytes,
    pub(super) content_type: &'static str,
    /// The unquoted ETag.
    pub(super) etag: String,
    /// Seconds since the Unix epoch.
    pub(super) modified: u64,
}

/// The answer to a request for `served`, with `extra` headers (`Vary`, caching) on it whatever the
/// status.
pub(super) fn respond(
    method: &Method,
    headers: &HeaderMap,
    served: Served,
    extra: &[(header::HeaderName, String)],
) -> Response<SimBody> {
    let etag = format!("\"{}\"", served.etag);
    let status = precondition(method, headers, &etag, served.modified);
    let mut resp = Response::new(SimBody::full(if status == StatusCode::OK {
        served.body.clone()
    } else {
        Bytes::new()
    }));
    *resp.status_mut() = status;
    let out = resp.headers_mut();
    for (name, value) in extra {
        if let Ok(value) = HeaderValue::from_str(value) {
            out.append(name.clone(), value);
        }
    }
    insert(out, header::ETAG, &etag);
    match status {
        StatusCode::OK => {
            insert(out, header::CONTENT_TYPE, served.content_type);
            insert(out, header::LAST_MODIFIED, &http_date(served.modified));
            insert(out, header::ACCEPT_RANGES, "bytes");
            insert(out, header::CONTENT_LENGTH, &served.body.len().to_string());
        }
        // Go's not-modified answer keeps the validators but drops the body's headers, and
        // `Last-Modified` too when there is an ETag.
        StatusCode::NOT_MODIFIED => {}
        _ => {
            insert(out, header::CONTENT_TYPE, served.content_type);
            insert(out, header::LAST_MODIFIED, &http_date(served.modified));
        }
    }
    resp
}

fn insert(headers: &mut HeaderMap, name: header::HeaderName, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        headers.insert(name, value);
    }
}

/// Go's `checkPreconditions`, in its order.
fn precondition(method: &Method, headers: &HeaderMap, etag: &str, modified: u64) -> StatusCode {
    let get_or_head = matches!(*method, Method::GET | Method::HEAD);
    let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    let if_match = text(header::IF_MATCH);
    match if_match {
        Some(list) if !etag_listed(list, etag, true) => return StatusCode::PRECONDITION_FAILED,
        None => {
            if let Some(since) = text(header::IF_UNMODIFIED_SINCE).and_then(parse_http_date)
                && modified > since
            {
                return StatusCode::PRECONDITION_FAILED;
            }
        }
        Some(_) => {}
    }
    match text(header::IF_NONE_MATCH) {
        Some(list) if etag_listed(list, etag, false) => {
            if get_or_head {
                StatusCode::NOT_MODIFIED
            } else {
                StatusCode::PRECONDITION_FAILED
            }
        }
        Some(_) => StatusCode::OK,
        None => match text(header::IF_MODIFIED_SINCE).and_then(parse_http_date) {
            Some(since) if get_or_head && modified <= since => StatusCode::NOT_MODIFIED,
            _ => StatusCode::OK,
        },
    }
}

/// Whether the comma-separated entity-tag list names `etag` (or is `*`). A strong comparison
/// (If-Match) refuses weak tags; a weak one (If-None-Match) ignores their `W/`. As in Go, the
/// scan stops at the first entry that is not a quoted tag.
fn etag_listed(list: &str, etag: &str, strong: bool) -> bool {
    let mut rest = list;
    loop {
        rest = rest.trim_matches([' ', '\t']);
        if rest.is_empty() {
            return false;
        }
        if let Some(after) = rest.strip_prefix(',') {
            rest = after;
            continue;
        }
        if rest.starts_with('*') {
            return true;
        }
        let (weak, body) = match rest.strip_prefix("W/") {
            Some(body) => (true, body),
            None => (false, rest),
        };
        let Some(quoted) = body.strip_prefix('"') else {
            return false;
        };
        let Some(end) = quoted.find('"') else {
            return false;
        };
        let tag = &body[..end + 2];
        if tag == etag && !(strong && weak) {
            return true;
        }
        rest = &quoted[end + 1..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(method: Method, pairs: &[(header::HeaderName, &str)]) -> StatusCode {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(name.clone(), HeaderValue::from_str(value).unwrap());
        }
        precondition(&method, &headers, "\"AB\"", 1_000)
    }

    #[test]
    fn if_none_match_is_a_weak_comparison_answered_304_to_reads() {
        use header::IF_NONE_MATCH as INM;
        assert_eq!(status(Method::GET, &[]), StatusCode::OK);
        assert_eq!(
            status(Method::GET, &[(INM, "\"AB\"")]),
            StatusCode::NOT_MODIFIED
        );
        assert_eq!(
            status(Method::GET, &[(INM, "W/\"AB\"")]),
            StatusCode::NOT_MODIFIED
        );
        assert_eq!(
            status(Method::GET, &[(INM, "\"x\", \"AB\"")]),
            StatusCode::NOT_MODIFIED
        );
        assert_eq!(status(Method::GET, &[(INM, "*")]), StatusCode::NOT_MODIFIED);
        assert_eq!(status(Method::GET, &[(INM, "AB")]), StatusCode::OK);
        assert_eq!(status(Method::GET, &[(INM, "\"CD\"")]), StatusCode::OK);
        assert_eq!(
            status(Method::POST, &[(INM, "\"AB\"")]),
            StatusCode::PRECONDITION_FAILED
        );
    }

    #[test]
    fn dates_and_if_match_follow_go() {
        let later = http_date(2_000);
        let earlier = http_date(500);
        assert_eq!(
            status(Method::GET, &[(header::IF_MODIFIED_SINCE, &later)]),
            StatusCode::NOT_MODIFIED
        );
        assert_eq!(
            status(Method::GET, &[(header::IF_MODIFIED_SINCE, &earlier)]),
            StatusCode::OK
        );
        // An If-None-Match that does not match overrides If-Modified-Since.
        assert_eq!(
            status(
                Method::GET,
                &[
                    (header::IF_NONE_MATCH, "\"CD\""),
                    (header::IF_MODIFIED_SINCE, &later)
                ]
            ),
            StatusCode::OK
        );
        assert_eq!(
            status(Method::GET, &[(header::IF_MATCH, "W/\"AB\"")]),
            StatusCode::PRECONDITION_FAILED
        );
        assert_eq!(
            status(Method::GET, &[(header::IF_MATCH, "\"AB\"")]),
            StatusCode::OK
        );
        assert_eq!(
            status(Method::GET, &[(header::IF_UNMODIFIED_SINCE, &earlier)]),
            StatusCode::PRECONDITION_FAILED
        );
    }
}
