//! [`ProtobufWatchDecoder`]: a protobuf watch stream (`;stream=watch`) decoded frame by frame.
//!
//! Each frame is a 4-byte big-endian length, then a `meta.v1.WatchEvent` (`type` = 1, `object` =
//! 2, a `RawExtension` whose `raw` holds the object: `k8s\0` and a `runtime.Unknown`). A frame is
//! decoded once all of it has arrived, straight from the chunk when it lies in one; a length over
//! the frame limit ends the stream before any of the frame is buffered.

use std::collections::VecDeque;
use std::fmt;
use std::marker::PhantomData;

use bytes::{Buf, BytesMut};
use kinformer_core::{Fields, Status, WatchEvent};
use kinformer_protobuf::{Schema, envelope};
use serde::de::DeserializeOwned;

use super::object::{LastKind, Objects, decode_message};
use crate::decode::event::{BookmarkObject, EventType};
use crate::decode::limits::too_large;
use crate::error::{Error, Kind, Result};

/// The frame's length prefix.
const LENGTH: usize = 4;

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
    /// Bytes received and not consumed: at most one frame in progress.
    buf: BytesMut,
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
            buf: BytesMut::new(),
            max_frame,
            finished: false,
            objects: Objects::new(Fields::All),
            last_kind: LastKind::default(),
            _kind: PhantomData,
        }
    }

    /// Decodes `fields` of each object ([`Fields::All`], the default, decodes them whole): the
    /// generated typed decoder serves all fields and all but managedFields, a projection goes
    /// through serde.
    #[must_use]
    pub fn with_fields(mut self, fields: Fields) -> Self {
        self.objects = Objects::new(fields);
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
            // Straight from the chunk; only an incomplete frame's bytes are kept.
            if let Some(consumed) = self.run(chunk, out) {
                self.buf.extend_from_slice(&chunk[consumed..]);
            }
        } else {
            self.buf.extend_from_slice(chunk);
            let data = std::mem::take(&mut self.buf);
            if let Some(consumed) = self.run(&data, out) {
                self.buf = data;
                self.buf.advance(consumed);
            }
        }
    }

    /// Ends the input: a frame cut off by the end is an error.
    pub fn finish(&mut self, out: &mut VecDeque<Result<WatchEvent<K>>>) {
        if self.finished {
            return;
        }
        self.finished = true;
        if !std::mem::take(&mut self.buf).is_empty() {
            out.push_back(Err(Error::new(
                Kind::Transport,
                "the watch stream ended in the middle of an event",
            )));
        }
    }

    fn fail(&mut self, out: &mut VecDeque<Result<WatchEvent<K>>>, err: Error) {
        self.finished = true;
        self.buf = BytesMut::new();
        out.push_back(Err(err));
    }

    /// Decodes every complete frame of `data`: how many bytes were consumed, or `None` after an
    /// error.
    fn run(&mut self, data: &[u8], out: &mut VecDeque<Result<WatchEvent<K>>>) -> Option<usize> {
        let mut pos = 0;
        while let Some(prefix) = data.get(pos..pos + LENGTH) {
            let len = u32::from_be_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]);
            let len = usize::try_from(len).unwrap_or(usize::MAX);
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

/// One frame's `WatchEvent` as the JSON decoder would give it for the same event.
fn decode_event<K: DeserializeOwned + 'static>(
    schema: &Schema,
    objects: &Objects<K>,
    last_kind: &mut LastKind,
    frame: &[u8],
) -> Result<WatchEvent<K>> {
    let event = envelope::decode_watch_frame(frame)
        .map_err(|e| malformed("not a WatchEvent").with_source(e))?;
    let ty = EventType::parse(event.event_type).map_err(malformed)?;
    let unknown = envelope::decode(event.object)
        .map_err(|e| malformed("the event's object").with_source(e))?;
    unknown
        .check_plain()
        .map_err(|e| malformed("the event's object").with_source(e))?;
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
            .field("buffered", &self.buf.len())
            .field("max_frame", &self.max_frame)
            .field("finished", &self.finished)
            .field("fields", self.objects.fields())
            .finish()
    }
}
