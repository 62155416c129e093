//! The protobuf form of a stored revision (`application/vnd.kubernetes.protobuf`), encoded once
//! when the revision is written, from the same map its JSON is written from: a protobuf list or
//! watch, even the first one after a start, then only copies stored bytes, as a JSON one does.
//! (Encoding on first use instead would parse the stored JSON back first, which costs several
//! times the encoding itself.)
//!
//! A built-in type's form is its message (`v1.Pod`). Every Kubernetes object's `metadata` is its
//! field 1, which the encoder writes first, so the object's `PartialObjectMetadata` message
//! (`metadata` = 1) is a prefix of it. A custom resource has no protobuf form of its own, only
//! that metadata-only message.

use std::cell::RefCell;

use bytes::Bytes;
use kinformer_protobuf::wire::{self, Reader};
use kinformer_protobuf::{MessageId, Schema};
use serde_json::{Map, Value};

use crate::resource::ResourceDef;

/// The message of `metadata` in every object.
const OBJECT_META: &str = "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// One revision's protobuf messages.
#[derive(Debug)]
pub(crate) struct Proto {
    /// The object's message, or for a custom resource its `PartialObjectMetadata` message.
    message: Bytes,
    /// Where the `metadata` field ends: `message[..meta_end]` is the `PartialObjectMetadata`.
    meta_end: usize,
    /// Whether `message` is the whole object.
    full: bool,
}

/// Why a revision has no protobuf form (its JSON does not fit the type's schema).
pub(crate) type Unencodable = Box<str>;

impl Proto {
    /// The object's message; `None` for a custom resource.
    pub(crate) fn object(&self) -> Option<&[u8]> {
        self.full.then_some(&self.message[..])
    }

    /// The object's `PartialObjectMetadata` message.
    pub(crate) fn partial(&self) -> &[u8] {
        &self.message[..self.meta_end]
    }

    /// This form with `metadata` replaced and every other field kept byte for byte (the
    /// metadata-only write path; `metadata` is field 1, so the rest follows it unchanged).
    pub(crate) fn with_metadata(&self, metadata: &Value) -> Result<Self, Unencodable> {
        scratch(|buf| {
            put_metadata(buf, metadata)?;
            let meta_end = buf.len();
            if self.full {
                buf.extend_from_slice(&self.message[self.meta_end..]);
            }
            Ok(finish(buf, meta_end, self.full))
        })
    }
}

/// Encodes `obj` (a stored object without `kind`/`apiVersion`) of `def`.
pub(crate) fn encode(
    def: &ResourceDef,
    obj: &mut Map<String, Value>,
) -> Result<Proto, Unencodable> {
    let schema = Schema::kubernetes();
    let message = def
        .builtin
        .then(|| schema.message_for(&def.api_version(), &def.kind).ok())
        .flatten();
    let Some(id) = message else {
        let metadata = obj.get("metadata").unwrap_or(&Value::Null);
        return scratch(|buf| {
            put_metadata(buf, metadata)?;
            Ok(finish(buf, buf.len(), false))
        });
    };
    // The encoder takes a value: lend it the map and take it back.
    let value = Value::Object(std::mem::take(obj));
    let encoded = scratch(|buf| {
        kinformer_protobuf::encode(schema, id, &value, buf).map_err(|e| e.to_string())?;
        let mut reader = Reader::new(buf);
        let meta_end = match reader.field() {
            Ok(Some((1, _))) => reader.position(),
            _ => 0,
        };
        Ok(finish(buf, meta_end, true))
    });
    if let Value::Object(map) = value {
        *obj = map;
    }
    encoded
}

/// Appends `metadata` as field 1 (an `ObjectMeta`), when the object has one.
fn put_metadata(buf: &mut Vec<u8>, metadata: &Value) -> Result<(), Unencodable> {
    if metadata.is_null() {
        return Ok(());
    }
    let schema = Schema::kubernetes();
    let id: MessageId = schema.message(OBJECT_META).map_err(|e| e.to_string())?;
    wire::put_nested(buf, 1, |out| {
        kinformer_protobuf::encode(schema, id, metadata, out)
    })
    .map_err(|e| format!("metadata: {e}").into())
}

/// The form held in `buf`, copied to an exact-size buffer: the scratch buffer is reused, and a
/// stored revision should not carry spare capacity.
fn finish(buf: &[u8], meta_end: usize, full: bool) -> Proto {
    Proto {
        message: Bytes::copy_from_slice(buf),
        meta_end,
        full,
    }
}

/// Runs `f` on the thread's cleared encoding buffer.
fn scratch<T>(f: impl FnOnce(&mut Vec<u8>) -> Result<T, Unencodable>) -> Result<T, Unencodable> {
    thread_local! {
        static SCRATCH: RefCell<Vec<u8>> = RefCell::new(Vec::with_capacity(16 * 1024));
    }
    SCRATCH.with(|scratch| {
        let mut buf = scratch.borrow_mut();
        buf.clear();
        f(&mut buf)
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::resource::Registry;

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_built_in_object_is_its_message_and_its_metadata_a_prefix() {
        let def = Registry::default().by_name("configmaps").unwrap();
        let mut obj = map(
            json!({"metadata": {"name": "a", "namespace": "n", "resourceVersion": "7"}, "data": {"k": "v"}}),
        );
        let proto = encode(&def, &mut obj).unwrap();
        assert_eq!(obj["data"]["k"], "v", "the map is given back");
        let schema = Schema::kubernetes();
        let cm = schema.message_for("v1", "ConfigMap").unwrap();
        let decoded: Value =
            kinformer_protobuf::from_slice(schema, cm, proto.object().unwrap()).unwrap();
        assert_eq!(decoded, Value::Object(obj));
        let partial = schema
            .message_for("meta.k8s.io/v1", "PartialObjectMetadata")
            .unwrap();
        let meta: Value = kinformer_protobuf::from_slice(schema, partial, proto.partial()).unwrap();
        assert_eq!(
            meta,
            json!({"metadata": {"name": "a", "namespace": "n", "resourceVersion": "7"}})
        );

        let relabeled = proto
            .with_metadata(&json!({"name": "a", "labels": {"x": "1"}}))
            .unwrap();
        let decoded: Value =
            kinformer_protobuf::from_slice(schema, cm, relabeled.object().unwrap()).unwrap();
        assert_eq!(
            decoded,
            json!({"metadata": {"name": "a", "labels": {"x": "1"}}, "data": {"k": "v"}})
        );
    }

    #[test]
    fn a_custom_resource_has_only_its_metadata_form() {
        let mut registry = Registry::default();
        let def = registry
            .register(&crate::CustomResource::example_widgets())
            .unwrap();
        let mut obj = map(json!({"metadata": {"name": "w"}, "spec": {"size": 3}}));
        let proto = encode(&def, &mut obj).unwrap();
        assert!(proto.object().is_none());
        let schema = Schema::kubernetes();
        let partial = schema
            .message_for("meta.k8s.io/v1", "PartialObjectMetadata")
            .unwrap();
        let meta: Value = kinformer_protobuf::from_slice(schema, partial, proto.partial()).unwrap();
        assert_eq!(meta, json!({"metadata": {"name": "w"}}));
    }

    #[test]
    fn json_that_does_not_fit_the_schema_has_no_protobuf_form() {
        let def = Registry::default().by_name("configmaps").unwrap();
        let mut obj = map(json!({"metadata": {"name": "a"}, "data": {"k": 5}}));
        let err = encode(&def, &mut obj).unwrap_err();
        assert!(err.contains("data"), "{err}");
    }
}
