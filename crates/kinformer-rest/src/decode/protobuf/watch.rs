//! [`ProtobufWatchDecoder`]: a protobuf watch stream (`;stream=watch`) decoded frame by frame.
//!
//! Each frame is a 4-byte big-endian length, then a `meta.v1.WatchEvent` (`type` = 1, `object` =
//! 2, a `RawExtension` whose `raw` holds the object: `k8s\0` and a `runtime.Unknown`). A frame is
//! decoded once all of it has arrived, straight from the chunk when it lies in one (a frame that
//! straddles chunks is completed from the next chunk's head); a length over the frame limit ends
//! the stream before any of the frame is buffered.

use std::collections::VecDeque;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use kinformer_core::{Projection, Status, WatchEvent};
use kinformer_protobuf::{Schema, envelope};
use serde::de::DeserializeOwned;

use super::object::{LastKind, Objects, checked, decode_message};
use crate::decode::event::{BookmarkObject, EventType};
use crate::decode::limits::too_large;
use crate::error::{Error, Kind, Result};

/// The frame's length prefix.
const LENGTH: usize = 4;

/// The largest buffer kept between straddling frames; one grown past it by a large frame is let
/// go, so an idle watch does not hold it.
const KEPT_BUFFER: usize = 64 * 1024;

/// Incremental decoder of a protobuf watch stream into [`WatchEvent<K>`], the protobuf twin of
/// [`WatchDecoder`](crate::decoders::WatchDecoder): the same events, errors and limit for the
/// same stream.
///
/// After the first error (a malformed frame, an oversized one) the decoder is finished and
/// ignores further input, so a stream yields exactly one error and ends.
///
/// # Examples
/// ```
/// use std::collections::VecDeque;
///
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_protobuf::{Schema, envelope, to_vec};
/// use kinformer_rest::decoders::ProtobufWatchDecoder;
///
/// let schema = Schema::kubernetes();
/// let cm = serde_json::json!({"metadata": {"name": "a", "resourceVersion": "5"}});
/// let mut object = Vec::new();
/// envelope::encode("v1", "ConfigMap", &to_vec(schema, schema.message_for("v1", "ConfigMap")?, &cm)?, &mut object);
/// let mut stream = Vec::new();
/// envelope::encode_watch_frame("ADDED", &object, &mut stream);
///
/// let mut decoder = ProtobufWatchDecoder::<ConfigMap>::new(1 << 20);
/// let mut events = VecDeque::new();
/// for chunk in stream.chunks(3) {
///     decoder.decode(chunk, &mut events);
/// }
/// decoder.finish(&mut events);
/// let event = events.pop_front().unwrap()?;
/// assert_eq!(event.type_name(), "ADDED");
/// assert_eq!(event.object().unwrap().metadata.name.as_deref(), Some("a"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ProtobufWatchDecoder<K> {
    schema: &'static Schema,
    /// The bytes of the one frame in progress, which straddles chunks.
    pending: Vec<u8>,
    max_frame: usize,
    finished: bool,
    objects: Objects<K>,
    last_kind: LastKind,
    _kind: PhantomData<fn() -> K>,
}

fn malformed(what: impl Into<String>) -> Error {
    Error::new(
        Kind::Decode,
        format!(
            "unable to decode an event from the watch stream: {}",
            what.into()
        ),
    )
}

