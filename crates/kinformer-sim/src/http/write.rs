//! GET of one object, and the writes: POST, PUT, PATCH (every patch type and server-side apply,
//! in [`patch`]) and DELETE, through the main resource or its `status` subresource, with
//! `dryRun`, preconditions and managedFields as the API server keeps them.

pub(super) mod options;
mod patch;

use std::sync::Arc;

use bytes::Bytes;
use http::{Request, Response};
use serde_json::{Map, Value};

use super::Target;
use super::media::{Encoding, Form, Media, has_protobuf};
use crate::apply::{self, Writer};
use crate::body::SimBody;
use crate::conversion;
use crate::protobuf;
use crate::resource::ResourceDef;
use crate::shared::Shared;
use crate::status::{ApiError, json_response};
use crate::store::{Precondition, Record, key_of};
use crate::{validation, write_rules};
use options::WriteOptions;

pub(super) use patch::{parse_patch, patch};

pub(super) fn parse_object(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
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

/// A body naming another object than the URL: 400, worded as the API server words it.
pub(super) fn check_name(obj: &Map<String, Value>, name: &str) -> Result<(), ApiError> {
    match obj
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
    {
        Some(body_name) if !body_name.is_empty() && body_name != name => {
            Err(ApiError::bad_request(format!(
                "the name of the object ({body_name}) does not match the name on the URL ({name})"
            )))
        }
        _ => Ok(()),
    }
}

pub(super) fn writer(def: &ResourceDef, target: &Target, opts: &WriteOptions) -> Writer {
    Writer {
        manager: opts.manager.clone(),
        subresource: target.subresource.clone().unwrap_or_default(),
        api_version: def.api_version(),
    }
}

pub(super) fn as_map(v: Value) -> Result<Map<String, Value>, ApiError> {
    match v {
        Value::Object(m) => Ok(m),
        _ => Err(ApiError::bad_request("the result is not a JSON object")),
    }
}

pub(super) fn get(
    shared: &Shared,
    target: &Target,
    media: Media,
) -> Result<Response<SimBody>, ApiError> {
    let def = &target.def;
    let name = target.name.as_deref().unwrap_or_default();
    let media = media.check(false)?;
    let key = key_of(def, target.namespace.as_deref().unwrap_or_default(), name);
    let record = shared
        .store
        .get(def, &key)
        .ok_or_else(|| ApiError::not_found(def, name))?;
    object_response(200, def, &record, media)
}

/// A response with `record`'s object, or its metadata, in the negotiated encoding.
pub(super) fn object_response(
    code: u16,
    def: &ResourceDef,
    record: &Record,
    media: Media,
) -> Result<Response<SimBody>, ApiError> {
    let converted = conversion::served(def, record);
    let record = converted.as_ref().unwrap_or(record);
    let body = match (media.encoding, media.metadata_only()) {
        (Encoding::Protobuf, partial) => protobuf::object(def, record, partial)?,
        (Encoding::Json, true) => record.partial(),
        (Encoding::Json, false) => record.object_for(def),
    };
    let mut response = json_response(code, body);
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static(media.content_type()),
    );
    Ok(response)
}

/// A write's answer: the object written, in the negotiated encoding (writes answer objects
/// whole, whatever metadata-only form `Accept` names).
pub(super) fn written(
    code: u16,
    def: &ResourceDef,
    record: &Record,
    media: Media,
) -> Result<Response<SimBody>, ApiError> {
    let media = Media {
        form: Form::Object,
        encoding: if has_protobuf(def) {
            media.encoding
        } else {
            Encoding::Json
        },
    };
    object_response(code, def, record, media)
}

/// A response with `obj` (an object of `def` that is not stored) in the negotiated encoding.
pub(super) fn written_json(
    code: u16,
    def: &ResourceDef,
    obj: Value,
    media: Media,
) -> Result<Response<SimBody>, ApiError> {
    let (body, content_type) = if media.encoding == Encoding::Protobuf && has_protobuf(def) {
        (protobuf::value(def, &obj)?, kinformer_protobuf::MEDIA_TYPE)
    } else {
        (Bytes::from(obj.to_string()), "application/json")
    };
    let mut response = json_response(code, body);
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static(content_type),
    );
    Ok(response)
}

/// `resp` with a `Warning` header for each of `warnings`, as kube-apiserver writes them
/// (code 299, no agent, the text quoted).
pub(super) fn with_warnings(mut resp: Response<SimBody>, warnings: &[String]) -> Response<SimBody> {
    for warning in warnings {
        let quoted = warning.replace('\\', "\\\\").replace('"', "\\\"");
        if let Ok(value) = http::HeaderValue::from_str(&format!("299 - \"{quoted}\"")) {
            resp.headers_mut().append(http::header::WARNING, value);
        }
    }
    resp
}

