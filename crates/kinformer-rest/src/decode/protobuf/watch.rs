//! [`ProtobufCodec`]: the frames of a protobuf watch stream (`;stream=watch`), for the one
//! [`WatchDecoder`](crate::decode::WatchDecoder) driver.
//!
//! Each frame is a 4-byte big-endian length, then a `meta.v1.WatchEvent` (`type` = 1, `object` =
//! 2, a `RawExtension` whose `raw` holds the object: `k8s\0` and a `runtime.Unknown`). A frame is
//! decoded once all of it has arrived, straight from the chunk when it lies in one; a length over
//! the frame limit ends the stream before any of the frame is buffered.

use std::collections::VecDeque;
use std::fmt;

use kinformer_core::{Fields, Status, WatchEvent};
use kinformer_protobuf::{Schema, envelope};
use serde::de::DeserializeOwned;

use super::object::{LastKind, Objects, decode_message};
use crate::decode::event::{BookmarkObject, EventType};
use crate::decode::limits::too_large;
use crate::decode::watch::{WatchCodec, cut_off};
use crate::error::{Error, Kind, Result};

/// The frame's length prefix.
const LENGTH: usize = 4;

/// The protobuf codec of a [`WatchDecoder`](crate::decode::WatchDecoder): length-prefixed `WatchEvent` frames (see the
/// module docs), each object decoded as the fields say: by the generated typed decoder for
/// k8s-openapi's types with [`Fields::All`] or [`Fields::WithoutManagedFields`], through serde
/// and the projection otherwise.
///
/// # Examples
/// ```
/// use std::collections::VecDeque;
///
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_protobuf::{Schema, envelope, to_vec};
/// use kinformer_rest::decoders::{ProtobufCodec, WatchDecoder};
///
/// let schema = Schema::kubernetes();
/// let cm = serde_json::json!({"metadata": {"name": "a", "resourceVersion": "5"}});
/// let mut object = Vec::new();
/// envelope::encode("v1", "ConfigMap", &to_vec(schema, schema.message_for("v1", "ConfigMap")?, &cm)?, &mut object);
/// let mut stream = Vec::new();
/// envelope::encode_watch_frame("ADDED", &object, &mut stream);
///
/// let mut decoder = WatchDecoder::<ConfigMap, ProtobufCodec<ConfigMap>>::new(1 << 20);
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
pub struct ProtobufCodec<K> {
    schema: &'static Schema,
    objects: Objects<K>,
    last_kind: LastKind,
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

impl<K: DeserializeOwned + 'static> Default for ProtobufCodec<K> {
    fn default() -> Self {
        Self {
            schema: Schema::kubernetes(),
            objects: Objects::new(Fields::All),
            last_kind: LastKind::default(),
        }
    }
}

impl<K: DeserializeOwned + 'static> WatchCodec<K> for ProtobufCodec<K> {
    fn set_fields(&mut self, fields: Fields) {
        self.objects = Objects::new(fields);
    }

    /// The limit and a frame's length prefix.
    fn max_buffered(max_frame: usize) -> usize {
        max_frame.saturating_add(LENGTH)
    }

    /// A length over `max_frame` ends the stream before any of its frame is buffered.
    fn events(
        &mut self,
        data: &[u8],
        _searched: usize,
        max_frame: usize,
        out: &mut VecDeque<Result<WatchEvent<K>>>,
    ) -> Result<usize> {
        let mut pos = 0;
        while let Some(prefix) = data.get(pos..pos + LENGTH) {
            let len = u32::from_be_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]);
            let len = usize::try_from(len).unwrap_or(usize::MAX);
            if len > max_frame {
                return Err(too_large("a watch event", max_frame));
            }
            let start = pos + LENGTH;
            let Some(frame) = start.checked_add(len).and_then(|end| data.get(start..end)) else {
                break;
            };
            let event = decode_event(self.schema, &self.objects, &mut self.last_kind, frame)?;
            out.push_back(Ok(event));
            pos += LENGTH + len;
        }
        Ok(pos)
    }

    /// Any byte left is a frame cut off by the end.
    fn finish(&mut self, rest: &[u8], out: &mut VecDeque<Result<WatchEvent<K>>>) {
        if !rest.is_empty() {
            out.push_back(Err(cut_off()));
        }
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

impl<K> fmt::Debug for ProtobufCodec<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProtobufCodec")
            .field("fields", self.objects.fields())
            .finish()
    }
}
