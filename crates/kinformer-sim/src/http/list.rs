//! LIST: resourceVersion semantics, paging with continue tokens, selectors, and list bodies built by
//! concatenating stored bytes.

use std::sync::Arc;

use bytes::{BufMut, BytesMut};
use http::Response;

use super::Params;
use super::media::{Encoding, META_API_VERSION, Media};
use crate::body::SimBody;
use crate::protobuf;
use crate::resource::ResourceDef;
use crate::select::Filter;
use crate::shared::Shared;
use crate::status::{ApiError, json_response};
use crate::store::{ListPage, ReadAt, ReadError, RecordRef, list_prefix};
use crate::token::ContinueToken;

const EXPIRED_CONTINUE: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";
const EXPIRED_LIST: &str = "The resourceVersion for the provided list is too old.";

/// Checks ListOptions as the apiserver validates them for a list (422 Invalid, 400 BadRequest).
pub(super) fn validate(params: &Params) -> Result<(), ApiError> {
    if params.send_initial_events.is_some() {
        return Err(ApiError::invalid_list_options(
            "sendInitialEvents",
            "FieldValueForbidden",
            "sendInitialEvents is forbidden for list",
        ));
    }
    if let Some(m) = &params.resource_version_match {
        if params.rv().is_empty() {
            return Err(ApiError::invalid_list_options(
                "resourceVersionMatch",
                "FieldValueForbidden",
                "resourceVersionMatch is forbidden unless resourceVersion is provided",
            ));
        }
        if params.continue_token.is_some() {
            return Err(ApiError::invalid_list_options(
                "resourceVersionMatch",
                "FieldValueForbidden",
                "resourceVersionMatch is forbidden when continue is provided",
            ));
        }
        match m.as_str() {
            "Exact" if params.rv() == "0" => {
                return Err(ApiError::invalid_list_options(
                    "resourceVersionMatch",
                    "FieldValueForbidden",
                    "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
                ));
            }
            "Exact" | "NotOlderThan" => {}
            other => {
                return Err(ApiError::invalid_list_options(
                    "resourceVersionMatch",
                    "FieldValueNotSupported",
                    &format!("\"{other}\": supported values: \"Exact\", \"NotOlderThan\""),
                ));
            }
        }
    }
    if params.continue_token.is_some() && !matches!(params.rv(), "" | "0") {
        return Err(ApiError::bad_request(
            "specifying resource version is not allowed when using continue",
        ));
    }
    Ok(())
}

/// Parses a numeric resourceVersion (400 otherwise).
pub(super) fn parse_rv(rv: &str) -> Result<u64, ApiError> {
    rv.parse()
        .map_err(|_| ApiError::bad_request(format!("invalid resource version: {rv}")))
}

/// The 410 a list gets when its snapshot is gone: with a fresh `rv: -1` token for a continue page.
pub(super) fn expired_error(params: &Params) -> ApiError {
    match params.continue_token.as_deref().map(ContinueToken::decode) {
        Some(Ok(token)) => {
            let mut e = ApiError::expired(EXPIRED_CONTINUE);
            e.continue_token = Some(
                ContinueToken {
                    rev: None,
                    start: token.start,
                }
                .encode(),
            );
            e
        }
        _ => ApiError::expired(EXPIRED_LIST),
    }
}

/// Waits (up to the configured 3 s) for the store to reach `rev`; 504 ResourceVersionTooLarge if not.
pub(super) async fn wait_for(shared: &Shared, rev: u64) -> Result<(), ApiError> {
    if shared
        .store
        .wait_for_revision(rev, shared.config.too_large_wait)
        .await
    {
        Ok(())
    } else {
        Err(ApiError::too_large(rev, shared.store.revision()))
    }
}

pub(super) async fn serve(
    shared: &Arc<Shared>,
    def: &Arc<ResourceDef>,
    namespace: Option<&str>,
    params: &Params,
    media: Media,
) -> Result<Response<SimBody>, ApiError> {
    let media = media.check(true)?;
    let page = page(shared, def, namespace, params).await?;
    if let Some(include) = media.table() {
        let records: Vec<&crate::store::Record> = page.items.iter().map(|r| &**r).collect();
        let meta: serde_json::Value =
            serde_json::from_str(&list_meta(&page)).unwrap_or_else(|_| serde_json::json!({}));
        return super::table::table(def, &records, meta, include);
    }
    list_response(def, &page, media)
}

