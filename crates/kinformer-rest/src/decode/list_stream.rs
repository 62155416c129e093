//! [`ListDecoder`]: decodes a list body while it arrives, item by item, so a large list never
//! exists as one buffer next to its decoded objects.
//!
//! A small scanner walks the top-level object (strings, nesting depth and the current member are
//! its state, so it resumes where the previous chunk ended). Items are not scanned: serde_json
//! decodes each one straight from the buffer and reports where it ended; an item cut by the end
//! of the data so far is retried when more has arrived. Consumed bytes are dropped.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use bytes::{Buf, BytesMut};
use kinformer_core::{Fields, ObjectList, Projection};
use serde::de::{DeserializeOwned, IgnoredAny};

use super::limits::{DEFAULT_MAX_LIST_ITEM, too_large};
use super::list::ListMeta;
use super::projection::decode_object;
use crate::error::{Error, Kind, Result};

mod scan;

use scan::{Member, Phase, ValueScan, read_key};

/// Incremental decoder of a list response body into [`ObjectList<K>`].
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
pub struct ListDecoder<K> {
    buf: BytesMut,
    /// Next byte of `buf` to scan.
    pos: usize,
    /// Start of the value or element being scanned, in `buf`.
    start: usize,
    phase: Phase,
    scan: ValueScan,
    /// Bytes of the current item that were buffered at the last incomplete attempt.
    attempted: usize,
    meta: ListMeta,
    items: Vec<Arc<K>>,
    /// The largest value (item or member) that may be buffered.
    max_item: usize,
    /// The largest body accepted, when bounded.
    max_body: Option<usize>,
    /// Bytes of the body received so far.
    received: usize,
    /// What each item is decoded through; none: whole objects.
    projection: Option<Arc<Projection>>,
    _kind: PhantomData<fn() -> K>,
}

fn malformed(what: impl Into<String>) -> Error {
    Error::new(
        Kind::Decode,
        format!("cannot decode the list body: {}", what.into()),
    )
}

impl<K: DeserializeOwned> Default for ListDecoder<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: DeserializeOwned> ListDecoder<K> {
    /// A decoder for one list body, decoding whole objects, accepting items up to
    /// [`DEFAULT_MAX_LIST_ITEM`] bytes and a body of any size.
    ///
    /// [`DEFAULT_MAX_LIST_ITEM`]: crate::decoders::DEFAULT_MAX_LIST_ITEM
    pub fn new() -> Self {
        Self {
            buf: BytesMut::new(),
            pos: 0,
            start: 0,
            phase: Phase::Start,
            scan: ValueScan::default(),
            attempted: 0,
            meta: ListMeta::default(),
            items: Vec::new(),
            max_item: DEFAULT_MAX_LIST_ITEM,
            max_body: None,
            received: 0,
            projection: None,
            _kind: PhantomData,
        }
    }

