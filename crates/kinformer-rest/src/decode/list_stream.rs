//! [`ListDecoder`]: the one streaming driver of a list body, whatever its encoding, so a large list
//! never exists as one buffer next to its decoded objects. It owns what every encoding does alike
//! (the bytes of the one value in progress kept between chunks, the body limit counted over what
//! has arrived, the item limit on what is buffered, the list's metadata and items); a
//! [`ListCodec`] walks the encoding's structure and decodes the items in the bytes it is handed
//! ([`JsonListCodec`], [`ProtobufListCodec`](super::ProtobufListCodec)).
//!
//! The codec is a type parameter, so each encoding's walk is its own monomorphized loop: the
//! driver calls it once per chunk, and nothing is dispatched or allocated per item but the item.

use std::fmt;

use bytes::{Buf, BytesMut};
use kinformer_core::{Fields, ObjectList};

use super::limits::{DEFAULT_MAX_LIST_ITEM, too_large};
use crate::error::{Error, Result};

mod json;
mod scan;

pub use json::JsonListCodec;

/// How one encoding's list body is walked and its items decoded: what [`ListDecoder`] plugs in.
pub trait ListCodec<K>: Default + fmt::Debug {
    /// Decodes with `fields` of each item ([`Fields::All`] until this is called).
    fn set_fields(&mut self, fields: Fields);

    /// The most bytes the one value in progress may hold buffered under the item limit
    /// `max_item` (a field's header, say, comes on top of it).
    fn max_buffered(max_item: usize) -> usize;

    /// Walks `data` as far as it is complete, decoding each whole item into `list.items` and the
    /// list's metadata into `list`, and returns how many bytes at its start are done with; the
    /// rest (the value in progress, or bytes not walked yet) is handed over again, with the next
    /// chunk after it.
    ///
    /// # Errors
    /// A body that is not a list of this encoding, an item that is not a `K`, or a value over
    /// `max_item` that the codec can tell from its start.
    fn decode(&mut self, data: &[u8], max_item: usize, list: &mut ObjectList<K>) -> Result<usize>;

    /// The body ended with `rest` not done with by [`decode`](Self::decode): whatever it
    /// completes is decoded into `list`.
    ///
    /// # Errors
    /// A body that ended before the list did.
    fn finish(&mut self, rest: &[u8], max_item: usize, list: &mut ObjectList<K>) -> Result<()>;
}

/// Incremental decoder of a list response body into [`ObjectList<K>`], its encoding walked by
/// the codec `C`: JSON ([`JsonListCodec`], the default) or Kubernetes' protobuf
/// ([`ProtobufListCodec`](super::ProtobufListCodec), as
/// `ListDecoder<K, ProtobufListCodec<K>>`). The same list decodes to the same
/// objects, errors and limits in either.
///
/// # Examples
/// ```
/// use k8s_openapi::api::core::v1::Namespace;
/// use kinformer_rest::decoders::ListDecoder;
///
/// let body = br#"{"kind":"NamespaceList","metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}"#;
/// let mut decoder = ListDecoder::<Namespace>::new();
/// for chunk in body.chunks(7) {
///     decoder.decode(chunk)?;
/// }
/// let list = decoder.finish()?;
/// assert_eq!((list.resource_version.as_str(), list.items.len()), ("9", 2));
/// # Ok::<(), kinformer_rest::Error>(())
/// ```
pub struct ListDecoder<K, C = JsonListCodec<K>> {
    /// Bytes received and not done with: the value in progress (or bytes not walked yet).
    buf: BytesMut,
    /// The metadata and items decoded so far.
    list: ObjectList<K>,
    /// The largest value (item or member) that may be buffered.
    max_item: usize,
    /// The largest body accepted, when bounded.
    max_body: Option<usize>,
    /// Bytes of the body received so far.
    received: usize,
    codec: C,
}

impl<K, C: ListCodec<K>> Default for ListDecoder<K, C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K, C: ListCodec<K>> ListDecoder<K, C> {
    /// A decoder for one list body, decoding whole objects, accepting items up to
    /// [`DEFAULT_MAX_LIST_ITEM`] bytes and a body of any size.
    ///
    /// [`DEFAULT_MAX_LIST_ITEM`]: crate::decoders::DEFAULT_MAX_LIST_ITEM
    pub fn new() -> Self {
        Self {
            buf: BytesMut::new(),
            list: ObjectList::default(),
            max_item: DEFAULT_MAX_LIST_ITEM,
            max_body: None,
            received: 0,
            codec: C::default(),
        }
    }

    /// Decodes `fields` of each item ([`Fields::All`], the default, decodes them whole); see the
    /// codec for how.
    #[must_use]
    pub fn with_fields(mut self, fields: Fields) -> Self {
        self.codec.set_fields(fields);
        self
    }

    /// Sets the largest item (or other member value) accepted, in bytes. Only the value in
    /// progress is buffered, so this bounds the decoder's buffer to `max_item` plus one chunk.
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
    /// A body that is not a list of the codec's encoding, an item that is not a `K`, or an item
    /// or body over its limit ([`Error::is_response_too_large`]).
    pub fn decode(&mut self, chunk: &[u8]) -> Result<()> {
        self.received = self.received.saturating_add(chunk.len());
        if let Some(max) = self.max_body.filter(|max| self.received > *max) {
            return Err(too_large("the list body", max));
        }
        let max_buffered = C::max_buffered(self.max_item);
        if self.buf.is_empty() {
            // Straight from the chunk; only the value in progress is kept, and not even copied
            // when it alone is over the limit.
            let done = self.codec.decode(chunk, self.max_item, &mut self.list)?;
            let rest = &chunk[done..];
            if rest.len() > max_buffered {
                return Err(item_too_large(self.list.items.len(), self.max_item));
            }
            self.buf.extend_from_slice(rest);
        } else {
            self.buf.extend_from_slice(chunk);
            let data = std::mem::take(&mut self.buf);
            let done = self.codec.decode(&data, self.max_item, &mut self.list);
            self.buf = data;
            self.buf.advance(done?);
            // What is left is one value in progress (or bytes not walked yet): at most the limit
            // survives a call, so the buffer never holds more than the limit plus one chunk.
            if self.buf.len() > max_buffered {
                return Err(item_too_large(self.list.items.len(), self.max_item));
            }
        }
        Ok(())
    }

    /// Ends the body and returns the list.
    ///
    /// # Errors
    /// A body that ended before the list did.
    pub fn finish(mut self) -> Result<ObjectList<K>> {
        self.codec
            .finish(&self.buf, self.max_item, &mut self.list)?;
        Ok(self.list)
    }
}

/// The error of the list's item `index` (or the value in progress after it) over `max_item`.
pub(crate) fn item_too_large(index: usize, max_item: usize) -> Error {
    too_large(&format!("list item {index}"), max_item)
}

impl<K, C: fmt::Debug> fmt::Debug for ListDecoder<K, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ListDecoder")
            .field("buffered", &self.buf.len())
            .field("items", &self.list.items.len())
            .field("max_item", &self.max_item)
            .field("max_body", &self.max_body)
            .field("codec", &self.codec)
            .finish()
    }
}

#[cfg(test)]
mod tests;
