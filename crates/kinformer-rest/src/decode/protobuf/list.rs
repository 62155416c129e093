//! [`ProtobufListDecoder`]: a protobuf list body decoded while it arrives, item by item.
//!
//! The body is `k8s\0`, then a `runtime.Unknown`: `typeMeta` (the list's apiVersion and kind,
//! which name its message and so its items' message), then `raw`, the list message, whose
//! fields are `metadata` (1, a `ListMeta`) and one `items` entry (2) per object. Every field
//! says its length up front, so an item is decoded once all its bytes have arrived, straight from
//! the chunk when it lies in one; a field longer than the item limit is refused from its header,
//! before any of it is buffered, and fields nobody reads are skipped without being buffered.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use bytes::{Buf, BytesMut};
use kinformer_core::{Fields, ObjectList};
use kinformer_protobuf::envelope::{MAGIC, Unknown};
use kinformer_protobuf::{MessageId, Schema};
use serde::de::DeserializeOwned;

use super::object::Objects;
use super::wire::{Header, read_header};
use crate::decode::limits::{DEFAULT_MAX_LIST_ITEM, too_large};
use crate::decode::list::ListMeta;
use crate::error::{Error, Kind, Result};

mod envelope;

use envelope::ListTypes;

/// Incremental decoder of a protobuf list body into [`ObjectList<K>`], the protobuf twin of
/// [`ListDecoder`](crate::decoders::ListDecoder): the same limits, the same projection, the same
/// list for the same objects.
///
/// # Examples
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_protobuf::{Schema, envelope, to_vec};
/// use kinformer_rest::decoders::ProtobufListDecoder;
///
/// let schema = Schema::kubernetes();
/// let list = serde_json::json!({"metadata": {"resourceVersion": "9"}, "items": [{"metadata": {"name": "a"}}]});
/// let raw = to_vec(schema, schema.message_for("v1", "ConfigMapList")?, &list)?;
/// let mut body = Vec::new();
/// envelope::encode("v1", "ConfigMapList", &raw, &mut body);
///
/// let mut decoder = ProtobufListDecoder::<ConfigMap>::new();
/// for chunk in body.chunks(5) {
///     decoder.decode(chunk)?;
/// }
/// let list = decoder.finish()?;
/// assert_eq!((list.resource_version.as_str(), list.items.len()), ("9", 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ProtobufListDecoder<K> {
    schema: &'static Schema,
    /// Bytes received and not consumed: at most one field in progress.
    buf: BytesMut,
    phase: Phase,
    /// The list message's item and metadata messages, once the envelope named the list.
    types: Option<ListTypes>,
    meta: ListMeta,
    items: Vec<Arc<K>>,
    max_item: usize,
    max_body: Option<usize>,
    received: usize,
    objects: Objects<K>,
    _kind: PhantomData<fn() -> K>,
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

impl<K: DeserializeOwned + 'static> Default for ProtobufListDecoder<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: DeserializeOwned + 'static> ProtobufListDecoder<K> {
    /// A decoder for one list body with the built-in API's schema, decoding whole objects
    /// ([`Fields::All`]),
    /// accepting items up to [`DEFAULT_MAX_LIST_ITEM`] bytes and a body of any size.
    ///
    /// [`DEFAULT_MAX_LIST_ITEM`]: crate::decoders::DEFAULT_MAX_LIST_ITEM
    pub fn new() -> Self {
        Self {
            schema: Schema::kubernetes(),
            buf: BytesMut::new(),
            phase: Phase::Magic,
            types: None,
            meta: ListMeta::default(),
            items: Vec::new(),
            max_item: DEFAULT_MAX_LIST_ITEM,
            max_body: None,
            received: 0,
            objects: Objects::new(Fields::All),
            _kind: PhantomData,
        }
    }

    /// Decodes `fields` of each item ([`Fields::All`], the default, decodes them whole): the
    /// generated typed decoder serves all fields and all but managedFields, a projection goes
    /// through serde. Skipped fields cost nothing here: each is length-delimited, and jumped over.
    #[must_use]
    pub fn with_fields(mut self, fields: Fields) -> Self {
        self.objects = Objects::new(fields);
        self
    }

    /// Sets the largest item (or other field) accepted, in bytes: the decoder buffers at most
    /// one field in progress, so this bounds its buffer.
    #[must_use]
    pub fn with_max_item(mut self, max_item: usize) -> Self {
        self.max_item = max_item;
        self
    }

