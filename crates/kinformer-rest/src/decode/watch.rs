//! [`WatchDecoder`]: the one streaming driver of a watch body, whatever its encoding. It owns
//! what every encoding does alike (the chunk in progress, the one incomplete event kept between
//! chunks, the frame limit on what is buffered, the single error that ends a stream); a
//! [`WatchCodec`] finds and decodes the events in the bytes it is handed ([`JsonCodec`],
//! [`ProtobufCodec`](super::ProtobufCodec)).
//!
//! The codec is a type parameter, so each encoding's decode is its own monomorphized loop: the
//! driver calls it once per chunk, and nothing is dispatched or allocated per event.

use std::collections::VecDeque;
use std::fmt;

use bytes::{Buf, BytesMut};
use kinformer_core::{Fields, WatchEvent};

use super::frame::JsonCodec;
use super::limits::too_large;
use crate::error::{Error, Kind, Result};

/// How one encoding's watch events are found and decoded: what [`WatchDecoder`] plugs in.
pub trait WatchCodec<K>: Default + fmt::Debug {
    /// Decodes with `fields` of each object ([`Fields::All`] until this is called).
    fn set_fields(&mut self, fields: Fields);

    /// The most bytes one incomplete event may hold buffered under the frame limit
    /// `max_frame` (a length prefix, say, comes on top of it).
    fn max_buffered(max_frame: usize) -> usize;

    /// Decodes every complete event at the start of `data` into `out`, and returns how many
    /// bytes they took; what is left is the start of an incomplete event. `searched` bytes of
    /// `data` were handed over before and found incomplete.
    ///
    /// # Errors
    /// A malformed event, or one over `max_frame`: the stream ends with it.
    fn events(
        &mut self,
        data: &[u8],
        searched: usize,
        max_frame: usize,
        out: &mut VecDeque<Result<WatchEvent<K>>>,
    ) -> Result<usize>;

    /// The body ended with `rest` not taken by [`events`](Self::events): whatever it holds is
    /// decoded into `out`, or ends the stream with an error.
    fn finish(&mut self, rest: &[u8], out: &mut VecDeque<Result<WatchEvent<K>>>);
}

/// Incremental decoder of a watch stream into [`WatchEvent<K>`], its encoding's events found
/// and decoded by the codec `C`: JSON ([`JsonCodec`], the default) or Kubernetes' protobuf
/// frames ([`ProtobufCodec`](super::ProtobufCodec)). The same stream decodes to the same events,
/// errors and limits in either.
///
/// After the first error (a malformed event, an oversized one) the decoder is finished and
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
pub struct WatchDecoder<K, C = JsonCodec<K>> {
    /// Bytes received and not consumed: at most one incomplete event.
    pub(in crate::decode) buf: BytesMut,
    /// Bytes of `buf` the codec has already searched.
    searched: usize,
    max_frame: usize,
    finished: bool,
    codec: C,
    _kind: std::marker::PhantomData<fn() -> K>,
}

impl<K, C: WatchCodec<K>> WatchDecoder<K, C> {
    /// A decoder accepting events up to `max_frame` bytes, decoding whole objects.
    pub fn new(max_frame: usize) -> Self {
        Self {
            buf: BytesMut::new(),
            searched: 0,
            max_frame,
            finished: false,
            codec: C::default(),
            _kind: std::marker::PhantomData,
        }
    }

    /// Decodes `fields` of each object ([`Fields::All`], the default, decodes them whole); see
    /// the codec for how.
    #[must_use]
    pub fn with_fields(mut self, fields: Fields) -> Self {
        self.codec.set_fields(fields);
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
        let max_buffered = C::max_buffered(self.max_frame);
        let decoded = if self.buf.is_empty() {
            // Straight from the chunk; only an incomplete event's bytes are kept, and not even
            // copied when they alone are over the limit.
            match self.codec.events(chunk, 0, self.max_frame, out) {
                Ok(consumed) if chunk.len() - consumed > max_buffered => {
                    Err(too_large("a watch event", self.max_frame))
                }
                Ok(consumed) => {
                    self.buf.extend_from_slice(&chunk[consumed..]);
                    Ok(())
                }
                Err(err) => Err(err),
            }
        } else {
            self.buf.extend_from_slice(chunk);
            let data = std::mem::take(&mut self.buf);
            let decoded = self.codec.events(&data, self.searched, self.max_frame, out);
            self.buf = data;
            decoded.map(|consumed| self.buf.advance(consumed))
        };
        self.searched = self.buf.len();
        // What stays buffered is one incomplete event: at most the limit survives a call, so the
        // buffer never holds more than the limit plus one chunk.
        let decoded = decoded.and_then(|()| match self.buf.len() > max_buffered {
            true => Err(too_large("a watch event", self.max_frame)),
            false => Ok(()),
        });
        if let Err(err) = decoded {
            self.finished = true;
            self.buf = BytesMut::new();
            out.push_back(Err(err));
        }
    }

    /// Ends the input: what is left is decoded if it is a whole event; a cut-off event is an
    /// error.
    pub fn finish(&mut self, out: &mut VecDeque<Result<WatchEvent<K>>>) {
        if self.finished {
            return;
        }
        self.finished = true;
        let rest = std::mem::take(&mut self.buf);
        self.codec.finish(&rest, out);
    }
}

/// The error of a stream that ended inside an event.
pub(crate) fn cut_off() -> Error {
    Error::new(
        Kind::Transport,
        "the watch stream ended in the middle of an event",
    )
}

impl<K, C: fmt::Debug> fmt::Debug for WatchDecoder<K, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WatchDecoder")
            .field("buffered", &self.buf.len())
            .field("max_frame", &self.max_frame)
            .field("finished", &self.finished)
            .field("codec", &self.codec)
            .finish()
    }
}
