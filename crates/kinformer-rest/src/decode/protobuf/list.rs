//! [`ProtobufListCodec`]: a protobuf list body, for the one [`ListDecoder`](crate::decoders::ListDecoder) driver
//! (`ListDecoder<K, ProtobufListCodec<K>>`).
//!
//! The body is `k8s\0`, then a `runtime.Unknown`: `typeMeta` (the list's apiVersion and kind,
//! which name its message and so its items' message), then `raw`, the list message, whose
//! fields are `metadata` (1, a `ListMeta`) and one `items` entry (2) per object. Every field
//! says its length up front, so an item is decoded once all its bytes have arrived, straight from
//! the chunk when it lies in one; a field longer than the item limit is refused from its header,
//! before any of it is buffered, and fields nobody reads are skipped without being buffered.

use std::fmt;

use kinformer_core::{Fields, ObjectList};
use kinformer_protobuf::envelope::{MAGIC, Unknown};
use kinformer_protobuf::{MessageId, Schema};
use serde::de::DeserializeOwned;

use super::object::Objects;
use super::wire::{Header, read_header};
use crate::decode::limits::too_large;
use crate::decode::list::ListMeta;
use crate::decode::list_stream::{ListCodec, item_too_large};
use crate::error::{Error, Kind, Result};

mod envelope;

use envelope::ListTypes;

/// The longest field header: a tag and a length, each a varint of at most 10 bytes.
const MAX_HEADER: usize = 20;

/// The protobuf codec of a [`ListDecoder`](crate::decoders::ListDecoder): the envelope and the list message's fields walked
/// from their headers (see the module docs), each item decoded as the fields say: by the
/// generated typed decoder for k8s-openapi's types with [`Fields::All`] or
/// [`Fields::WithoutManagedFields`], through serde and the projection otherwise. Built-in types
/// only: the list's messages come from the built-in API's schema.
///
/// A protobuf list body is decoded by `ListDecoder<K, ProtobufListCodec<K>>`, the protobuf twin
/// of the JSON one: the same limits, the same projection, the same list for the same objects.
///
/// # Examples
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_protobuf::{Schema, envelope, to_vec};
/// use kinformer_rest::decoders::{ListDecoder, ProtobufListCodec};
///
/// let schema = Schema::kubernetes();
/// let list = serde_json::json!({"metadata": {"resourceVersion": "9"}, "items": [{"metadata": {"name": "a"}}]});
/// let raw = to_vec(schema, schema.message_for("v1", "ConfigMapList")?, &list)?;
/// let mut body = Vec::new();
/// envelope::encode("v1", "ConfigMapList", &raw, &mut body);
///
/// let mut decoder = ListDecoder::<ConfigMap, ProtobufListCodec<ConfigMap>>::new();
/// for chunk in body.chunks(5) {
///     decoder.decode(chunk)?;
/// }
/// let list = decoder.finish()?;
/// assert_eq!((list.resource_version.as_str(), list.items.len()), ("9", 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ProtobufListCodec<K> {
    schema: &'static Schema,
    phase: Phase,
    /// The list message's item and metadata messages, once the envelope named the list.
    types: Option<ListTypes>,
    objects: Objects<K>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Before the four magic bytes.
    Magic,
    /// Between fields of the envelope.
    Envelope,
    /// Inside the list message (`raw`), with `left` of its bytes still to come.
    List { left: u64 },
    /// Skipping `left` bytes of a field nobody reads; then back in the list with `list_left`
    /// bytes to come, or in the envelope.
    Skip { left: u64, list_left: Option<u64> },
}

fn malformed(what: impl Into<String>) -> Error {
    Error::new(
        Kind::Decode,
        format!("cannot decode the protobuf list body: {}", what.into()),
    )
}

/// How one step of the decode went.
enum Step {
    /// Consumed this many bytes; go on.
    Consumed(usize),
    /// More bytes are needed.
    Wait,
}

impl<K: DeserializeOwned + 'static> Default for ProtobufListCodec<K> {
    fn default() -> Self {
        Self {
            schema: Schema::kubernetes(),
            phase: Phase::Magic,
            types: None,
            objects: Objects::new(Fields::All),
        }
    }
}

impl<K: DeserializeOwned + 'static> ListCodec<K> for ProtobufListCodec<K> {
    /// The generated typed decoder serves all fields and all but managedFields, a projection
    /// goes through serde. Skipped fields cost nothing here: each is length-delimited, and
    /// jumped over.
    fn set_fields(&mut self, fields: Fields) {
        self.objects = Objects::new(fields);
    }

    /// The limit and a field's header: a longer field is refused from its header first.
    fn max_buffered(max_item: usize) -> usize {
        max_item.saturating_add(MAX_HEADER)
    }

    fn decode(&mut self, data: &[u8], max_item: usize, list: &mut ObjectList<K>) -> Result<usize> {
        let mut pos = 0;
        loop {
            let rest = &data[pos..];
            let step = match self.phase {
                Phase::Magic => self.magic(rest)?,
                Phase::Envelope if rest.is_empty() => Step::Wait,
                Phase::Envelope => self.envelope_field(rest, max_item, list)?,
                Phase::List { left: 0 } => {
                    self.phase = Phase::Envelope;
                    Step::Consumed(0)
                }
                Phase::List { left } => self.list_field(rest, left, max_item, list)?,
                Phase::Skip { left, .. } if left > 0 && rest.is_empty() => Step::Wait,
                Phase::Skip { left, list_left } => {
                    let n = usize::try_from(left).unwrap_or(usize::MAX).min(rest.len());
                    let left = left - n as u64;
                    self.phase = match (left, list_left) {
                        (0, Some(list_left)) => Phase::List { left: list_left },
                        (0, None) => Phase::Envelope,
                        (left, list_left) => Phase::Skip { left, list_left },
                    };
                    Step::Consumed(n)
                }
            };
            match step {
                Step::Consumed(n) => pos += n,
                Step::Wait => return Ok(pos),
            }
        }
    }

    /// The body ends between fields of the envelope, the list message's one among them.
    fn finish(&mut self, rest: &[u8], _max_item: usize, _list: &mut ObjectList<K>) -> Result<()> {
        if self.phase != Phase::Envelope || !rest.is_empty() {
            return Err(malformed("the body ended before the list did"));
        }
        Ok(())
    }
}

