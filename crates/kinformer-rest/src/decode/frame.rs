//! [`JsonCodec`]: the events of a JSON watch body, for the one [`WatchDecoder`](super::WatchDecoder) driver.
//!
//! Events are found by JSON value boundaries, not by chunks or lines: newlines (found with
//! `memchr`) only tell the decoder when a complete event has probably arrived. One chunk may hold
//! many events, one event may span many chunks, and events on one line are all decoded.

use std::collections::VecDeque;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use kinformer_core::{Fields, Projection, WatchEvent};
use serde::de::{DeserializeOwned, DeserializeSeed, IgnoredAny};

use super::event::EventSeed;
use super::limits::too_large;
use super::watch::{WatchCodec, cut_off};
use crate::error::{Error, Kind, Result};

/// The JSON codec of a [`WatchDecoder`](super::WatchDecoder): events found by JSON value boundaries, each decoded
/// straight into `K` through the fields' projection (see the module docs).
pub struct JsonCodec<K> {
    seen_newline: bool,
    /// What each object is decoded through; none: whole objects.
    projection: Option<Arc<Projection>>,
    _kind: PhantomData<fn() -> K>,
}

impl<K> Default for JsonCodec<K> {
    fn default() -> Self {
        Self {
            seen_newline: false,
            projection: None,
            _kind: PhantomData,
        }
    }
}

impl<K: DeserializeOwned> WatchCodec<K> for JsonCodec<K> {
    /// [`Fields::All`] is the plain serde decode; the others go through their projection, whose
    /// skipped fields the parser scans past without building them.
    fn set_fields(&mut self, fields: Fields) {
        self.projection = fields.projection();
    }

    fn max_buffered(max_frame: usize) -> usize {
        max_frame
    }

    /// Searches for newlines from `searched` on.
    fn events(
        &mut self,
        data: &[u8],
        mut from: usize,
        max_frame: usize,
        out: &mut VecDeque<Result<WatchEvent<K>>>,
    ) -> Result<usize> {
        let mut consumed = 0;
        while let Some(rel) = memchr::memchr(b'\n', &data[from..]) {
            self.seen_newline = true;
            let end = from + rel + 1;
            // One event per line, as servers write them: a longer line is rejected however the
            // chunks fell, before it is decoded.
            if data[consumed..end].trim_ascii().len() > max_frame {
                return Err(too_large("a watch event", max_frame));
            }
            match parse(self.projection.as_deref(), &data[consumed..end], out) {
                Scan::Consumed(n) => consumed += n,
                Scan::Malformed(e) => return Err(malformed(e)),
            }
            from = end;
        }
        // A producer that never writes newlines: try when the data ends like an object does.
        if !self.seen_newline && data[consumed..].trim_ascii_end().ends_with(b"}") {
            if data[consumed..].trim_ascii().len() > max_frame {
                return Err(too_large("a watch event", max_frame));
            }
            match parse(self.projection.as_deref(), &data[consumed..], out) {
                Scan::Consumed(n) => consumed += n,
                Scan::Malformed(e) => return Err(malformed(e)),
            }
        }
        Ok(consumed)
    }

    /// A trailing event without a newline is decoded; a cut-off event is an error.
    fn finish(&mut self, rest: &[u8], out: &mut VecDeque<Result<WatchEvent<K>>>) {
        if rest.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        match parse(self.projection.as_deref(), rest, out) {
            Scan::Consumed(n) if rest[n..].iter().all(u8::is_ascii_whitespace) => {}
            Scan::Consumed(_) => out.push_back(Err(cut_off())),
            Scan::Malformed(e) => out.push_back(Err(malformed(e))),
        }
    }
}

/// How a scan ended.
enum Scan {
    /// Bytes fully consumed (complete events); the rest is an incomplete event.
    Consumed(usize),
    /// A malformed event: the stream is over.
    Malformed(serde_json::Error),
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

impl<K> fmt::Debug for JsonCodec<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonCodec")
            .field("projection", &self.projection.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests;
