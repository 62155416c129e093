//! The metadata-only forms of stored objects (`PartialObjectMetadata`): a fixed head, the stored
//! `metadata` bytes (whose place in the revision's line is kept when it is written) and a `}`,
//! copied straight into the response, so a metadata-only list costs what a full one does, the
//! first one included. (They used to be built on first use by parsing the stored object whole,
//! about 90 µs for a pod with realistic managedFields.)

use bytes::{BufMut, Bytes, BytesMut};
use serde_json::{Map, Value};

use super::record::{EventType, Record};

/// What a `PartialObjectMetadata` starts with, its `metadata` value following.
const HEAD: &[u8] = br#"{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":"#;

/// `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{...}}` for the
/// object `object` (its JSON); an object without metadata gets an empty one. Parses the object:
/// for the small synthetic ones (bookmarks), not stored revisions.
fn partial_object(object: &[u8]) -> Bytes {
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
    /// The length of [`Record::put_partial`]'s output.
    pub(crate) fn partial_len(&self) -> usize {
        HEAD.len() + self.metadata_json().len() + 1
    }

    /// Appends the object as `PartialObjectMetadata`.
    pub(crate) fn put_partial(&self, out: &mut BytesMut) {
        out.put_slice(HEAD);
        out.put_slice(self.metadata_json());
        out.put_u8(b'}');
    }

    /// The object as `PartialObjectMetadata`.
    pub(crate) fn partial(&self) -> Bytes {
        let mut out = BytesMut::with_capacity(self.partial_len());
        self.put_partial(&mut out);
        out.freeze()
    }

    /// This revision's event line in metadata-only form, as `event` (its own type, or `ADDED`
    /// for initial events).
    pub(crate) fn partial_line(&self, event: EventType) -> Bytes {
        frame(event.name(), &self.partial())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_revision_is_its_metadata_as_partial_object_metadata() {
        let reg = crate::resource::Registry::default();
        let def = reg.by_name("pods").unwrap();
        let Value::Object(mut obj) = serde_json::json!({"metadata": {"name": "a", "labels": {"app": "web"}}, "spec": {"nodeName": "n1"}})
        else {
            unreachable!()
        };
        let record = Record::build(&def, EventType::Modified, 3, &mut obj, false);
        let partial: Value = serde_json::from_slice(&record.partial()).unwrap();
        assert_eq!(
            partial,
            serde_json::json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": {"name": "a", "labels": {"app": "web"}}})
        );
        assert_eq!(record.partial().len(), record.partial_len());
        let line: Value = serde_json::from_slice(&record.partial_line(EventType::Added)).unwrap();
        assert_eq!(
            (line["type"].as_str(), &line["object"]),
            (Some("ADDED"), &partial)
        );

        let bare = Record::build(&def, EventType::Added, 4, &mut Map::new(), false);
        let partial: Value = serde_json::from_slice(&bare.partial()).unwrap();
        assert_eq!(partial["metadata"], serde_json::json!({}));
    }

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