impl<K: DeserializeOwned + 'static> ProtobufWatchDecoder<K> {
    /// A decoder with the built-in API's schema, accepting frames up to `max_frame` bytes,
    /// decoding whole objects.
    pub fn new(max_frame: usize) -> Self {
        Self {
            schema: Schema::kubernetes(),
            pending: Vec::new(),
            max_frame,
            finished: false,
            objects: Objects::new(None),
            last_kind: LastKind::default(),
            _kind: PhantomData,
        }
    }

    /// Decodes each object through `projection`; `None` (the default) decodes objects whole.
    #[must_use]
    pub fn with_projection(mut self, projection: impl Into<Option<Arc<Projection>>>) -> Self {
        self.objects = Objects::new(projection.into());
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
        let mut rest = chunk;
        if !self.pending.is_empty() {
            // Only the frame in progress is completed from the chunk's head: copying the whole
            // chunk behind it would copy every chunk once frames straddle chunk ends, as they do.
            match self.complete_pending(rest, out) {
                Some(taken) => rest = &rest[taken..],
                None => return,
            }
        }
        if let Some(consumed) = self.run(rest, out) {
            self.pending.extend_from_slice(&rest[consumed..]);
        }
    }

    /// Moves the head of `chunk` into the frame in progress and decodes the frame once whole:
    /// how many bytes of `chunk` it took, or `None` when the chunk ended first or after an error.
    fn complete_pending(
        &mut self,
        chunk: &[u8],
        out: &mut VecDeque<Result<WatchEvent<K>>>,
    ) -> Option<usize> {
        let mut taken = 0;
        if self.pending.len() < LENGTH {
            taken = (LENGTH - self.pending.len()).min(chunk.len());
            self.pending.extend_from_slice(&chunk[..taken]);
        }
        let frame_len = frame_length(&self.pending)?;
        if frame_len > self.max_frame {
            self.fail(out, too_large("a watch event", self.max_frame));
            return None;
        }
        let missing = (LENGTH + frame_len).saturating_sub(self.pending.len());
        let take = missing.min(chunk.len() - taken);
        self.pending.extend_from_slice(&chunk[taken..taken + take]);
        taken += take;
        if take < missing {
            return None;
        }
        let frame = std::mem::take(&mut self.pending);
        self.run(&frame, out)?;
        // The buffer is kept for the next straddling frame unless one large frame grew it.
        if frame.capacity() <= KEPT_BUFFER {
            self.pending = frame;
            self.pending.clear();
        }
        Some(taken)
    }

    /// Ends the input: a frame cut off by the end is an error.
    pub fn finish(&mut self, out: &mut VecDeque<Result<WatchEvent<K>>>) {
        if self.finished {
            return;
        }
        self.finished = true;
        if !std::mem::take(&mut self.pending).is_empty() {
            out.push_back(Err(Error::new(
                Kind::Transport,
                "the watch stream ended in the middle of an event",
            )));
        }
    }

    fn fail(&mut self, out: &mut VecDeque<Result<WatchEvent<K>>>, err: Error) {
        self.finished = true;
        self.pending = Vec::new();
        out.push_back(Err(err));
    }

    /// Decodes every complete frame of `data`: how many bytes were consumed, or `None` after an
    /// error.
    fn run(&mut self, data: &[u8], out: &mut VecDeque<Result<WatchEvent<K>>>) -> Option<usize> {
        let mut pos = 0;
        while let Some(len) = frame_length(&data[pos..]) {
            if len > self.max_frame {
                self.fail(out, too_large("a watch event", self.max_frame));
                return None;
            }
            let start = pos + LENGTH;
            let Some(frame) = start.checked_add(len).and_then(|end| data.get(start..end)) else {
                break;
            };
            match decode_event(self.schema, &self.objects, &mut self.last_kind, frame) {
                Ok(event) => out.push_back(Ok(event)),
                Err(err) => {
                    self.fail(out, err);
                    return None;
                }
            }
            pos += LENGTH + len;
        }
        Some(pos)
    }
}

/// The length a frame starting at `data` announces, once its prefix is there.
fn frame_length(data: &[u8]) -> Option<usize> {
    let prefix: [u8; LENGTH] = data.get(..LENGTH)?.try_into().ok()?;
    Some(usize::try_from(u32::from_be_bytes(prefix)).unwrap_or(usize::MAX))
}

/// One frame's `WatchEvent` as the JSON decoder would give it for the same event.
fn decode_event<K: DeserializeOwned + 'static>(
    schema: &Schema,
    objects: &Objects<K>,
    last_kind: &mut LastKind,
    frame: &[u8],
) -> Result<WatchEvent<K>> {
    let event = envelope::decode_watch_event(frame)
        .map_err(|e| malformed("not a WatchEvent").with_source(e))?;
    let ty = EventType::parse(event.event_type).map_err(malformed)?;
    let unknown = envelope::decode(event.object)
        .map_err(|e| malformed("the event's object").with_source(e))?;
    let unknown = checked(unknown).map_err(malformed)?;
    let message = last_kind
        .message_for(schema, unknown.api_version, unknown.kind)
        .map_err(|e| malformed("an unknown kind").with_source(e))?;
    let type_meta = Some((unknown.api_version, unknown.kind));
    let object = || objects.decode(schema, message, unknown.raw, type_meta);
    let event = match ty {
        EventType::Added => object().map(WatchEvent::Added),
        EventType::Modified => object().map(WatchEvent::Modified),
        EventType::Deleted => object().map(WatchEvent::Deleted),
        EventType::Bookmark => {
            decode_message::<BookmarkObject>(schema, message, unknown.raw, None, None)
                .map(|b| WatchEvent::Bookmark(b.into_bookmark()))
        }
        EventType::Error => decode_message::<Status>(schema, message, unknown.raw, None, None)
            .map(|s| WatchEvent::Error(Box::new(s))),
    };
    event.map_err(|e| {
        malformed(format!(
            "unable to decode watch event object {}",
            unknown.kind
        ))
        .with_source(e)
    })
}

impl<K> fmt::Debug for ProtobufWatchDecoder<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProtobufWatchDecoder")
            .field("buffered", &self.pending.len())
            .field("max_frame", &self.max_frame)
            .field("finished", &self.finished)
            .field("projection", &self.objects.projects())
            .finish()
    }
}
