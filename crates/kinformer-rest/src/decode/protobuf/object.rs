//! One enveloped object: its message found in the schema, decoded into a serde type.

use std::sync::Arc;

use kinformer_core::{Fields, Projection, Status};
use kinformer_protobuf::envelope;
use kinformer_protobuf::{Deserializer, MessageId, Schema, TypedDecoder};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::type_meta::WithTypeMeta;
use crate::decode::projection::decode_object;
use crate::error::{Error, Kind, Result};

/// The message of the last kind looked up: a watch stream's events are all of one kind, and two
/// short comparisons cost less than hashing both names into the schema's tables per event.
#[derive(Default)]
pub(super) struct LastKind(Option<(Box<str>, Box<str>, MessageId)>);

impl LastKind {
    /// [`Schema::message_for`], answered from the last lookup when the names are the same.
    pub(super) fn message_for(
        &mut self,
        schema: &Schema,
        api_version: &str,
        kind: &str,
    ) -> kinformer_protobuf::Result<MessageId> {
        if let Some((last_version, last_kind, message)) = &self.0
            && **last_kind == *kind
            && **last_version == *api_version
        {
            return Ok(*message);
        }
        let message = schema.message_for(api_version, kind)?;
        self.0 = Some((api_version.into(), kind.into(), message));
        Ok(message)
    }
}

/// Decodes the message `bytes` of type `message` into `K`, through `projection` (whole without
/// one), with `apiVersion` and `kind` in front when given, as the JSON form of a watched or
/// fetched object has them.
pub(super) fn decode_message<'de, K: Deserialize<'de>>(
    schema: &Schema,
    message: MessageId,
    bytes: &'de [u8],
    projection: Option<&Projection>,
    type_meta: Option<(&'de str, &'de str)>,
) -> kinformer_protobuf::Result<K> {
    let de = Deserializer::new(schema, message, bytes);
    // A message with fields of these names (none built in) keeps its own.
    let has_own = || {
        schema[message].field_named("kind").is_some()
            || schema[message].field_named("apiVersion").is_some()
    };
    match type_meta {
        Some((api_version, kind)) if !has_own() => {
            decode_object(projection, WithTypeMeta::new(de, api_version, kind))
        }
        _ => decode_object(projection, de),
    }
}

/// How one decoder's objects become `K`, as the [`Fields`] it decodes say: by the generated
/// typed decoder when `K` has one and the fields are ones it serves ([`Fields::All`],
/// [`Fields::WithoutManagedFields`]: [`TypedDecoder::new`] decides), through serde and the
/// fields' projection otherwise (custom types, metadata-only, [`Fields::Projected`]).
pub(super) struct Objects<K> {
    fields: Fields,
    /// What the serde path decodes through: the fields' projection.
    projection: Option<Arc<Projection>>,
    typed: Option<TypedDecoder<K>>,
}

impl<K> Objects<K> {
    /// The fields each object is decoded with.
    pub(super) fn fields(&self) -> &Fields {
        &self.fields
    }
}

/// Whether protobuf objects of `K` decoded with `fields` come exactly sized (each list
/// allocated at its length, as the generated typed decoder builds them), so an exact copy of
/// them would copy for nothing: true when the typed decoder serves them
/// ([`TypedDecoder::new`]). JSON and the serde path leave lists with spare capacity.
///
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_core::{Fields, Projection};
/// use kinformer_rest::decoders::protobuf_decodes_exactly_sized;
///
/// assert!(protobuf_decodes_exactly_sized::<Pod>(&Fields::WithoutManagedFields));
/// let narrow = Fields::projected(Projection::keep(["status.phase"])?);
/// assert!(!protobuf_decodes_exactly_sized::<Pod>(&narrow));
/// # Ok::<(), kinformer_core::ProjectionError>(())
/// ```
pub fn protobuf_decodes_exactly_sized<K: 'static>(fields: &Fields) -> bool {
    TypedDecoder::<K>::new(fields).is_some()
}

impl<K: DeserializeOwned + 'static> Objects<K> {
    pub(super) fn new(fields: Fields) -> Self {
        Self {
            typed: TypedDecoder::new(&fields),
            projection: fields.projection(),
            fields,
        }
    }

    /// Decodes the message `bytes` of type `message` (see [`decode_message`]).
    pub(super) fn decode(
        &self,
        schema: &Schema,
        message: MessageId,
        bytes: &[u8],
        type_meta: Option<(&str, &str)>,
    ) -> kinformer_protobuf::Result<Arc<K>> {
        match self.typed {
            Some(typed) if typed.message() == message => typed.decode_shared(bytes),
            _ => decode_message(
                schema,
                message,
                bytes,
                self.projection.as_deref(),
                type_meta,
            )
            .map(Arc::new),
        }
    }
}

fn malformed(what: &str) -> Error {
    Error::new(
        Kind::Decode,
        format!("cannot decode the protobuf response body: {what}"),
    )
}

/// Decodes a whole protobuf body (`k8s\0` and a `runtime.Unknown`) into `T`, as `into` does with
/// a JSON body.
pub(crate) fn decode_body<T: DeserializeOwned>(schema: &Schema, body: &[u8]) -> Result<T> {
    let unknown =
        envelope::decode(body).map_err(|e| malformed("not a protobuf envelope").with_source(e))?;
    unknown
        .check_plain()
        .map_err(|e| malformed("not a plain object").with_source(e))?;
    let message = schema
        .message_for(unknown.api_version, unknown.kind)
        .map_err(|e| malformed("an unknown kind").with_source(e))?;
    let type_meta = Some((unknown.api_version, unknown.kind));
    decode_message(schema, message, unknown.raw, None, type_meta)
        .map_err(|e| malformed(unknown.kind).with_source(e))
}

/// The `Status` of an error response in protobuf, if it is one.
pub(crate) fn status_from_body(schema: &Schema, body: &[u8]) -> Option<Status> {
    let unknown = envelope::decode(body).ok()?;
    unknown.check_plain().ok()?;
    if unknown.kind != "Status" {
        return None;
    }
    let message = schema.message_for(unknown.api_version, unknown.kind).ok()?;
    decode_message(schema, message, unknown.raw, None, None).ok()
}
