//! [`WatchDecoder`]: turns the bytes of a watch body, in chunks of any size, into events.
//!
//! Events are found by JSON value boundaries, not by chunks or lines: newlines (found with
//! `memchr`) only tell the decoder when a complete event has probably arrived. One chunk may hold
//! many events, one event may span many chunks, and events on one line are all decoded.

use std::collections::VecDeque;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use bytes::{Buf, BytesMut};
use kinformer_core::{Fields, Projection, WatchEvent};
use serde::de::{DeserializeOwned, DeserializeSeed, IgnoredAny};

use super::event::EventSeed;
use super::limits::too_large;
use crate::error::{Error, Kind, Result};

/// Incremental decoder of a JSON watch stream into [`WatchEvent<K>`].
///
/// After the first error (a malformed event, an oversized frame) the decoder is finished and
/// ignores further input, so a stream yields exactly one error and ends.
///
/// # Examples
/// ```
/// use std::collections::VecDeque;
///
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_rest::decoders::WatchDecoder;
///
/// let mut decoder = WatchDecoder::<ConfigMap>::new(1 << 20);
/// let mut events = VecDeque::new();
/// decoder.decode(br#"{"type":"ADDED","object":{"metadata":{"name":"a"}}}
/// {"type":"DELE"#, &mut events);
/// assert_eq!(events.len(), 1);
/// decoder.decode(br#"TED","object":{"metadata":{"name":"a"}}}
/// "#, &mut events);
/// decoder.finish(&mut events);
/// let kinds: Vec<_> = events.into_iter().map(|e| e.unwrap().type_name()).collect();
/// assert_eq!(kinds, ["ADDED", "DELETED"]);
/// ```
pub struct WatchDecoder<K> {
    buf: BytesMut,
    /// Bytes of `buf` already searched for a newline.
    scanned: usize,
    max_frame: usize,
    seen_newline: bool,
    finished: bool,
    /// What each object is decoded through; none: whole objects.
    projection: Option<Arc<Projection>>,
    _kind: PhantomData<fn() -> K>,
}

/// How a scan ended.
enum Scan {
    /// Bytes fully consumed (complete events); the rest is an incomplete event.
    Consumed(usize),
    /// A malformed event: the stream is over.
    Malformed(serde_json::Error),
}

impl<K: DeserializeOwned> WatchDecoder<K> {
    /// A decoder accepting events up to `max_frame` bytes, decoding whole objects.
    pub fn new(max_frame: usize) -> Self {
        Self {
            buf: BytesMut::new(),
            scanned: 0,
            max_frame,
            seen_newline: false,
            finished: false,
            projection: None,
            _kind: PhantomData,
        }
    }

    /// Decodes `fields` of each object: [`Fields::All`] (the default) is the plain serde decode;
    /// the others go through their projection, whose skipped fields the parser scans past
    /// without building them.
    #[must_use]
    pub fn with_fields(mut self, fields: Fields) -> Self {
        self.projection = fields.projection();
        self
    }

    /// True after an error: further input is ignored.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Feeds one chunk; complete events (and at most one error) are appended to `out`.
    pub fn decode(&mut self, chunk: &[u8], out: &mut VecDeque<Result<WatchEvent<K>>>) {
        if self.finished || chunk.is_empty() {
            return;
        }
        if self.buf.is_empty() {
            // Fast path: decode straight from the chunk and keep only its incomplete tail.
            let consumed = self.scan(chunk, 0, out);
            if let Some(consumed) = consumed {
                if chunk.len() - consumed > self.max_frame {
                    // Not even copied: the tail alone is over the limit.
                    self.fail(out, too_large("a watch event", self.max_frame));
                    return;
                }
                self.buf.extend_from_slice(&chunk[consumed..]);
                self.scanned = chunk.len() - consumed;
            }
        } else {
            let from = self.scanned;
            self.buf.extend_from_slice(chunk);
            let data = std::mem::take(&mut self.buf);
            let consumed = self.scan(&data, from, out);
            self.buf = data;
            if let Some(consumed) = consumed {
                self.buf.advance(consumed);
                self.scanned = self.buf.len();
            }
        }
        // What stays buffered is one incomplete event: at most `max_frame` bytes survive a call,
        // so the buffer never holds more than the limit plus one chunk.
        if !self.finished && self.buf.len() > self.max_frame {
            self.fail(out, too_large("a watch event", self.max_frame));
        }
    }

