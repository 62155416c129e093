//! One stored revision of one object: its watch-event line serialized once, its protobuf form,
//! plus parsed metadata.

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use bytes::{BufMut, Bytes, BytesMut};
use serde_json::{Map, Value};

use super::proto::{self, Proto, Unencodable};
use crate::resource::ResourceDef;

/// The watch event types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EventType {
    Added,
    Modified,
    Deleted,
}

impl EventType {
    /// The event's `type` on the wire.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Added => "ADDED",
            Self::Modified => "MODIFIED",
            Self::Deleted => "DELETED",
        }
    }

    fn prefix(self) -> &'static [u8] {
        match self {
            Self::Added => br#"{"type":"ADDED","object":"#,
            Self::Modified => br#"{"type":"MODIFIED","object":"#,
            Self::Deleted => br#"{"type":"DELETED","object":"#,
        }
    }
}

/// What selectors and paging need from an object, parsed once at write time.
#[derive(Debug, Clone)]
pub(crate) struct Meta {
    pub(crate) namespace: Box<str>,
    pub(crate) name: Box<str>,
    pub(crate) uid: Box<str>,
    pub(crate) labels: Box<[(Box<str>, Box<str>)]>,
    /// Values of the resource's extra selectable fields, in `ResourceDef::fields` order.
    pub(crate) fields: Box<[Box<str>]>,
    /// Its owner references (what garbage collection follows).
    pub(crate) owners: Box<[super::owners::Owner]>,
}

impl Meta {
    pub(crate) fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| &**k == key)
            .map(|(_, v)| &**v)
    }

    pub(crate) fn field(&self, def: &ResourceDef, field: &str) -> Option<&str> {
        match field {
            "metadata.name" => Some(&self.name),
            "metadata.namespace" => Some(&self.namespace),
            _ => def
                .fields
                .iter()
                .position(|f| *f == field)
                .map(|i| &*self.fields[i]),
        }
    }
}

/// One revision of one object.
///
/// `line` is the complete watch event, `{"type":T,"object":{"kind":..,"apiVersion":..,REST}}\n`.
/// The object, the list item (without `kind`/`apiVersion` for built-ins), its `metadata` (of the
/// metadata-only forms) and the event are all slices of that one buffer, so a revision is
/// serialized exactly once.
#[derive(Debug)]
pub(crate) struct Record {
    pub(crate) rev: u64,
    pub(crate) event: EventType,
    pub(super) line: Bytes,
    pub(super) obj_start: usize,
    /// Where `REST` starts: the first field after `kind`/`apiVersion`.
    pub(super) rest_start: usize,
    /// Where the object's `metadata` value lies in `line` (empty: it has none).
    metadata: Range<usize>,
    pub(super) builtin: bool,
    pub(crate) meta: Meta,
    /// The same object framed as an `ADDED` event, built on first use (synthetic initial events).
    added: OnceLock<Bytes>,
    /// The protobuf form: encoded with the JSON one when the store encodes protobuf on write,
    /// else on first use.
    proto: OnceLock<Result<Proto, Unencodable>>,
}

impl Record {
    /// Serializes `obj` (whose `kind`/`apiVersion` are replaced by the resource's) as an event
    /// line, and with `protobuf` encodes its protobuf form too (else that waits for first use).
    pub(crate) fn build(
        def: &ResourceDef,
        event: EventType,
        rev: u64,
        obj: &mut Map<String, Value>,
        protobuf: bool,
    ) -> Self {
        obj.remove("kind");
        obj.remove("apiVersion");
        crate::write_rules::normalize_stored(def, obj);
        let meta = extract_meta(def, obj);
        let proto = protobuf.then(|| proto::encode(def, obj));
        Self::from_body(def, event, rev, meta, proto, |buf| write_object(buf, obj))
    }