    /// Decodes `fields` of each item: [`Fields::All`] (the default) is the plain serde decode;
    /// the others go through their projection, whose skipped fields the parser scans past
    /// without building them.
    #[must_use]
    pub fn with_fields(mut self, fields: Fields) -> Self {
        self.projection = fields.projection();
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
    /// A body that is not a JSON list object, an item that is not a `K`, or an item or body over
    /// its limit ([`Error::is_response_too_large`]).
    pub fn decode(&mut self, chunk: &[u8]) -> Result<()> {
        self.received = self.received.saturating_add(chunk.len());
        if let Some(max) = self.max_body.filter(|max| self.received > *max) {
            return Err(too_large("the list body", max));
        }
        self.buf.extend_from_slice(chunk);
        self.run()?;
        // Drop what is fully consumed, keeping the value in progress.
        let keep_from = match self.phase {
            Phase::Value(_) | Phase::Item => self.start,
            _ => self.pos,
        };
        self.buf.advance(keep_from);
        self.pos -= keep_from;
        self.start -= keep_from.min(self.start);
        // What is left is one value in progress (or bytes not scanned yet).
        if self.buf.len() > self.max_item {
            return Err(too_large(
                &format!("list item {}", self.items.len()),
                self.max_item,
            ));
        }
        Ok(())
    }

    /// Ends the body and returns the list.
    ///
    /// # Errors
    /// A body that ended before the list object did.
    pub fn finish(mut self) -> Result<ObjectList<K>> {
        // An item whose retry was deferred gets its last chance with the whole body.
        if self.phase == Phase::Item {
            self.attempted = 0;
            self.run()?;
        }
        // A scalar member value may end exactly at the end of the body.
        if let Phase::Value(member) = self.phase
            && self.scan.scalar
        {
            self.end_value(member, self.buf.len())?;
            self.run()?;
        }
        let rest = &self.buf[self.pos..];
        if self.phase != Phase::Done || !rest.iter().all(u8::is_ascii_whitespace) {
            return Err(malformed("the body ended before the list did"));
        }
        Ok(self.meta.into_list(self.items))
    }

    /// Decodes the item starting at `start` straight from the buffer: one pass, no separate
    /// scan for its end. False when the buffer holds only part of it.
    fn try_item(&mut self) -> Result<bool> {
        // Parsing at most `max_item` bytes makes an oversized item look incomplete whatever the
        // chunking, so it is never decoded, and `decode` rejects it once it is buffered.
        let window_end = self.buf.len().min(self.start.saturating_add(self.max_item));
        let mut de = serde_json::Deserializer::from_slice(&self.buf[self.start..window_end]);
        match decode_object::<K, _>(self.projection.as_deref(), &mut de) {
            Ok(item) => {
                // Where the reader stands: just past the item.
                let end = self.start + de.into_iter::<IgnoredAny>().byte_offset();
                self.items.push(Arc::new(item));
                self.pos = end;
                self.phase = Phase::AfterItem;
                Ok(true)
            }
            // Nothing buffered yet, or an item cut by the end of the data so far.
            Err(e) if e.is_eof() => Ok(false),
            Err(e) => Err(malformed(format!("item {}", self.items.len())).with_source(e)),
        }
    }

    /// The next non-whitespace byte at or after `pos`, advancing `pos` to it.
    fn next_token(&mut self) -> Option<u8> {
        while let Some(&b) = self.buf.get(self.pos) {
            if !b.is_ascii_whitespace() {
                return Some(b);
            }
            self.pos += 1;
        }
        None
    }

    /// Advances through the buffer as far as the data allows.
    fn run(&mut self) -> Result<()> {
        loop {
            match self.phase {
                Phase::Start | Phase::Key { .. } | Phase::Colon(_) | Phase::ValueStart(_) => {
                    if !self.step_structure()? {
                        return Ok(());
                    }
                }
                Phase::ItemStart { first } => {
                    let Some(b) = self.next_token() else {
                        return Ok(());
                    };
                    if b == b']' && first {
                        self.pos += 1;
                        self.phase = Phase::AfterMember;
                    } else {
                        self.start = self.pos;
                        self.attempted = 0;
                        self.phase = Phase::Item;
                    }
                }
                Phase::Value(member) => match self.scan_value() {
                    Some(end) => self.end_value(member, end)?,
                    None => return Ok(()),
                },
                Phase::Item => {
                    // Retry an incomplete item only once twice as many bytes are buffered, so
                    // an item split over many small chunks costs at most about twice its size.
                    // Past the item limit there is no waiting: this is the item's last chance.
                    let available = self.buf.len() - self.start;
                    let wait =
                        available < self.attempted.saturating_mul(2) && available <= self.max_item;
                    if wait {
                        return Ok(());
                    }
                    if !self.try_item()? {
                        // Only a real attempt moves the mark: bumping it while waiting would
                        // put the retry off until the end of the body.
                        self.attempted = available.max(1);
                        return Ok(());
                    }
                }
                Phase::AfterItem => match self.next_token() {
                    Some(b',') => {
                        self.pos += 1;
                        self.phase = Phase::ItemStart { first: false };
                    }
                    Some(b']') => {
                        self.pos += 1;
                        self.phase = Phase::AfterMember;
                    }
                    Some(other) => {
                        return Err(malformed(format!(
                            "unexpected {:?} in items",
                            char::from(other)
                        )));
                    }
                    None => return Ok(()),
                },
                Phase::AfterMember => match self.next_token() {
                    Some(b',') => {
                        self.pos += 1;
                        self.phase = Phase::Key { first: false };
                    }
                    Some(b'}') => {
                        self.pos += 1;
                        self.phase = Phase::Done;
                    }
                    Some(other) => {
                        return Err(malformed(format!(
                            "unexpected {:?} after a member",
                            char::from(other)
                        )));
                    }
                    None => return Ok(()),
                },
                Phase::Done => return Ok(()),
            }
        }
    }

    /// One step of the top-level structure; false when more data is needed.
    fn step_structure(&mut self) -> Result<bool> {
        let Some(b) = self.next_token() else {
            return Ok(false);
        };
        match self.phase {
            Phase::Start if b == b'{' => {
                self.pos += 1;
                self.phase = Phase::Key { first: true };
            }
            Phase::Start => return Err(malformed("not a JSON object")),
            Phase::Key { first: true } if b == b'}' => {
                self.pos += 1;
                self.phase = Phase::Done;
            }
            Phase::Key { .. } if b == b'"' => {
                let Some((key, end)) = read_key(&self.buf, self.pos) else {
                    return Ok(false);
                };
                self.pos = end;
                self.phase = Phase::Colon(key);
            }
            Phase::Key { .. } => return Err(malformed("expected a member name")),
            Phase::Colon(member) if b == b':' => {
                self.pos += 1;
                self.phase = Phase::ValueStart(member);
            }
            Phase::Colon(_) => return Err(malformed("expected ':'")),
            Phase::ValueStart(Member::Items) if b == b'[' => {
                self.pos += 1;
                self.phase = Phase::ItemStart { first: true };
            }
            Phase::ValueStart(member) => {
                self.begin_value(b);
                self.phase = Phase::Value(member);
            }
            _ => {}
        }
        Ok(true)
    }

    fn begin_value(&mut self, first: u8) {
        self.start = self.pos;
        self.scan = ValueScan::starting_with(first);
    }

    /// Scans the value that started at `start` from `pos`; its end (exclusive) once complete.
    fn scan_value(&mut self) -> Option<usize> {
        let (reached, end) = self.scan.scan(&self.buf, self.pos);
        self.pos = reached;
        end
    }

    /// A member value `[start, end)` is complete.
    fn end_value(&mut self, member: Member, end: usize) -> Result<()> {
        let value = &self.buf[self.start..end];
        match member {
            Member::Metadata => {
                self.meta = serde_json::from_slice::<Option<ListMeta>>(value)
                    .map_err(|e| malformed("metadata").with_source(e))?
                    .unwrap_or_default();
            }
            Member::Items if value == b"null" => {}
            Member::Items => return Err(malformed("items is not an array")),
            Member::Other => {
                serde_json::from_slice::<serde::de::IgnoredAny>(value)
                    .map_err(|e| malformed("a member value").with_source(e))?;
            }
        }
        self.pos = end;
        self.phase = Phase::AfterMember;
        Ok(())
    }
}

impl<K> fmt::Debug for ListDecoder<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ListDecoder")
            .field("buffered", &self.buf.len())
            .field("phase", &self.phase)
            .field("items", &self.items.len())
            .field("projection", &self.projection.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests;