/// Whether the request's body is Kubernetes protobuf, as its `Content-Type` says.
pub(super) fn sends_protobuf(req: &Request<Bytes>) -> bool {
    req.headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim() == kinformer_protobuf::MEDIA_TYPE)
}

/// A create's or update's body: JSON, or an object in protobuf (kubectl sends built-in
/// types so) when `Content-Type` says it is.
pub(super) fn parse_body(
    def: &ResourceDef,
    req: &Request<Bytes>,
) -> Result<Map<String, Value>, ApiError> {
    if sends_protobuf(req) {
        protobuf::decode_object(def, req.body())
    } else {
        parse_object(req.body())
    }
}

pub(super) fn create(
    shared: &Shared,
    target: &Target,
    req: &Request<Bytes>,
    media: Media,
) -> Result<Response<SimBody>, ApiError> {
    let def = &target.def;
    let opts = WriteOptions::parse(req)?;
    let obj = parse_body(def, req)?;
    let ns = namespace_for(def, target.namespace.as_deref(), &obj)?;
    let name = obj
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    // As kube-apiserver: the body is decoded before admission sees it, and admitted before
    // the strategy validates it.
    validation::decode(def, &obj).map_err(|c| validation::undecodable_body(def, &c))?;
    crate::namespace_admission::admit_create(shared, def, &ns, name)?;
    let mut obj = Value::Object(obj);
    // What a create may not set goes first: a status dropped is not validated.
    write_rules::restrict_create(def, &mut obj);
    let mut obj = as_map(obj)?;
    let warnings = validation::admit(
        def,
        None,
        &mut obj,
        target.subresource.as_deref(),
        opts.field_validation,
    )?;
    let mut obj = Value::Object(obj);
    apply::record_update(None, &mut obj, &writer(def, target, &opts));
    let obj = conversion::stored(def, None, None, as_map(obj)?, None);
    let record = shared
        .store
        .create_with(def.storage(), Some(&ns), obj, opts.dry_run)?;
    written(201, def, &record, media).map(|r| with_warnings(r, &warnings))
}

pub(super) fn update(
    shared: &Shared,
    target: &Target,
    req: &Request<Bytes>,
    media: Media,
) -> Result<Response<SimBody>, ApiError> {
    let def = &target.def;
    let name = target.name.as_deref().unwrap_or_default();
    let opts = WriteOptions::parse(req)?;
    let obj = parse_body(def, req)?;
    let ns = namespace_for(def, target.namespace.as_deref(), &obj)?;
    check_name(&obj, name)?;
    validation::decode(def, &obj).map_err(|c| validation::undecodable_body(def, &c))?;
    let pre = match obj
        .get("metadata")
        .and_then(|m| m.get("resourceVersion"))
        .and_then(Value::as_str)
    {
        Some(rv) if !rv.is_empty() => Precondition::Revision(
            rv.parse()
                .map_err(|_| ApiError::bad_request(format!("invalid resource version: {rv}")))?,
        ),
        // Custom resources do not allow unconditional updates.
        _ if !def.builtin => return Err(options::resource_version_required(def, name)),
        _ => Precondition::None,
    };
    let writer = writer(def, target, &opts);
    let sub = target.subresource.as_deref();
    let mut warnings = Vec::new();
    let record =
        shared
            .store
            .modify_with(def.storage(), &ns, name, pre, opts.dry_run, |stored| {
                let (old, stored) = conversion::served_with_stored(def, stored);
                let mut new = Value::Object(obj.clone());
                let sent = stored.is_some().then(|| new.clone());
                write_rules::restrict(def, sub, &old, &mut new);
                apply::record_update(Some(&old), &mut new, &writer);
                let mut new = as_map(new)?;
                warnings =
                    validation::admit(def, Some(&old), &mut new, sub, opts.field_validation)?;
                Ok(conversion::stored(
                    def,
                    sub,
                    stored.as_ref(),
                    new,
                    sent.as_ref(),
                ))
            })?;
    written(200, def, &record, media).map(|r| with_warnings(r, &warnings))
}

pub(super) fn delete(
    shared: &Shared,
    target: &Target,
    req: &Request<Bytes>,
    media: Media,
) -> Result<Response<SimBody>, ApiError> {
    let def: &Arc<ResourceDef> = &target.def;
    let name = target.name.as_deref().unwrap_or_default();
    let opts = options::delete_options(req)?;
    crate::namespace_admission::admit_delete(def, name)?;
    if def.is_crd() && !opts.dry_run {
        crate::crd::prepare_delete(shared, def, name)?;
    }
    let record = shared.store.delete_with(
        def.storage(),
        target.namespace.as_deref().unwrap_or_default(),
        name,
        &opts,
    )?;
    written(200, def, &record, media)
}
