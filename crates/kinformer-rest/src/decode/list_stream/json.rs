//! [`JsonListCodec`]: a JSON list body, for the one [`ListDecoder`](super::ListDecoder) driver.
//!
//! A small scanner walks the top-level object (strings, nesting depth and the current member are
//! its state, so it resumes where the previous chunk ended). Items are not scanned: serde_json
//! decodes each one straight from the bytes and reports where it ended; an item cut by the end of
//! the data so far is retried when more has arrived.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use kinformer_core::{Fields, ObjectList, Projection};
use serde::de::{DeserializeOwned, IgnoredAny};

use super::ListCodec;
use super::scan::{Member, Phase, ValueScan, read_key};
use crate::decode::list::ListMeta;
use crate::decode::projection::decode_object;
use crate::error::{Error, Kind, Result};

/// The JSON codec of a [`ListDecoder`](super::ListDecoder): the top-level object scanned, each
/// item decoded straight into `K` through the fields' projection (see the module docs).
pub struct JsonListCodec<K> {
    /// Next byte of the data to scan.
    pos: usize,
    /// Start of the value or element being scanned, in the data.
    start: usize,
    phase: Phase,
    scan: ValueScan,
    /// Bytes of the current item that were there at the last incomplete attempt.
    attempted: usize,
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

impl<K> Default for JsonListCodec<K> {
    fn default() -> Self {
        Self {
            pos: 0,
            start: 0,
            phase: Phase::Start,
            scan: ValueScan::default(),
            attempted: 0,
            projection: None,
            _kind: PhantomData,
        }
    }
}

impl<K: DeserializeOwned> ListCodec<K> for JsonListCodec<K> {
    /// [`Fields::All`] is the plain serde decode; the others go through their projection, whose
    /// skipped fields the parser scans past without building them.
    fn set_fields(&mut self, fields: Fields) {
        self.projection = fields.projection();
    }

    fn max_buffered(max_item: usize) -> usize {
        max_item
    }

    /// Done with everything before the value in progress.
    fn decode(&mut self, data: &[u8], max_item: usize, list: &mut ObjectList<K>) -> Result<usize> {
        self.run(data, max_item, list)?;
        let done = match self.phase {
            Phase::Value(_) | Phase::Item => self.start,
            _ => self.pos,
        };
        self.pos -= done;
        self.start -= done.min(self.start);
        Ok(done)
    }

    fn finish(&mut self, rest: &[u8], max_item: usize, list: &mut ObjectList<K>) -> Result<()> {
        // An item whose retry was deferred gets its last chance with the whole body.
        if self.phase == Phase::Item {
            self.attempted = 0;
            self.run(rest, max_item, list)?;
        }
        // A scalar member value may end exactly at the end of the body.
        if let Phase::Value(member) = self.phase
            && self.scan.scalar
        {
            self.end_value(rest, member, rest.len(), list)?;
            self.run(rest, max_item, list)?;
        }
        if self.phase != Phase::Done || !rest[self.pos..].iter().all(u8::is_ascii_whitespace) {
            return Err(malformed("the body ended before the list did"));
        }
        Ok(())
    }
}

impl<K: DeserializeOwned> JsonListCodec<K> {
    /// Decodes the item starting at `start` straight from `data`: one pass, no separate scan for
    /// its end. False when `data` holds only part of it.
    fn try_item(&mut self, data: &[u8], max_item: usize, list: &mut ObjectList<K>) -> Result<bool> {
        // Parsing at most `max_item` bytes makes an oversized item look incomplete whatever the
        // chunking, so it is never decoded, and the driver rejects it once it is buffered.
        let window_end = data.len().min(self.start.saturating_add(max_item));
        let mut de = serde_json::Deserializer::from_slice(&data[self.start..window_end]);
        match decode_object::<K, _>(self.projection.as_deref(), &mut de) {
            Ok(item) => {
                // Where the reader stands: just past the item.
                let end = self.start + de.into_iter::<IgnoredAny>().byte_offset();
                list.items.push(Arc::new(item));
                self.pos = end;
                self.phase = Phase::AfterItem;
                Ok(true)
            }
            // Nothing there yet, or an item cut by the end of the data so far.
            Err(e) if e.is_eof() => Ok(false),
            Err(e) => Err(malformed(format!("item {}", list.items.len())).with_source(e)),
        }
    }

    /// The next non-whitespace byte at or after `pos`, advancing `pos` to it.
    fn next_token(&mut self, data: &[u8]) -> Option<u8> {
        while let Some(&b) = data.get(self.pos) {
            if !b.is_ascii_whitespace() {
                return Some(b);
            }
            self.pos += 1;
        }
        None
    }

    /// Advances through `data` as far as it allows.
    fn run(&mut self, data: &[u8], max_item: usize, list: &mut ObjectList<K>) -> Result<()> {
        loop {
            match self.phase {
                Phase::Start | Phase::Key { .. } | Phase::Colon(_) | Phase::ValueStart(_) => {
                    if !self.step_structure(data)? {
                        return Ok(());
                    }
                }
                Phase::ItemStart { first } => {
                    let Some(b) = self.next_token(data) else {
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
                Phase::Value(member) => match self.scan_value(data) {
                    Some(end) => self.end_value(data, member, end, list)?,
                    None => return Ok(()),
                },
                Phase::Item => {
                    // Retry an incomplete item only once twice as many bytes are there, so an
                    // item split over many small chunks costs at most about twice its size.
                    // Past the item limit there is no waiting: this is the item's last chance.
                    let available = data.len() - self.start;
                    let wait =
                        available < self.attempted.saturating_mul(2) && available <= max_item;
                    if wait {
                        return Ok(());
                    }
                    if !self.try_item(data, max_item, list)? {
                        // Only a real attempt moves the mark: bumping it while waiting would
                        // put the retry off until the end of the body.
                        self.attempted = available.max(1);
                        return Ok(());
                    }
                }
                Phase::AfterItem => match self.next_token(data) {
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
                Phase::AfterMember => match self.next_token(data) {
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
    fn step_structure(&mut self, data: &[u8]) -> Result<bool> {
        let Some(b) = self.next_token(data) else {
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
                let Some((key, end)) = read_key(data, self.pos) else {
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
                self.start = self.pos;
                self.scan = ValueScan::starting_with(b);
                self.phase = Phase::Value(member);
            }
            _ => {}
        }
        Ok(true)
    }

    /// Scans the value that started at `start` from `pos`; its end (exclusive) once complete.
    fn scan_value(&mut self, data: &[u8]) -> Option<usize> {
        let (reached, end) = self.scan.scan(data, self.pos);
        self.pos = reached;
        end
    }

    /// A member value `[start, end)` of `data` is complete.
    fn end_value(
        &mut self,
        data: &[u8],
        member: Member,
        end: usize,
        list: &mut ObjectList<K>,
    ) -> Result<()> {
        let value = &data[self.start..end];
        match member {
            Member::Metadata => serde_json::from_slice::<Option<ListMeta>>(value)
                .map_err(|e| malformed("metadata").with_source(e))?
                .unwrap_or_default()
                .apply(list),
            Member::Items if value == b"null" => {}
            Member::Items => return Err(malformed("items is not an array")),
            Member::Other => {
                serde_json::from_slice::<IgnoredAny>(value)
                    .map_err(|e| malformed("a member value").with_source(e))?;
            }
        }
        self.pos = end;
        self.phase = Phase::AfterMember;
        Ok(())
    }
}

impl<K> fmt::Debug for JsonListCodec<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonListCodec")
            .field("phase", &self.phase)
            .field("projection", &self.projection.is_some())
            .finish()
    }
}