    /// A revision whose body (a JSON object without `kind`/`apiVersion`) `write_body` serializes,
    /// answering where in the buffer it wrote the `metadata` value; its protobuf form `proto`,
    /// or `None` to encode it on first use.
    pub(crate) fn from_body(
        def: &ResourceDef,
        event: EventType,
        rev: u64,
        meta: Meta,
        proto: Option<Result<Proto, Unencodable>>,
        write_body: impl FnOnce(&mut Vec<u8>) -> Option<Range<usize>>,
    ) -> Self {
        let type_meta = format!(
            r#"{{"kind":"{}","apiVersion":"{}""#,
            def.kind,
            def.api_version()
        );
        let (line, obj_start, rest_start, metadata) = SCRATCH.with(|scratch| {
            let mut buf = scratch.borrow_mut();
            buf.clear();
            buf.extend_from_slice(event.prefix());
            let obj_start = buf.len();
            buf.extend_from_slice(type_meta.as_bytes());
            let open = buf.len();
            // The body is written as `{...}`: its `{` becomes the `,` after apiVersion.
            let metadata = write_body(&mut buf).unwrap_or(open..open);
            let rest_start = if buf.len() - open > 2 {
                buf[open] = b',';
                open + 1
            } else {
                buf.truncate(open);
                buf.push(b'}');
                open
            };
            buf.extend_from_slice(b"}\n");
            // Copy into an exact-size buffer: the scratch buffer is reused, and a stored revision
            // should not carry spare capacity.
            (
                Bytes::copy_from_slice(&buf),
                obj_start,
                rest_start,
                metadata,
            )
        });
        Self {
            rev,
            event,
            line,
            obj_start,
            rest_start,
            metadata,
            builtin: def.builtin,
            meta,
            added: OnceLock::new(),
            proto: proto.map_or_else(OnceLock::new, OnceLock::from),
        }
    }

    /// The object's `metadata` as JSON (`{}` when it has none).
    pub(crate) fn metadata_json(&self) -> &[u8] {
        if self.metadata.is_empty() {
            b"{}"
        } else {
            &self.line[self.metadata.clone()]
        }
    }

    /// The protobuf form (of an object of `def`), encoded now if it was not when written; the
    /// reason there is none when the object does not fit its schema.
    pub(crate) fn proto(&self, def: &ResourceDef) -> Result<&Proto, &str> {
        self.proto
            .get_or_init(|| {
                // Parsing the stored JSON back costs more than encoding it: the store encodes on
                // write once protobuf is asked for.
                let mut map = self.to_map();
                map.remove("kind");
                map.remove("apiVersion");
                proto::encode(def, &mut map)
            })
            .as_ref()
            .map_err(|e| &**e)
    }

    /// The event line, newline included.
    #[cfg(test)]
    pub(crate) fn line(&self) -> &Bytes {
        &self.line
    }

    /// The object with `kind` and `apiVersion`.
    pub(crate) fn object(&self) -> Bytes {
        self.line.slice(self.obj_start..self.line.len() - 2)
    }

    /// Appends the object as a list item (built-ins without `kind`/`apiVersion`).
    pub(crate) fn put_item(&self, out: &mut BytesMut) {
        if self.builtin {
            out.put_u8(b'{');
            out.put_slice(&self.line[self.rest_start..self.line.len() - 2]);
        } else {
            out.put_slice(&self.line[self.obj_start..self.line.len() - 2]);
        }
    }

    pub(crate) fn item_len(&self) -> usize {
        if self.builtin {
            self.line.len() - 1 - self.rest_start
        } else {
            self.line.len() - 2 - self.obj_start
        }
    }

    /// This object as an `ADDED` event line.
    pub(crate) fn added_line(&self) -> Bytes {
        if self.event == EventType::Added {
            return self.line.clone();
        }
        self.added
            .get_or_init(|| reframe(EventType::Added, &self.line[self.obj_start..]))
            .clone()
    }