/// The page of objects a list with `params` answers (a collection delete deletes it).
pub(super) async fn page(
    shared: &Shared,
    def: &Arc<ResourceDef>,
    namespace: Option<&str>,
    params: &Params,
) -> Result<ListPage, ApiError> {
    validate(params)?;
    let filter = Filter::parse(
        def,
        namespace,
        params.label_selector.as_deref(),
        params.field_selector.as_deref(),
    )?;
    let mut limit = params.limit.filter(|n| *n > 0).map(|n| n as usize);
    let mut start = None;
    let at = if let Some(raw) = &params.continue_token {
        let token = ContinueToken::decode(raw)?;
        start = Some(token.start);
        token.rev.map_or(ReadAt::Latest, ReadAt::Revision)
    } else {
        match (params.rv(), params.resource_version_match.as_deref()) {
            ("", _) => ReadAt::Latest,
            // The watch cache serves RV 0 whole: limit ignored, no continue.
            ("0", _) => {
                limit = None;
                ReadAt::Latest
            }
            (rv, m) => {
                let rev = parse_rv(rv)?;
                if rev > shared.store.revision() {
                    wait_for(shared, rev).await?;
                }
                match (m, limit) {
                    (Some("Exact"), _) | (None, Some(_)) => ReadAt::Revision(rev),
                    _ => ReadAt::Latest,
                }
            }
        }
    };
    let prefix = list_prefix(def, namespace);
    shared
        .store
        .list(
            def,
            &prefix,
            start.as_deref(),
            at,
            limit,
            !filter.has_selectors(),
            &|m| filter.matches(m),
        )
        .map(|mut page| {
            crate::conversion::serve_all(def, &mut page.items);
            page
        })
        .map_err(|e| match e {
            ReadError::Compacted(_) => expired_error(params),
            ReadError::Future(current) => {
                let rev = if let ReadAt::Revision(r) = at {
                    r
                } else {
                    current
                };
                ApiError::too_large(rev, current)
            }
        })
}

/// A 200 with `page` as a list of `def`, or of its objects' metadata, as `media` asks.
pub(super) fn list_response(
    def: &ResourceDef,
    page: &ListPage,
    media: Media,
) -> Result<Response<SimBody>, ApiError> {
    let body = match (media.encoding, media.metadata_only()) {
        (Encoding::Protobuf, partial) => {
            let (resource_version, token) = page_meta(page);
            let meta = protobuf::ListMeta {
                resource_version: &resource_version,
                continue_token: token.as_deref(),
                remaining: token.as_ref().and(page.remaining),
            };
            protobuf::list(def, meta, &page.items, partial)?
        }
        (Encoding::Json, true) => partial_list_body(page),
        (Encoding::Json, false) => list_body(def, page),
    };
    let mut response = json_response(200, body);
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static(media.content_type()),
    );
    Ok(response)
}

/// `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1",...}`: every item reduced
/// to its metadata, as the API server answers `as=PartialObjectMetadataList`.
fn partial_list_body(page: &ListPage) -> bytes::Bytes {
    let head = format!(
        r#"{{"kind":"PartialObjectMetadataList","apiVersion":"{META_API_VERSION}","metadata":{},"items":["#,
        list_meta(page)
    );
    let size = head.len()
        + 3
        + page
            .items
            .iter()
            .map(|r| r.partial_len() + 1)
            .sum::<usize>();
    let mut out = BytesMut::with_capacity(size);
    out.put_slice(head.as_bytes());
    for (i, item) in page.items.iter().enumerate() {
        if i > 0 {
            out.put_u8(b',');
        }
        item.put_partial(&mut out);
    }
    out.put_slice(b"]}");
    out.freeze()
}

/// A page's resourceVersion, and its continue token when more follows it.
fn page_meta(page: &ListPage) -> (String, Option<String>) {
    let token = page.next_start.as_ref().map(|start| {
        ContinueToken {
            rev: Some(page.rev),
            start: start.clone(),
        }
        .encode()
    });
    (page.rev.to_string(), token)
}

/// A list's `metadata`: resourceVersion, and the continue token of a page with more after it.
fn list_meta(page: &ListPage) -> String {
    let (resource_version, token) = page_meta(page);
    let mut meta = format!(r#"{{"resourceVersion":"{resource_version}""#);
    if let Some(token) = token {
        meta.push_str(&format!(r#","continue":"{token}""#));
        if let Some(n) = page.remaining {
            meta.push_str(&format!(r#","remainingItemCount":{n}"#));
        }
    }
    meta.push('}');
    meta
}

/// `{"kind":"<Kind>List",...,"items":[...]}` from stored bytes.
pub(crate) fn list_body(def: &ResourceDef, page: &ListPage) -> bytes::Bytes {
    let head = format!(
        r#"{{"kind":"{}List","apiVersion":"{}","metadata":{},"items":["#,
        def.kind,
        def.api_version(),
        list_meta(page)
    );
    let size = head.len()
        + 3
        + page
            .items
            .iter()
            .map(|r: &RecordRef| r.item_len_for(def) + 1)
            .sum::<usize>();
    let mut out = BytesMut::with_capacity(size);
    out.put_slice(head.as_bytes());
    for (i, r) in page.items.iter().enumerate() {
        if i > 0 {
            out.put_u8(b',');
        }
        r.put_item_for(def, &mut out);
    }
    out.put_slice(b"]}");
    out.freeze()
}
