//! The framing around protobuf objects: the `k8s\0` magic and the `runtime.Unknown` message every
//! body carries (`typeMeta` = 1 {`apiVersion` = 1, `kind` = 2}, `raw` = 2, `contentEncoding` = 3,
//! `contentType` = 4), and the `meta.v1.WatchEvent` of a watch stream (`type` = 1, `object` = 2, a
//! `RawExtension` whose `raw` = 1 holds an enveloped object).

use crate::MEDIA_TYPE;
use crate::error::{Error, Result};
use crate::wire::{self, Reader, WireValue};

/// The four bytes every protobuf body starts with.
pub const MAGIC: &[u8; 4] = b"k8s\0";

/// An enveloped object: its type and its message bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Unknown<'a> {
    /// `apiVersion` of the object (`v1`, `apps/v1`).
    pub api_version: &'a str,
    /// `kind` of the object (`Pod`, `PodList`).
    pub kind: &'a str,
    /// The object's message.
    pub raw: &'a [u8],
    /// `contentEncoding`, empty when the raw bytes are not compressed (always, from the API server).
    pub content_encoding: &'a str,
    /// `contentType`, empty for protobuf.
    pub content_type: &'a str,
}

fn text<'a>(value: WireValue<'a>, what: &str) -> Result<&'a str> {
    match value {
        WireValue::Bytes(b) => std::str::from_utf8(b).map_err(|_| Error::NotUtf8(what.to_owned())),
        other => Err(Error::WrongWireType {
            message: "k8s.io.apimachinery.pkg.runtime.Unknown".into(),
            field: what.to_owned(),
            expected: wire::LEN,
            found: other.wire_type(),
        }),
    }
}

fn bytes<'a>(value: WireValue<'a>, what: &str) -> Result<&'a [u8]> {
    match value {
        WireValue::Bytes(b) => Ok(b),
        other => Err(Error::WrongWireType {
            message: "k8s.io.apimachinery.pkg.runtime.Unknown".into(),
            field: what.to_owned(),
            expected: wire::LEN,
            found: other.wire_type(),
        }),
    }
}

/// Reads a body: the magic, then a `runtime.Unknown`.
///
/// ```
/// use kinformer_protobuf::envelope;
///
/// let mut body = Vec::new();
/// envelope::encode("v1", "Pod", b"\x0a\x00", &mut body);
/// let unknown = envelope::decode(&body)?;
/// assert_eq!((unknown.api_version, unknown.kind, unknown.raw), ("v1", "Pod", &b"\x0a\x00"[..]));
/// # Ok::<(), kinformer_protobuf::Error>(())
/// ```
///
/// # Errors
/// [`Error::NotAnEnvelope`] without the magic; a malformed message.
pub fn decode(body: &[u8]) -> Result<Unknown<'_>> {
    let rest = body
        .strip_prefix(MAGIC.as_slice())
        .ok_or(Error::NotAnEnvelope)?;
    decode_unknown(rest)
}

/// Reads a `runtime.Unknown` message (no magic).
///
/// # Errors
/// A malformed message.
pub fn decode_unknown(message: &[u8]) -> Result<Unknown<'_>> {
    let mut unknown = Unknown::default();
    let mut reader = Reader::new(message);
    while let Some((number, value)) = reader.field()? {
        unknown.read_field(number, value)?;
    }
    Ok(unknown)
}

impl<'a> Unknown<'a> {
    /// `typeMeta`'s field number: a message of `apiVersion` (1) and `kind` (2).
    pub const TYPE_META: u32 = 1;
    /// `raw`'s field number: the object's message.
    pub const RAW: u32 = 2;
    /// `contentEncoding`'s field number.
    pub const CONTENT_ENCODING: u32 = 3;
    /// `contentType`'s field number.
    pub const CONTENT_TYPE: u32 = 4;

    /// Reads one field of the message into `self` (fields it does not know are ignored): the
    /// one reader of `runtime.Unknown`, for [`decode_unknown`] and for a decoder that streams
    /// the `raw` of a large body itself and hands the other fields here as they arrive.
    ///
    /// ```
    /// use kinformer_protobuf::envelope::Unknown;
    /// use kinformer_protobuf::wire::WireValue;
    ///
    /// let mut unknown = Unknown::default();
    /// unknown.read_field(Unknown::TYPE_META, WireValue::Bytes(b"\x0a\x02v1\x12\x03Pod"))?;
    /// assert_eq!((unknown.api_version, unknown.kind), ("v1", "Pod"));
    /// # Ok::<(), kinformer_protobuf::Error>(())
    /// ```
    ///
    /// # Errors
    /// A known field that is not length-delimited, text that is not UTF-8, a malformed
    /// `typeMeta`.
    pub fn read_field(&mut self, number: u32, value: WireValue<'a>) -> Result<()> {
        match number {
            Self::TYPE_META => {
                let mut meta = Reader::new(bytes(value, "typeMeta")?);
                while let Some((number, value)) = meta.field()? {
                    match number {
                        1 => self.api_version = text(value, "apiVersion")?,
                        2 => self.kind = text(value, "kind")?,
                        _ => {}
                    }
                }
            }
            Self::RAW => self.raw = bytes(value, "raw")?,
            Self::CONTENT_ENCODING => self.content_encoding = text(value, "contentEncoding")?,
            Self::CONTENT_TYPE => self.content_type = text(value, "contentType")?,
            _ => {}
        }
        Ok(())
    }

