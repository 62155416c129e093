//! GET of one object, and the writes: POST, PUT, PATCH (merge; strategic treated as merge), DELETE.

use std::sync::Arc;

use http::Response;
use serde_json::{Map, Value};

use super::media::Media;
use crate::body::SimBody;
use crate::resource::ResourceDef;
use crate::shared::Shared;
use crate::status::{ApiError, json_response};
use crate::store::key_of;

fn parse_object(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(ApiError::bad_request(
            "the request body must be a JSON object",
        )),
        Err(e) => Err(ApiError::bad_request(format!(
            "the request body is not valid JSON: {e}"
        ))),
    }
}

/// The namespace a write lands in: the path's (a body naming another one is a 400, as on the apiserver).
fn namespace_for(
    def: &ResourceDef,
    path_ns: Option<&str>,
    obj: &Map<String, Value>,
) -> Result<String, ApiError> {
    if !def.namespaced {
        return Ok(String::new());
    }
    let body_ns = obj
        .get("metadata")
        .and_then(|m| m.get("namespace"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty());
    match (path_ns, body_ns) {
        (Some(p), Some(b)) if p != b => Err(ApiError::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        )),
        (Some(p), _) => Ok(p.to_owned()),
        (None, _) => Err(ApiError::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )),
    }
}

pub(super) fn get(
    shared: &Shared,
    def: &Arc<ResourceDef>,
    ns: Option<&str>,
    name: &str,
    media: Media,
) -> Result<Response<SimBody>, ApiError> {
    let media = media.check(false)?;
    let key = key_of(def, ns.unwrap_or_default(), name);
    let record = shared
        .store
        .get(def, &key)
        .ok_or_else(|| ApiError::not_found(def, name))?;
    let body = match media {
        Media::PartialObject => record.partial().clone(),
        _ => record.object(),
    };
    let mut response = json_response(200, body);
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static(media.content_type()),
    );
    Ok(response)
}

pub(super) fn create(
    shared: &Shared,
    def: &Arc<ResourceDef>,
    ns: Option<&str>,
    body: &[u8],
) -> Result<Response<SimBody>, ApiError> {
    let obj = parse_object(body)?;
    let ns = namespace_for(def, ns, &obj)?;
    let record = shared.store.create(def, Some(&ns), obj)?;
    Ok(json_response(201, record.object()))
}

pub(super) fn update(
    shared: &Shared,
    def: &Arc<ResourceDef>,
    ns: Option<&str>,
    name: &str,
    body: &[u8],
) -> Result<Response<SimBody>, ApiError> {
    let obj = parse_object(body)?;
    let ns = namespace_for(def, ns, &obj)?;
    if let Some(body_name) = obj
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        && body_name != name
    {
        return Err(ApiError::bad_request(
            "the name of the object does not match the name on the URL",
        ));
    }
    let record = shared.store.update(def, &ns, name, obj)?;
    Ok(json_response(200, record.object()))
}

pub(super) fn patch(
    shared: &Shared,
    def: &Arc<ResourceDef>,
    ns: Option<&str>,
    name: &str,
    body: &[u8],
) -> Result<Response<SimBody>, ApiError> {
    let patch: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("the patch is not valid JSON: {e}")))?;
    if patch.is_array() {
        return Err(ApiError::new(
            415,
            "UnsupportedMediaType",
            "json patch is not supported by the simulator; use a merge patch",
        ));
    }
    let record = shared
        .store
        .patch(def, ns.unwrap_or_default(), name, &patch)?;
    Ok(json_response(200, record.object()))
}

pub(super) fn delete(
    shared: &Shared,
    def: &Arc<ResourceDef>,
    ns: Option<&str>,
    name: &str,
) -> Result<Response<SimBody>, ApiError> {
    let record = shared.store.delete(def, ns.unwrap_or_default(), name)?;
    Ok(json_response(200, record.object()))
}