    /// This object's event line as `event`: its own, or an `ADDED` (initial events, an object
    /// entering a selector).
    pub(crate) fn line_as(&self, event: EventType) -> Bytes {
        match event {
            own if own == self.event => self.line.clone(),
            EventType::Added => self.added_line(),
            other => reframe(other, &self.line[self.obj_start..]),
        }
    }

    /// Parses the object back into a JSON map (for updates and patches; not on hot read paths).
    pub(crate) fn to_map(&self) -> Map<String, Value> {
        match serde_json::from_slice::<Value>(&self.object()) {
            Ok(Value::Object(m)) => m,
            // The buffer was produced by serde_json from a map, so it always parses back to one.
            _ => Map::new(),
        }
    }
}

/// `{"type":T,"object":` + the rest of an existing line (object, `}` and newline).
pub(crate) fn reframe(event: EventType, obj_and_tail: &[u8]) -> Bytes {
    let prefix = event.prefix();
    let mut out = BytesMut::with_capacity(prefix.len() + obj_and_tail.len());
    out.put_slice(prefix);
    out.put_slice(obj_and_tail);
    out.freeze()
}

/// Writes `obj` as serde_json writes a map (`{"k":v,...}`) and answers where its `metadata` value
/// lies in `buf`.
fn write_object(buf: &mut Vec<u8>, obj: &Map<String, Value>) -> Option<Range<usize>> {
    let mut metadata = None;
    buf.push(b'{');
    for (i, (key, value)) in obj.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        // Writing a string or a value into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *buf, key);
        buf.push(b':');
        let start = buf.len();
        let _ = serde_json::to_writer(&mut *buf, value);
        if key == "metadata" {
            metadata = Some(start..buf.len());
        }
    }
    buf.push(b'}');
    metadata
}

fn extract_meta(def: &ResourceDef, obj: &Map<String, Value>) -> Meta {
    let fields = def
        .fields
        .iter()
        .map(|path| field_value(obj, path).into_boxed_str())
        .collect();
    meta_from(obj.get("metadata"), fields)
}

/// Meta from a parsed `metadata` and already-known selectable field values.
pub(crate) fn meta_from(md: Option<&Value>, fields: Box<[Box<str>]>) -> Meta {
    let s = |k: &str| {
        md.and_then(|m| m.get(k))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .into()
    };
    let labels = md
        .and_then(|m| m.get("labels"))
        .and_then(Value::as_object)
        .map(|l| {
            l.iter()
                .map(|(k, v)| (k.as_str().into(), v.as_str().unwrap_or_default().into()))
                .collect()
        })
        .unwrap_or_default();
    Meta {
        namespace: s("namespace"),
        name: s("name"),
        uid: s("uid"),
        labels,
        fields,
        owners: super::owners::owners_from(md),
    }
}

fn field_value(obj: &Map<String, Value>, path: &str) -> String {
    let mut cur: Option<&Value> = None;
    for (i, part) in path.split('.').enumerate() {
        cur = if i == 0 {
            obj.get(part)
        } else {
            cur.and_then(|v| v.get(part))
        };
    }
    match cur {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => n.to_string(),
        // status.podIPs is a list of {ip}; the apiserver matches its first entry.
        Some(Value::Array(a)) => a
            .first()
            .and_then(|v| v.get("ip"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        // A missing boolean field reads as "false", like Go's zero value.
        None if path == "spec.hostNetwork" || path == "spec.unschedulable" => "false".to_owned(),
        // A replica set's status.replicas is a plain int32: missing reads as 0.
        None if path == "status.replicas" => "0".to_owned(),
        _ => String::new(),
    }
}

thread_local! {
    /// Serialization scratch space, reused so each write allocates only its final buffer.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(Vec::with_capacity(16 * 1024));
}

/// A shared record.
pub(crate) type RecordRef = Arc<Record>;

#[cfg(test)]
#[path = "record_tests.rs"]
mod tests;
