//! The sim's protobuf answers (`application/vnd.kubernetes.protobuf`), as kube-apiserver writes
//! them: every body is `k8s\0` and a `runtime.Unknown` naming the apiVersion and kind of its
//! `raw` message; a list's message is its `ListMeta` (field 1) and its items (field 2); a watch
//! is a stream of frames, a 4-byte big-endian length and a `WatchEvent` whose object is such a
//! body. Objects come from each revision's stored protobuf form, so answers only copy bytes;
//! the small synthetic objects (bookmarks, Status) are encoded from their JSON. Request bodies
//! in protobuf are decoded here too.

use bytes::Bytes;
use kinformer_protobuf::{MessageId, Schema, envelope, wire};
use serde_json::{Map, Value};

use crate::resource::ResourceDef;
use crate::status::ApiError;
use crate::store::Record;

/// The metadata-only forms' apiVersion.
const META_API_VERSION: &str = "meta.k8s.io/v1";
/// `Status`, a meta.k8s.io/v1 message that goes out as `v1` (as it does in JSON: the API server
/// writes its unversioned types with that group version).
const STATUS: &str = "k8s.io.apimachinery.pkg.apis.meta.v1.Status";
/// The message of a list's `metadata`.
const LIST_META: &str = "k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta";

/// A list's `metadata`: what page it is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ListMeta<'a> {
    pub(crate) resource_version: &'a str,
    pub(crate) continue_token: Option<&'a str>,
    pub(crate) remaining: Option<u64>,
}

/// The apiVersion and kind of `def`'s objects in this form.
fn type_of(def: &ResourceDef, partial: bool) -> (String, &str) {
    if partial {
        (META_API_VERSION.to_owned(), "PartialObjectMetadata")
    } else {
        (def.api_version(), &def.kind)
    }
}

/// The message of `record` (of `def`) in this form: its object or its `PartialObjectMetadata`.
fn message<'r>(def: &ResourceDef, record: &'r Record, partial: bool) -> Result<&'r [u8], ApiError> {
    let proto = record.proto(def).map_err(|e| {
        ApiError::internal(format!("the object cannot be encoded as protobuf: {e}"))
    })?;
    if partial {
        return Ok(proto.partial());
    }
    // Negotiation offers protobuf only for types that have it.
    proto
        .object()
        .ok_or_else(|| ApiError::internal("the resource has no protobuf form"))
}

/// Appends `k8s\0` and a `runtime.Unknown` whose `raw` is `len` bytes that `put_raw` writes.
fn put_envelope(
    out: &mut Vec<u8>,
    api_version: &str,
    kind: &str,
    len: usize,
    put_raw: impl FnOnce(&mut Vec<u8>),
) {
    out.extend_from_slice(envelope::MAGIC);
    let _ = wire::put_nested::<()>(out, 1, |meta| {
        wire::put_bytes(meta, 1, api_version.as_bytes());
        wire::put_bytes(meta, 2, kind.as_bytes());
        Ok(())
    });
    wire::put_tag(out, 2, wire::LEN);
    wire::put_varint(out, len as u64);
    put_raw(out);
    wire::put_bytes(out, 3, b"");
    wire::put_bytes(out, 4, b"");
}

/// The bytes a length-delimited field of `len` bytes takes.
fn field_len(len: usize) -> usize {
    let mut varint = 1;
    let mut rest = len >> 7;
    while rest > 0 {
        varint += 1;
        rest >>= 7;
    }
    1 + varint + len
}

/// One object's body: the stored object, or its `PartialObjectMetadata`.
pub(crate) fn object(def: &ResourceDef, record: &Record, partial: bool) -> Result<Bytes, ApiError> {
    let raw = message(def, record, partial)?;
    let (api_version, kind) = type_of(def, partial);
    let mut out = Vec::with_capacity(raw.len() + 64);
    envelope::encode(&api_version, kind, raw, &mut out);
    Ok(Bytes::from(out))
}

/// An object of `def` that is not stored (a review's answer), in its envelope.
pub(crate) fn value(def: &ResourceDef, value: &Value) -> Result<Bytes, ApiError> {
    let schema = Schema::kubernetes();
    let id = schema
        .message_for(&def.api_version(), &def.kind)
        .map_err(internal)?;
    let raw = encode_as(schema, id, value)?;
    let mut out = Vec::with_capacity(raw.len() + 64);
    envelope::encode(&def.api_version(), &def.kind, &raw, &mut out);
    Ok(Bytes::from(out))
}

/// A list's body: `<Kind>List`, or `PartialObjectMetadataList`, of `items`.
pub(crate) fn list(
    def: &ResourceDef,
    meta: ListMeta<'_>,
    items: &[impl AsRef<Record>],
    partial: bool,
) -> Result<Bytes, ApiError> {
    let raws = items
        .iter()
        .map(|r| message(def, r.as_ref(), partial))
        .collect::<Result<Vec<_>, _>>()?;
    let list_meta = list_meta(meta)?;
    let len = field_len(list_meta.len()) + raws.iter().map(|r| field_len(r.len())).sum::<usize>();
    let (api_version, kind) = if partial {
        (
            META_API_VERSION.to_owned(),
            "PartialObjectMetadataList".to_owned(),
        )
    } else {
        (def.api_version(), format!("{}List", def.kind))
    };
    let mut out = Vec::with_capacity(len + 64);
    put_envelope(&mut out, &api_version, &kind, len, |out| {
        wire::put_bytes(out, 1, &list_meta);
        for raw in raws {
            wire::put_bytes(out, 2, raw);
        }
    });
    Ok(Bytes::from(out))
}