    /// Ends the input: a trailing event without a newline is decoded; a cut-off event is an error.
    pub fn finish(&mut self, out: &mut VecDeque<Result<WatchEvent<K>>>) {
        if self.finished {
            return;
        }
        self.finished = true;
        let data = std::mem::take(&mut self.buf);
        if data.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        match parse(self.projection.as_deref(), &data, out) {
            Scan::Consumed(n) if data[n..].iter().all(u8::is_ascii_whitespace) => {}
            Scan::Consumed(_) => out.push_back(Err(Error::new(
                Kind::Transport,
                "the watch stream ended in the middle of an event",
            ))),
            Scan::Malformed(e) => out.push_back(Err(malformed(e))),
        }
    }

    fn fail(&mut self, out: &mut VecDeque<Result<WatchEvent<K>>>, err: Error) {
        self.finished = true;
        self.buf = BytesMut::new();
        out.push_back(Err(err));
    }

    /// Decodes every complete event in `data`, searching for newlines from `from`. Returns how
    /// many bytes were consumed, or `None` after a malformed event.
    fn scan(
        &mut self,
        data: &[u8],
        mut from: usize,
        out: &mut VecDeque<Result<WatchEvent<K>>>,
    ) -> Option<usize> {
        let mut consumed = 0;
        while let Some(rel) = memchr::memchr(b'\n', &data[from..]) {
            self.seen_newline = true;
            let end = from + rel + 1;
            // One event per line, as servers write them: a longer line is rejected however the
            // chunks fell, before it is decoded.
            if data[consumed..end].trim_ascii().len() > self.max_frame {
                self.fail(out, too_large("a watch event", self.max_frame));
                return None;
            }
            match parse(self.projection.as_deref(), &data[consumed..end], out) {
                Scan::Consumed(n) => consumed += n,
                Scan::Malformed(e) => {
                    self.fail(out, malformed(e));
                    return None;
                }
            }
            from = end;
        }
        // A producer that never writes newlines: try when the data ends like an object does.
        if !self.seen_newline && data[consumed..].trim_ascii_end().ends_with(b"}") {
            if data[consumed..].trim_ascii().len() > self.max_frame {
                self.fail(out, too_large("a watch event", self.max_frame));
                return None;
            }
            match parse(self.projection.as_deref(), &data[consumed..], out) {
                Scan::Consumed(n) => consumed += n,
                Scan::Malformed(e) => {
                    self.fail(out, malformed(e));
                    return None;
                }
            }
        }
        Some(consumed)
    }
}

/// Decodes the complete JSON values at the start of `window`, each object through `projection`.
fn parse<K: DeserializeOwned>(
    projection: Option<&Projection>,
    window: &[u8],
    out: &mut VecDeque<Result<WatchEvent<K>>>,
) -> Scan {
    let mut offset = 0;
    loop {
        // JSON's whitespace, as serde_json skips it between values.
        let Some(skip) = window[offset..]
            .iter()
            .position(|b| !matches!(b, b' ' | b'\n' | b'\t' | b'\r'))
        else {
            return Scan::Consumed(window.len());
        };
        offset += skip;
        let mut de = serde_json::Deserializer::from_slice(&window[offset..]);
        match EventSeed::<K>::new(projection).deserialize(&mut de) {
            Ok(event) => {
                // An event is an object, so it ends at its `}`: where the reader stands now.
                offset += de.into_iter::<IgnoredAny>().byte_offset();
                out.push_back(Ok(event));
            }
            Err(e) if e.is_eof() => return Scan::Consumed(offset),
            Err(e) => return Scan::Malformed(e),
        }
    }
}

fn malformed(e: serde_json::Error) -> Error {
    Error::new(
        Kind::Decode,
        "unable to decode an event from the watch stream",
    )
    .with_source(e)
}

impl<K> fmt::Debug for WatchDecoder<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WatchDecoder")
            .field("buffered", &self.buf.len())
            .field("max_frame", &self.max_frame)
            .field("finished", &self.finished)
            .field("projection", &self.projection.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests;