    /// Sets the largest body accepted, in bytes (`None`: unbounded).
    #[must_use]
    pub fn with_max_body(mut self, max_body: Option<usize>) -> Self {
        self.max_body = max_body;
        self
    }

    /// Feeds the next chunk; complete items are decoded at once.
    ///
    /// # Errors
    /// A body that is not a protobuf list, an item that is not a `K`, or an item or body over
    /// its limit ([`Error::is_response_too_large`]).
    pub fn decode(&mut self, chunk: &[u8]) -> Result<()> {
        self.received = self.received.saturating_add(chunk.len());
        if let Some(max) = self.max_body.filter(|max| self.received > *max) {
            return Err(too_large("the list body", max));
        }
        if self.buf.is_empty() {
            // Straight from the chunk; only an incomplete field's bytes are kept.
            let consumed = self.run(chunk)?;
            self.buf.extend_from_slice(&chunk[consumed..]);
        } else {
            self.buf.extend_from_slice(chunk);
            let data = std::mem::take(&mut self.buf);
            let consumed = self.run(&data)?;
            self.buf = data;
            self.buf.advance(consumed);
        }
        Ok(())
    }

    /// Ends the body and returns the list.
    ///
    /// # Errors
    /// A body that ended inside the envelope, the list or one of their fields.
    pub fn finish(self) -> Result<ObjectList<K>> {
        if self.phase != Phase::Envelope || !self.buf.is_empty() {
            return Err(malformed("the body ended before the list did"));
        }
        Ok(self.meta.into_list(self.items))
    }

    /// Decodes as much of `data` as is complete; how many bytes were consumed.
    fn run(&mut self, data: &[u8]) -> Result<usize> {
        let mut pos = 0;
        loop {
            let rest = &data[pos..];
            let step = match self.phase {
                Phase::Magic => self.magic(rest)?,
                Phase::Envelope if rest.is_empty() => Step::Wait,
                Phase::Envelope => self.envelope_field(rest)?,
                Phase::List { left: 0 } => {
                    self.phase = Phase::Envelope;
                    Step::Consumed(0)
                }
                Phase::List { left } => self.list_field(rest, left)?,
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
    /// there: the header and the value's bytes.
    fn whole<'a>(&self, rest: &'a [u8], header: &Header) -> Result<Option<&'a [u8]>> {
        if header.len > self.max_item as u64 {
            let items = self.types.map(|t| t.items);
            let what = if Some(header.number) == items && self.phase != Phase::Envelope {
                format!("list item {}", self.items.len())
            } else {
                format!("field {} of the list body", header.number)
            };
            return Err(too_large(&what, self.max_item));
        }
        // Bounded by the item limit just checked.
        let end = header.size + header.len as usize;
        Ok(rest.get(header.size..end))
    }

    fn envelope_field(&mut self, rest: &[u8]) -> Result<Step> {
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
                let Some(value) = self.whole(rest, &header)? else {
                    return Ok(Step::Wait);
                };
                self.envelope_value(header.number, value)?;
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

    fn envelope_value(&mut self, number: u32, value: &[u8]) -> Result<()> {
        if let Some(types) = envelope::read_field(self.schema, number, value)? {
            self.types = Some(types);
        }
        Ok(())
    }

    fn list_field(&mut self, rest: &[u8], left: u64) -> Result<Step> {
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
        let Some(value) = self.whole(window, &header)? else {
            return Ok(Step::Wait);
        };
        if header.number == types.items {
            self.item(types.item, value)?;
        } else if let Some((_, meta)) = types.meta {
            self.list_meta(meta, value)?;
        }
        self.phase = Phase::List { left };
        Ok(Step::Consumed(header.size + value.len()))
    }

    fn item(&mut self, message: MessageId, bytes: &[u8]) -> Result<()> {
        let item = self
            .objects
            .decode(self.schema, message, bytes, None)
            .map_err(|e| malformed(format!("item {}", self.items.len())).with_source(e))?;
        self.items.push(item);
        Ok(())
    }

    fn list_meta(&mut self, message: MessageId, bytes: &[u8]) -> Result<()> {
        self.meta = kinformer_protobuf::from_slice(self.schema, message, bytes)
            .map_err(|e| malformed("metadata").with_source(e))?;
        Ok(())
    }
}

impl<K> fmt::Debug for ProtobufListDecoder<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProtobufListDecoder")
            .field("buffered", &self.buf.len())
            .field("phase", &self.phase)
            .field("items", &self.items.len())
            .field("fields", self.objects.fields())
            .finish()
    }
}