impl<K: DeserializeOwned + 'static> ProtobufListCodec<K> {
    fn magic(&mut self, rest: &[u8]) -> Result<Step> {
        let n = rest.len().min(MAGIC.len());
        if rest[..n] != MAGIC[..n] {
            return Err(malformed("no k8s\\0 prefix"));
        }
        if n < MAGIC.len() {
            return Ok(Step::Wait);
        }
        self.phase = Phase::Envelope;
        Ok(Step::Consumed(n))
    }

    /// The field of `rest`'s header, once it and (for a field that is read) its value are all
    /// there: the header and the value's bytes. `items` have been decoded before it.
    fn whole<'a>(
        &self,
        rest: &'a [u8],
        header: &Header,
        max_item: usize,
        items: usize,
    ) -> Result<Option<&'a [u8]>> {
        if header.len > max_item as u64 {
            let item_field = self.types.map(|t| t.items);
            if Some(header.number) == item_field && self.phase != Phase::Envelope {
                return Err(item_too_large(items, max_item));
            }
            let what = format!("field {} of the list body", header.number);
            return Err(too_large(&what, max_item));
        }
        // Bounded by the item limit just checked.
        let end = header.size + header.len as usize;
        Ok(rest.get(header.size..end))
    }

    fn envelope_field(
        &mut self,
        rest: &[u8],
        max_item: usize,
        list: &ObjectList<K>,
    ) -> Result<Step> {
        let Some(header) =
            read_header(rest).map_err(|e| malformed("the envelope").with_source(e))?
        else {
            return Ok(Step::Wait);
        };
        if !header.is_len() {
            return Ok(Step::Consumed(header.size));
        }
        match header.number {
            Unknown::RAW => {
                if self.types.is_none() {
                    return Err(malformed("the list's bytes came before its type"));
                }
                self.phase = Phase::List { left: header.len };
                Ok(Step::Consumed(header.size))
            }
            Unknown::TYPE_META | Unknown::CONTENT_ENCODING | Unknown::CONTENT_TYPE => {
                let Some(value) = self.whole(rest, &header, max_item, list.items.len())? else {
                    return Ok(Step::Wait);
                };
                if let Some(types) = envelope::read_field(self.schema, header.number, value)? {
                    self.types = Some(types);
                }
                Ok(Step::Consumed(header.size + value.len()))
            }
            _ => {
                self.phase = Phase::Skip {
                    left: header.len,
                    list_left: None,
                };
                Ok(Step::Consumed(header.size))
            }
        }
    }

    fn list_field(
        &mut self,
        rest: &[u8],
        left: u64,
        max_item: usize,
        list: &mut ObjectList<K>,
    ) -> Result<Step> {
        // Bounded by `left`, which fits: it is at most what is left of a u64 length.
        let window = &rest[..rest.len().min(usize::try_from(left).unwrap_or(usize::MAX))];
        let Some(header) = read_header(window).map_err(|e| malformed("the list").with_source(e))?
        else {
            if window.len() as u64 == left {
                return Err(malformed("a field header runs past the end of the list"));
            }
            return Ok(Step::Wait);
        };
        let total = header.size as u64 + header.len;
        if total > left {
            return Err(malformed("a field runs past the end of the list"));
        }
        let left = left - total;
        // Set whenever the list's bytes are read: `envelope_field` checks it.
        let Some(types) = self.types else {
            return Err(malformed("the list's bytes came before its type"));
        };
        let is_meta = types
            .meta
            .is_some_and(|(number, _)| number == header.number);
        let read = header.is_len() && (header.number == types.items || is_meta);
        if !read {
            self.phase = if header.len == 0 {
                Phase::List { left }
            } else {
                Phase::Skip {
                    left: header.len,
                    list_left: Some(left),
                }
            };
            return Ok(Step::Consumed(header.size));
        }
        let Some(value) = self.whole(window, &header, max_item, list.items.len())? else {
            return Ok(Step::Wait);
        };
        if header.number == types.items {
            self.item(types.item, value, list)?;
        } else if let Some((_, meta)) = types.meta {
            self.list_meta(meta, value, list)?;
        }
        self.phase = Phase::List { left };
        Ok(Step::Consumed(header.size + value.len()))
    }

    fn item(&self, message: MessageId, bytes: &[u8], list: &mut ObjectList<K>) -> Result<()> {
        let item = self
            .objects
            .decode(self.schema, message, bytes, None)
            .map_err(|e| malformed(format!("item {}", list.items.len())).with_source(e))?;
        list.items.push(item);
        Ok(())
    }

    fn list_meta(&self, message: MessageId, bytes: &[u8], list: &mut ObjectList<K>) -> Result<()> {
        kinformer_protobuf::from_slice::<ListMeta>(self.schema, message, bytes)
            .map_err(|e| malformed("metadata").with_source(e))?
            .apply(list);
        Ok(())
    }
}

impl<K> fmt::Debug for ProtobufListCodec<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProtobufListCodec")
            .field("phase", &self.phase)
            .field("fields", self.objects.fields())
            .finish()
    }
}