    /// Checks that the object is a plain protobuf message, as the API server always sends it:
    /// no `contentEncoding`, and no `contentType` but protobuf's.
    ///
    /// # Errors
    /// [`Error::NotPlain`] for a compressed object or one in another encoding.
    pub fn check_plain(&self) -> Result<()> {
        let plain_type =
            self.content_type.is_empty() || self.content_type.eq_ignore_ascii_case(MEDIA_TYPE);
        if self.content_encoding.is_empty() && plain_type {
            return Ok(());
        }
        Err(Error::NotPlain {
            content_type: self.content_type.to_owned(),
            content_encoding: self.content_encoding.to_owned(),
        })
    }
}

/// Appends a body: the magic and a `runtime.Unknown` holding `raw`, as the API server writes it
/// (empty `contentEncoding` and `contentType` included).
pub fn encode(api_version: &str, kind: &str, raw: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(MAGIC);
    let _ = wire::put_nested::<()>(out, Unknown::TYPE_META, |meta| {
        wire::put_bytes(meta, 1, api_version.as_bytes());
        wire::put_bytes(meta, 2, kind.as_bytes());
        Ok(())
    });
    wire::put_bytes(out, Unknown::RAW, raw);
    wire::put_bytes(out, Unknown::CONTENT_ENCODING, b"");
    wire::put_bytes(out, Unknown::CONTENT_TYPE, b"");
}

/// One frame of a protobuf watch stream as it lies on the wire: the event's type and its
/// object, still enveloped. The decoded event is `kinformer_core::WatchEvent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WatchFrame<'a> {
    /// `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK` or `ERROR`.
    pub event_type: &'a str,
    /// The object: `k8s\0` and a `runtime.Unknown` (read it with [`decode`]).
    pub object: &'a [u8],
}

/// Reads one watch frame's `meta.v1.WatchEvent` message (the frame without its 4-byte length).
///
/// # Errors
/// A malformed message.
pub fn decode_watch_frame(frame: &[u8]) -> Result<WatchFrame<'_>> {
    let mut event = WatchFrame::default();
    let mut reader = Reader::new(frame);
    while let Some((number, value)) = reader.field()? {
        match number {
            1 => event.event_type = text(value, "type")?,
            2 => {
                let mut raw = Reader::new(bytes(value, "object")?);
                while let Some((number, value)) = raw.field()? {
                    if number == 1 {
                        event.object = bytes(value, "object.raw")?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(event)
}

/// Appends one watch frame: the 4-byte big-endian length, then a `WatchEvent` whose object is
/// `object` (an enveloped object, as [`encode`] writes).
pub fn encode_watch_frame(event_type: &str, object: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    wire::put_bytes(out, 1, event_type.as_bytes());
    let _ = wire::put_nested::<()>(out, 2, |raw| {
        wire::put_bytes(raw, 1, object);
        Ok(())
    });
    // Frames are bounded far below 4 GiB by the server's object size limit.
    let len = u32::try_from(out.len() - start - 4).unwrap_or(u32::MAX);
    out[start..start + 4].copy_from_slice(&len.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watch_frames_round_trip() {
        let mut object = Vec::new();
        encode("v1", "ConfigMap", b"\x0a\x03\x0a\x01a", &mut object);
        let mut out = Vec::new();
        encode_watch_frame("ADDED", &object, &mut out);
        let len = u32::from_be_bytes([out[0], out[1], out[2], out[3]]) as usize;
        assert_eq!(len, out.len() - 4);
        let event = decode_watch_frame(&out[4..]).unwrap();
        assert_eq!(event.event_type, "ADDED");
        let unknown = decode(event.object).unwrap();
        assert_eq!((unknown.api_version, unknown.kind), ("v1", "ConfigMap"));
    }

    #[test]
    fn only_plain_protobuf_objects_pass() {
        let plain = Unknown::default();
        assert!(plain.check_plain().is_ok());
        let named = Unknown {
            content_type: "Application/VND.Kubernetes.Protobuf",
            ..Unknown::default()
        };
        assert!(named.check_plain().is_ok());
        for unknown in [
            Unknown {
                content_encoding: "gzip",
                ..Unknown::default()
            },
            Unknown {
                content_type: "application/json",
                ..Unknown::default()
            },
        ] {
            assert!(matches!(unknown.check_plain(), Err(Error::NotPlain { .. })));
        }
    }

    #[test]
    fn fields_read_one_at_a_time_build_what_the_whole_message_does() {
        let mut body = Vec::new();
        encode("apps/v1", "Deployment", b"\x0a\x00", &mut body);
        let whole = decode(&body).unwrap();
        let mut reader = Reader::new(&body[MAGIC.len()..]);
        let mut fields = Unknown::default();
        while let Some((number, value)) = reader.field().unwrap() {
            fields.read_field(number, value).unwrap();
        }
        assert_eq!(fields, whole);
        let mut wrong = Unknown::default();
        assert!(
            wrong
                .read_field(Unknown::RAW, WireValue::Varint(1))
                .is_err()
        );
        assert!(
            wrong
                .read_field(Unknown::CONTENT_TYPE, WireValue::Bytes(b"\xff"))
                .is_err()
        );
    }

    #[test]
    fn a_body_without_magic_is_refused() {
        assert!(matches!(
            decode(b"{\"kind\":\"Pod\"}"),
            Err(Error::NotAnEnvelope)
        ));
        assert!(matches!(decode(b"k8s\0\x0a\x05"), Err(Error::Truncated(_))));
    }
}
