//! The HTTP answers of the OpenAPI endpoints, with the negotiation and caching headers
//! kube-openapi's handlers write (`pkg/handler` for `/openapi/v2`, `pkg/handler3` for
//! `/openapi/v3`).

use bytes::Bytes;
use http::{HeaderMap, Method, Response, StatusCode, header};
use serde_json::Value;

use super::conditional::{Served, respond};
use super::negotiate::{Form, V2_OFFERS, V3_OFFERS, choose};
use super::{gnostic_document, sha512};
use crate::body::SimBody;
use crate::shared::Shared;

/// Go's gzip handler, which wraps `/openapi/v2`, compresses bodies of at least this many bytes.
const V2_GZIP_FROM: usize = 1400;

/// `/openapi/v2`: JSON or gnostic's protobuf, by the Accept header; 406 with an empty body when
/// the header names neither.
pub(super) fn v2(
    shared: &Shared,
    method: &Method,
    headers: &HeaderMap,
    document: &Value,
) -> Response<SimBody> {
    // The gzip handler announces that the answer varies by encoding before anything else.
    let vary = [
        (header::VARY, "Accept-Encoding".to_owned()),
        (header::VARY, "Accept".to_owned()),
    ];
    let Some(offer) = choose(headers, &V2_OFFERS) else {
        return not_acceptable(&vary);
    };
    let json = document.to_string();
    let etag = sha512::hex_digest(json.as_bytes());
    let body = match (offer.1, document) {
        (Form::Protobuf, Value::Object(object)) => gnostic_document::encode(object),
        _ => json.into_bytes(),
    };
    let served = Served {
        body: Bytes::from(body),
        content_type: offer.2,
        modified: shared.openapi_dates.since("/openapi/v2", &etag),
        etag,
    };
    let resp = respond(method, headers, served, &vary);
    if shared.config.gzip && crate::http::accepts_gzip(headers) {
        crate::http::compress_above(resp, V2_GZIP_FROM - 1)
    } else {
        resp
    }
}

/// `/openapi/v3`: the list of group versions, always JSON, with its own ETag.
pub(super) fn v3_root(
    shared: &Shared,
    method: &Method,
    headers: &HeaderMap,
    root: &Value,
) -> Response<SimBody> {
    let json = root.to_string();
    let etag = sha512::hex_digest(json.as_bytes());
    let served = Served {
        body: Bytes::from(json),
        content_type: "application/json",
        modified: shared.openapi_dates.since("/openapi/v3", &etag),
        etag,
    };
    respond(method, headers, served, &[])
}

/// `/openapi/v3/<group version>`: the document in JSON. With a `hash` query that names the
/// current document it may be cached for good (`Cache-Control: public, immutable` and an
/// `Expires` a year ahead); with a stale `hash`, 301 to the current URL.
pub(super) fn v3_group_version(
    shared: &Shared,
    method: &Method,
    headers: &HeaderMap,
    query: Option<&str>,
    (name, document): (&str, &Value),
) -> Response<SimBody> {
    let vary = [(header::VARY, "Accept".to_owned())];
    let Some(offer) = choose(headers, &V3_OFFERS) else {
        return not_acceptable(&vary);
    };
    let json = document.to_string();
    let etag = sha512::hex_digest(json.as_bytes());
    let asked = query
        .into_iter()
        .flat_map(|q| q.split('&'))
        .find_map(|pair| pair.strip_prefix("hash="))
        .filter(|hash| !hash.is_empty());
    let mut extra = vary.to_vec();
    match asked {
        Some(hash) if hash != etag => {
            let mut resp = Response::new(SimBody::full(Bytes::new()));
            *resp.status_mut() = StatusCode::MOVED_PERMANENTLY;
            // The handler set its Content-Type and ETag before redirecting; Go's redirect then
            // writes no body because a Content-Type was already set.
            for (name, value) in [
                (header::VARY, "Accept".to_owned()),
                (header::CONTENT_TYPE, offer.2.to_owned()),
                (header::ETAG, format!("\"{etag}\"")),
                (header::LOCATION, super::versioned_url(name, &etag)),
            ] {
                if let Ok(value) = http::HeaderValue::from_str(&value) {
                    resp.headers_mut().insert(name, value);
                }
            }
            return resp;
        }
        Some(_) => {
            let now = u64::try_from(crate::clock::now_secs()).unwrap_or_default();
            extra.push((header::CACHE_CONTROL, "public, immutable".to_owned()));
            // Go's RFC 1123 layout names the server's zone, UTC here, where HTTP dates say GMT.
            let expires =
                crate::clock::http_date(crate::clock::a_year_after(now)).replace("GMT", "UTC");
            extra.push((header::EXPIRES, expires));
        }
        None => {}
    }
    let served = Served {
        body: Bytes::from(json),
        content_type: offer.2,
        modified: shared
            .openapi_dates
            .since(&format!("/openapi/v3/{name}"), &etag),
        etag,
    };
    respond(method, headers, served, &extra)
}

/// kube-openapi's answer to an Accept it cannot serve: the status alone, no body, no Status
/// object.
fn not_acceptable(extra: &[(header::HeaderName, String)]) -> Response<SimBody> {
    let mut resp = Response::new(SimBody::full(Bytes::new()));
    *resp.status_mut() = StatusCode::NOT_ACCEPTABLE;
    for (name, value) in extra {
        if let Ok(value) = http::HeaderValue::from_str(value) {
            resp.headers_mut().append(name.clone(), value);
        }
    }
    resp
}
