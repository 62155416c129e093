//! The metadata-only forms of stored objects (`PartialObjectMetadata`), built from the stored
//! bytes once per revision on first use.

use bytes::{BufMut, Bytes, BytesMut};
use serde_json::{Map, Value};

use super::record::{EventType, Record};

/// `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{...}}` for the
/// object `object` (its JSON); an object without metadata gets an empty one.
pub(crate) fn partial_object(object: &[u8]) -> Bytes {
    let metadata = match serde_json::from_slice::<Map<String, Value>>(object) {
        Ok(mut map) => map.remove("metadata").unwrap_or_default(),
        // Stored objects were serialized from maps, so they parse back.
        Err(_) => Value::Object(Map::new()),
    };
    let mut out = Vec::with_capacity(object.len() / 2);
    out.extend_from_slice(
        br#"{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":"#,
    );
    // Writing a JSON value into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut out, &metadata);
    out.push(b'}');
    Bytes::from(out)
}

/// A watch event line with its object reduced to metadata (bookmarks included); an `ERROR`
/// event, whose object is a `Status`, is left as it is.
pub(crate) fn partial_event_line(line: &[u8]) -> Bytes {
    let Ok(mut event) = serde_json::from_slice::<Map<String, Value>>(line) else {
        // A deliberately malformed line (a fault) stays malformed.
        return Bytes::copy_from_slice(line);
    };
    if event.get("type").and_then(Value::as_str) == Some("ERROR") {
        return Bytes::copy_from_slice(line);
    }
    let object = event.remove("object").unwrap_or_default();
    let object = serde_json::to_vec(&object).unwrap_or_default();
    let kind = event
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("MODIFIED");
    frame(kind, &partial_object(&object))
}

/// `{"type":T,"object":OBJ}\n`.
fn frame(kind: &str, object: &[u8]) -> Bytes {
    let head = format!(r#"{{"type":"{kind}","object":"#);
    let mut out = BytesMut::with_capacity(head.len() + object.len() + 2);
    out.put_slice(head.as_bytes());
    out.put_slice(object);
    out.put_slice(b"}\n");
    out.freeze()
}

impl Record {
    /// This revision's event line in metadata-only form, as `event` (its own type, or `ADDED`
    /// for initial events).
    pub(crate) fn partial_line(&self, event: EventType) -> Bytes {
        frame(event.name(), self.partial())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_metadata_and_types_it_as_partial_object_metadata() {
        let object = br#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"7","labels":{"app":"web"}},"spec":{"nodeName":"n1"}}"#;
        let partial: Value = serde_json::from_slice(&partial_object(object)).unwrap();
        assert_eq!(partial["kind"], "PartialObjectMetadata");
        assert_eq!(partial["apiVersion"], "meta.k8s.io/v1");
        assert_eq!(partial["metadata"]["labels"]["app"], "web");
        assert!(partial.get("spec").is_none());

        let bookmark = br#"{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"9","annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null}}}"#;
        let line: Value = serde_json::from_slice(&partial_event_line(bookmark)).unwrap();
        assert_eq!(line["type"], "BOOKMARK");
        assert_eq!(line["object"]["kind"], "PartialObjectMetadata");
        assert_eq!(line["object"]["metadata"]["resourceVersion"], "9");

        let error = br#"{"type":"ERROR","object":{"kind":"Status","code":410}}"#;
        assert_eq!(&partial_event_line(error)[..], &error[..]);
    }
}
