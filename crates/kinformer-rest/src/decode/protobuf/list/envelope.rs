//! The envelope of a protobuf list body: the list's messages its `typeMeta` names. The
//! envelope's own fields are read by kinformer-protobuf's one `runtime.Unknown` reader
//! ([`Unknown::read_field`]); only `raw` is streamed here.

use kinformer_protobuf::envelope::Unknown;
use kinformer_protobuf::wire::WireValue;
use kinformer_protobuf::{FieldType, MessageId, Schema};

use super::malformed;
use crate::error::Result;

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
    /// The messages of the list of `api_version` and `kind`.
    fn of(schema: &Schema, api_version: &str, kind: &str) -> Result<Self> {
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

/// Reads the envelope's field `number` (any but `raw`), whole in `value`: the list's types when
/// it is `typeMeta`, `None` for the other fields, which must say the list is plain protobuf.
pub(super) fn read_field(schema: &Schema, number: u32, value: &[u8]) -> Result<Option<ListTypes>> {
    let mut unknown = Unknown::default();
    unknown
        .read_field(number, WireValue::Bytes(value))
        .map_err(|e| malformed("the envelope").with_source(e))?;
    unknown
        .check_plain()
        .map_err(|e| malformed("the envelope").with_source(e))?;
    if number != Unknown::TYPE_META {
        return Ok(None);
    }
    ListTypes::of(schema, unknown.api_version, unknown.kind).map(Some)
}