/// A `ListMeta` message.
fn list_meta(meta: ListMeta<'_>) -> Result<Vec<u8>, ApiError> {
    let mut value = Map::new();
    value.insert("resourceVersion".into(), meta.resource_version.into());
    if let Some(token) = meta.continue_token {
        value.insert("continue".into(), token.into());
    }
    if let Some(n) = meta.remaining {
        value.insert("remainingItemCount".into(), n.into());
    }
    encode_named(LIST_META, &Value::Object(value))
}

/// Encodes `value` as the message named `name`.
fn encode_named(name: &str, value: &Value) -> Result<Vec<u8>, ApiError> {
    let schema = Schema::kubernetes();
    let id = schema.message(name).map_err(internal)?;
    encode_as(schema, id, value)
}

fn encode_as(schema: &Schema, id: MessageId, value: &Value) -> Result<Vec<u8>, ApiError> {
    kinformer_protobuf::to_vec(schema, id, value).map_err(internal)
}

fn internal(e: kinformer_protobuf::Error) -> ApiError {
    ApiError::internal(format!("protobuf encoding: {e}"))
}

/// One watch frame: `event_type` with `record` in this form.
pub(crate) fn event(
    def: &ResourceDef,
    record: &Record,
    event_type: &str,
    partial: bool,
) -> Result<Bytes, ApiError> {
    let raw = message(def, record, partial)?;
    let (api_version, kind) = type_of(def, partial);
    Ok(frame(event_type, &api_version, kind, raw))
}

/// A frame of `event_type` whose object is `raw`, a message of `api_version` and `kind`.
fn frame(event_type: &str, api_version: &str, kind: &str, raw: &[u8]) -> Bytes {
    let mut object = Vec::with_capacity(raw.len() + 64);
    envelope::encode(api_version, kind, raw, &mut object);
    let mut out = Vec::with_capacity(object.len() + 32);
    envelope::encode_watch_frame(event_type, &object, &mut out);
    Bytes::from(out)
}

/// A BOOKMARK frame: `bookmark`, the JSON object a JSON watch would send (the watched kind with
/// only `metadata.resourceVersion` and maybe the initial-events-end annotation), in this form.
pub(crate) fn bookmark(
    def: &ResourceDef,
    bookmark: &Value,
    partial: bool,
) -> Result<Bytes, ApiError> {
    let (api_version, kind) = type_of(def, partial);
    let raw = if partial {
        let metadata = bookmark.get("metadata").cloned().unwrap_or_default();
        let mut wrapped = Map::new();
        wrapped.insert("metadata".into(), metadata);
        let schema = Schema::kubernetes();
        let id = schema
            .message_for(META_API_VERSION, "PartialObjectMetadata")
            .map_err(internal)?;
        encode_as(schema, id, &Value::Object(wrapped))?
    } else {
        let schema = Schema::kubernetes();
        let id = schema.message_for(&api_version, kind).map_err(internal)?;
        encode_as(schema, id, bookmark)?
    };
    Ok(frame("BOOKMARK", &api_version, kind, &raw))
}

/// A `Status` (its JSON form) as a body.
pub(crate) fn status(status: &Value) -> Bytes {
    let raw = encode_named(STATUS, status).unwrap_or_default();
    let mut out = Vec::with_capacity(raw.len() + 32);
    envelope::encode("v1", "Status", &raw, &mut out);
    Bytes::from(out)
}

/// An ERROR frame carrying a `Status` (its JSON form).
pub(crate) fn error_event(status: &Value) -> Bytes {
    let raw = encode_named(STATUS, status).unwrap_or_default();
    frame("ERROR", "v1", "Status", &raw)
}

/// A frame that is not a `WatchEvent`, for the malformed-stream faults: its `type` claims more
/// bytes than the frame holds.
pub(crate) const MALFORMED: &[u8] = b"\x00\x00\x00\x05\x0a\x10MOD";

/// Decodes a protobuf request body (an object of `def`, in its envelope) into its JSON form, as
/// the JSON handlers take it.
pub(crate) fn decode_object(
    def: &ResourceDef,
    body: &[u8],
) -> Result<Map<String, Value>, ApiError> {
    if !crate::http::has_protobuf(def) {
        return Err(ApiError::new(
            415,
            "UnsupportedMediaType",
            "the body of the request was in an unknown format - accepted media types include: application/json",
        ));
    }
    decode_kind(&def.api_version(), &def.kind, body)
}

/// Decodes a protobuf request body holding a `kind` of `api_version` (what a subresource
/// takes: a `TokenRequest`, an `Eviction`) into its JSON form.
pub(crate) fn decode_kind(
    api_version: &str,
    kind: &str,
    body: &[u8],
) -> Result<Map<String, Value>, ApiError> {
    let bad = |e: kinformer_protobuf::Error| {
        ApiError::bad_request(format!(
            "the request body is not a Kubernetes protobuf object: {e}"
        ))
    };
    let unknown = envelope::decode(body).map_err(bad)?;
    if (unknown.api_version, unknown.kind) != (api_version, kind) {
        return Err(ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {kind}): {}, Kind={}",
            unknown.api_version, unknown.kind
        )));
    }
    let schema = Schema::kubernetes();
    let id = schema
        .message_for(unknown.api_version, unknown.kind)
        .map_err(bad)?;
    let mut object: Map<String, Value> =
        kinformer_protobuf::from_slice(schema, id, unknown.raw).map_err(bad)?;
    object.insert("apiVersion".into(), api_version.into());
    object.insert("kind".into(), kind.into());
    Ok(object)
}
