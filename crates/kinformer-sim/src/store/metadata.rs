//! The fast path for writes that change only `metadata` (labels, annotations): the rest of the
//! stored object is copied as raw JSON instead of being parsed and re-serialized.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::read::current;
use super::record::meta_from;
use super::write::{Commit, MAX_RETRIES, Precondition};
use super::{EventType, Record, RecordRef, Store, key_of};
use crate::resource::ResourceDef;
use crate::status::ApiError;

impl Store {
    /// Changes `metadata` through `f` and keeps every other field byte for byte. Identity fields
    /// (name, namespace, uid, creationTimestamp) and the generation are kept whatever `f` does.
    pub(crate) fn update_metadata(
        &self,
        def: &Arc<ResourceDef>,
        namespace: &str,
        name: &str,
        mut f: impl FnMut(&mut Map<String, Value>),
    ) -> Result<RecordRef, ApiError> {
        let key = key_of(def, namespace, name);
        for _ in 0..MAX_RETRIES {
            let old =
                current(&self.read(), def, &key).ok_or_else(|| ApiError::not_found(def, name))?;
            let object = old.object();
            // Keys of stored objects are plain identifiers, so they borrow; anything else takes the
            // general path, as does an object being deleted (its finalizer rules are there).
            let parts = serde_json::from_slice::<BTreeMap<&str, &RawValue>>(&object)
                .ok()
                .filter(|parts| {
                    !parts
                        .get("metadata")
                        .is_some_and(|md| md.get().contains("\"deletionTimestamp\""))
                });
            let Some(parts) = parts else {
                return self.modify(def, namespace, name, Precondition::None, |mut v| {
                    if let Some(md) = v.get_mut("metadata").and_then(Value::as_object_mut) {
                        f(md);
                    }
                    match v {
                        Value::Object(m) => Ok(m),
                        _ => Err(ApiError::internal("stored object is not a map")),
                    }
                });
            };
            let mut md: Map<String, Value> = parts
                .get("metadata")
                .and_then(|raw| serde_json::from_str(raw.get()).ok())
                .unwrap_or_default();
            let keep: Vec<(String, Value)> = [
                "name",
                "namespace",
                "uid",
                "creationTimestamp",
                "generation",
            ]
            .iter()
            .filter_map(|k| md.get(*k).map(|v| ((*k).to_owned(), v.clone())))
            .collect();
            f(&mut md);
            md.extend(keep);
            let fields = old.meta.fields.clone();
            let prior = Arc::clone(&old);
            let protobuf = self.protobuf();
            let build = |rev: u64| {
                md.insert("resourceVersion".to_owned(), Value::String(rev.to_string()));
                let md_value = Value::Object(std::mem::take(&mut md));
                let meta = meta_from(Some(&md_value), fields);
                let proto = protobuf.then(|| {
                    prior
                        .proto(def)
                        .map_err(Box::<str>::from)
                        .and_then(|p| p.with_metadata(&md_value))
                });
                Record::from_body(def, EventType::Modified, rev, meta, proto, |buf| {
                    write_parts(buf, &parts, &md_value)
                })
            };
            match self.commit_if_unchanged(def, &key, EventType::Modified, old, build) {
                Commit::Done(record) => return Ok(record),
                Commit::Raced => {}
                Commit::Gone => return Err(ApiError::not_found(def, name)),
            }
        }
        Err(ApiError::conflict(def, name))
    }
}

/// `{"k":raw,...}` in key order, with `metadata` replaced and `kind`/`apiVersion` left out;
/// answers where the `metadata` value lies in `buf`.
fn write_parts(
    buf: &mut Vec<u8>,
    parts: &BTreeMap<&str, &RawValue>,
    metadata: &Value,
) -> Option<Range<usize>> {
    let mut range = None;
    buf.push(b'{');
    let mut first = true;
    for (k, v) in parts {
        if *k == "kind" || *k == "apiVersion" {
            continue;
        }
        if !first {
            buf.push(b',');
        }
        first = false;
        // Writing a string or a Value into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *buf, k);
        buf.push(b':');
        if *k == "metadata" {
            let start = buf.len();
            let _ = serde_json::to_writer(&mut *buf, metadata);
            range = Some(start..buf.len());
        } else {
            buf.extend_from_slice(v.get().as_bytes());
        }
    }
    buf.push(b'}');
    range
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::resource::Registry;

    #[test]
    fn metadata_updates_keep_the_rest_byte_for_byte() {
        let reg = Registry::default();
        let def = reg.by_name("pods").expect("built in");
        let store = Store::new(1, 0);
        let Value::Object(obj) = json!({"metadata": {"name": "p", "labels": {"a": "1"}}, "spec": {"nodeName": "n1", "x": [1, 2]}, "status": {"phase": "Running"}})
        else {
            unreachable!()
        };
        let created = store.create(&def, Some("ns"), obj).expect("create");
        let updated = store
            .update_metadata(&def, "ns", "p", |md| {
                md.insert("labels".into(), json!({"a": "2"}));
                md.insert("uid".into(), json!("forged"));
            })
            .expect("update");
        let before: Value = serde_json::from_slice(&created.object()).expect("json");
        let after: Value = serde_json::from_slice(&updated.object()).expect("json");
        assert_eq!(after["spec"], before["spec"]);
        assert_eq!(after["status"], before["status"]);
        assert_eq!(after["metadata"]["labels"]["a"], "2");
        assert_eq!(after["metadata"]["uid"], before["metadata"]["uid"]);
        assert_eq!(
            after["metadata"]["resourceVersion"],
            updated.rev.to_string()
        );
        assert_eq!(updated.meta.label("a"), Some("2"));
        assert_eq!(updated.meta.field(&def, "spec.nodeName"), Some("n1"));
        assert_eq!(after["kind"], "Pod");
    }
}
