//! What a watch stream sends, in the representation its request negotiated: JSON lines or
//! protobuf frames, of the objects or of their metadata only.

use std::cell::Cell;

use bytes::Bytes;
use serde_json::{Value, json};

use crate::http::table::{bookmark_table, event_table};
use crate::http::{Encoding, Media};
use crate::protobuf;
use crate::resource::ResourceDef;
use crate::status::ApiError;
use crate::store::{EventType, Record, partial_event_line};

/// One line that is not JSON, for the malformed-stream faults.
const MALFORMED: &[u8] = b"{\"type\":\"MODIFIED\",\"object\":{\"kind\":\n";

/// How one watch encodes what it sends.
#[derive(Debug)]
pub(super) struct Encoder {
    media: Media,
    /// Whether a Table event has carried the column definitions yet (only the first does).
    headers_sent: Cell<bool>,
}

impl Encoder {
    pub(super) fn new(media: Media) -> Self {
        Self {
            media,
            headers_sent: Cell::new(false),
        }
    }

    /// `record` as an event of type `event`.
    pub(super) fn event(
        &self,
        def: &ResourceDef,
        record: &Record,
        event: EventType,
    ) -> Result<Bytes, ApiError> {
        let converted = crate::conversion::served(def, record);
        let record = converted.as_ref().unwrap_or(record);
        if let Some(include) = self.media.table() {
            let headers = !self.headers_sent.replace(true);
            let object = event_table(def, record, include, headers);
            return Ok(line(event.name(), &object));
        }
        match (self.media.encoding, self.media.metadata_only()) {
            (Encoding::Json, false) => Ok(record.line_for(def, event)),
            (Encoding::Json, true) => Ok(record.partial_line(event)),
            (Encoding::Protobuf, partial) => protobuf::event(def, record, event.name(), partial),
        }
    }

    /// A BOOKMARK at `rev`, marking the end of the initial events when `initial_end`.
    pub(super) fn bookmark(
        &self,
        def: &ResourceDef,
        rev: u64,
        initial_end: bool,
    ) -> Result<Bytes, ApiError> {
        if self.media.table().is_some() {
            let mut table = bookmark_table(rev);
            if initial_end {
                table["metadata"]["annotations"] = json!({"k8s.io/initial-events-end": "true"});
            }
            return Ok(line("BOOKMARK", &table));
        }
        let object = bookmark_object(def, rev, initial_end);
        match (self.media.encoding, self.media.metadata_only()) {
            (Encoding::Json, partial) => {
                let line =
                    Bytes::from(format!(r#"{{"type":"BOOKMARK","object":{object}}}"#) + "\n");
                Ok(if partial {
                    partial_event_line(&line)
                } else {
                    line
                })
            }
            (Encoding::Protobuf, partial) => {
                let object: Value = serde_json::from_str(&object)
                    .map_err(|e| ApiError::internal(format!("bookmark: {e}")))?;
                protobuf::bookmark(def, &object, partial)
            }
        }
    }

    /// An ERROR event carrying `e`'s Status.
    pub(super) fn error(&self, e: &ApiError) -> Bytes {
        match self.media.encoding {
            Encoding::Json => Bytes::from(format!(
                "{{\"type\":\"ERROR\",\"object\":{}}}\n",
                e.status()
            )),
            Encoding::Protobuf => protobuf::error_event(&e.status()),
        }
    }

    /// Bytes that are not an event, for the malformed-stream faults.
    pub(super) fn malformed(&self) -> Bytes {
        Bytes::from_static(match self.media.encoding {
            Encoding::Json => MALFORMED,
            Encoding::Protobuf => protobuf::MALFORMED,
        })
    }
}

/// One JSON watch line.
fn line(event: &str, object: &Value) -> Bytes {
    Bytes::from(format!("{{\"type\":\"{event}\",\"object\":{object}}}\n"))
}

/// A BOOKMARK's object: the watched kind with only `metadata.resourceVersion` (and the
/// initial-events-end annotation) set, plus the zero-value fields a Go struct would print.
fn bookmark_object(def: &ResourceDef, rev: u64, initial_end: bool) -> String {
    let annotations = if initial_end {
        r#","annotations":{"k8s.io/initial-events-end":"true"}"#
    } else {
        ""
    };
    format!(
        r#"{{"kind":"{}","apiVersion":"{}","metadata":{{"resourceVersion":"{rev}","creationTimestamp":null{annotations}}}{}}}"#,
        def.kind,
        def.api_version(),
        def.bookmark_tail
    )
}

#[cfg(test)]
mod tests {
    use kinformer_protobuf::{Schema, envelope};

    use super::*;
    use crate::http::Form as Shape;
    use crate::resource::Registry;

    fn form(shape: Shape, encoding: Encoding) -> Encoder {
        Encoder::new(Media {
            form: shape,
            encoding,
        })
    }

    #[test]
    fn bookmarks_in_every_representation() {
        let pods = Registry::default().by_name("pods").unwrap();
        let json = form(Shape::Object, Encoding::Json)
            .bookmark(&pods, 9, true)
            .unwrap();
        assert_eq!(
            &json[..],
            &b"{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"9\",\"creationTimestamp\":null,\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}},\"spec\":{\"containers\":null},\"status\":{}}}\n"[..]
        );
        let schema = Schema::kubernetes();
        for (shape, kind) in [
            (Shape::Object, "Pod"),
            (Shape::PartialObject, "PartialObjectMetadata"),
        ] {
            let frame = form(shape, Encoding::Protobuf)
                .bookmark(&pods, 9, true)
                .unwrap();
            assert_eq!(
                u32::from_be_bytes(frame[..4].try_into().unwrap()) as usize,
                frame.len() - 4
            );
            let event = envelope::decode_watch_frame(&frame[4..]).unwrap();
            assert_eq!(event.event_type, "BOOKMARK");
            let object = envelope::decode(event.object).unwrap();
            assert_eq!(object.kind, kind);
            let id = schema.message_for(object.api_version, object.kind).unwrap();
            let value: Value = kinformer_protobuf::from_slice(schema, id, object.raw).unwrap();
            assert_eq!(value["metadata"]["resourceVersion"], "9");
            assert_eq!(
                value["metadata"]["annotations"]["k8s.io/initial-events-end"],
                "true"
            );
        }
    }

    #[test]
    fn errors_are_status_objects_typed_v1() {
        let e = ApiError::expired("too old resource version: 3 (5)");
        let frame = form(Shape::Object, Encoding::Protobuf).error(&e);
        let event = envelope::decode_watch_frame(&frame[4..]).unwrap();
        assert_eq!(event.event_type, "ERROR");
        let object = envelope::decode(event.object).unwrap();
        assert_eq!((object.api_version, object.kind), ("v1", "Status"));
        let schema = Schema::kubernetes();
        let id = schema
            .message("k8s.io.apimachinery.pkg.apis.meta.v1.Status")
            .unwrap();
        let status: Value = kinformer_protobuf::from_slice(schema, id, object.raw).unwrap();
        assert_eq!(
            (status["code"].as_i64(), status["reason"].as_str()),
            (Some(410), Some("Expired"))
        );

        let malformed = form(Shape::Object, Encoding::Protobuf).malformed();
        assert!(envelope::decode_watch_frame(&malformed[4..]).is_err());
    }
}
