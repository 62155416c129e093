//! The envelope of a protobuf list body: its `runtime.Unknown` fields, and the list's messages
//! its `typeMeta` names.

use kinformer_protobuf::envelope::Unknown;
use kinformer_protobuf::wire::{Reader, WireValue};
use kinformer_protobuf::{FieldType, MessageId, Schema};

use super::malformed;
use crate::decode::protobuf::object::checked;
use crate::error::Result;

/// `runtime.Unknown`'s fields.
pub(super) const TYPE_META: u32 = 1;
pub(super) const RAW: u32 = 2;
pub(super) const CONTENT_ENCODING: u32 = 3;
pub(super) const CONTENT_TYPE: u32 = 4;

/// What the list message's fields are: found by their JSON names, `items` (2 in every list but
/// `meta.k8s.io/v1beta1`'s `PartialObjectMetadataList`, where it is 1) and `metadata`.
#[derive(Clone, Copy, Debug)]
pub(super) struct ListTypes {
    /// The number of `items`.
    pub(super) items: u32,
    /// The message of each item.
    pub(super) item: MessageId,
    /// `metadata`'s number and message, when the list has one.
    pub(super) meta: Option<(u32, MessageId)>,
}

impl ListTypes {
    /// The messages of the list whose `TypeMeta` message is `type_meta`.
    pub(super) fn of(schema: &Schema, type_meta: &[u8]) -> Result<Self> {
        let (api_version, kind) = read_type_meta(type_meta)?;
        let list = schema
            .message_for(api_version, kind)
            .map_err(|e| malformed("an unknown kind").with_source(e))?;
        let message = &schema[list];
        let (items, item) = match message.field_named("items") {
            Some(field) if field.repeated => match field.ty {
                FieldType::Message(item) => (field.number, item),
                _ => return Err(malformed(format!("{kind} is not a list"))),
            },
            _ => return Err(malformed(format!("{kind} is not a list"))),
        };
        let meta = message
            .field_named("metadata")
            .and_then(|field| match field.ty {
                FieldType::Message(meta) => Some((field.number, meta)),
                _ => None,
            });
        Ok(Self { items, item, meta })
    }
}

/// Checks the envelope's `contentEncoding` or `contentType` (field `number`): the list must be
/// plain protobuf.
pub(super) fn check_encoding(number: u32, value: &[u8]) -> Result<()> {
    let text = std::str::from_utf8(value).map_err(|_| malformed("the envelope is not UTF-8"))?;
    let unknown = if number == CONTENT_ENCODING {
        Unknown {
            content_encoding: text,
            ..Unknown::default()
        }
    } else {
        Unknown {
            content_type: text,
            ..Unknown::default()
        }
    };
    checked(unknown).map(|_| ()).map_err(malformed)
}

/// The apiVersion (1) and kind (2) of a `TypeMeta` message.
fn read_type_meta(bytes: &[u8]) -> Result<(&str, &str)> {
    let mut reader = Reader::new(bytes);
    let (mut api_version, mut kind) = ("", "");
    while let Some((number, value)) = reader
        .field()
        .map_err(|e| malformed("the envelope's typeMeta").with_source(e))?
    {
        let slot = match number {
            1 => &mut api_version,
            2 => &mut kind,
            _ => continue,
        };
        let WireValue::Bytes(text) = value else {
            return Err(malformed("the envelope's typeMeta"));
        };
        *slot = std::str::from_utf8(text)
            .map_err(|_| malformed("the envelope's typeMeta is not UTF-8"))?;
    }
    Ok((api_version, kind))
}
