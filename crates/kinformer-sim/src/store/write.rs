//! Writes: each takes the next global revision, serializes the object once, appends to the history
//! and the event log, and wakes the resource's watchers.

use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value, json};

use super::read::current;
use super::{Collection, Event, EventType, Inner, Record, RecordRef, Store, Version, key_of};
use crate::rng::{self, Rng};
use crate::{clock, resource::ResourceDef, status::ApiError, write_rules};

/// What an update requires of the current object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Precondition {
    /// Apply to whatever is current (retry internally on a race).
    None,
    /// The current revision must be exactly this one, or the write fails with 409 Conflict.
    Revision(u64),
}

/// How many times an unconditional read-modify-write retries a lost race before giving up.
pub(super) const MAX_RETRIES: usize = 64;

impl Store {
    /// Creates an object. The namespace comes from the path (or the object, when the path has none).
    pub(crate) fn create(
        &self,
        def: &Arc<ResourceDef>,
        namespace: Option<&str>,
        obj: Map<String, Value>,
    ) -> Result<RecordRef, ApiError> {
        self.create_with(def, namespace, obj, false)
    }

    /// Creates an object, or with `dry_run` answers what would be created (without a
    /// resourceVersion, as the API server answers) and writes nothing.
    pub(crate) fn create_with(
        &self,
        def: &Arc<ResourceDef>,
        namespace: Option<&str>,
        mut obj: Map<String, Value>,
        dry_run: bool,
    ) -> Result<RecordRef, ApiError> {
        let md = metadata_mut(&mut obj)?;
        let mut name = md
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if name.is_empty() {
            let Some(base) = md
                .get("generateName")
                .and_then(Value::as_str)
                .filter(|g| !g.is_empty())
            else {
                return Err(ApiError::name_required(def));
            };
            let mut r = Rng::derive(self.salt, self.revision());
            name = format!("{base}{}", r.alnum(5));
            md.insert("name".into(), json!(name));
        }
        let ns = if def.namespaced {
            let ns = namespace
                .map(str::to_owned)
                .or_else(|| {
                    md.get("namespace")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .unwrap_or_else(|| "default".to_owned());
            md.insert("namespace".into(), json!(ns));
            ns
        } else {
            md.remove("namespace");
            String::new()
        };
        md.insert("creationTimestamp".into(), json!(clock::now_rfc3339()));
        md.remove("deletionTimestamp");
        md.remove("resourceVersion");
        if write_rules::starts_generation(def, &obj) {
            metadata_mut(&mut obj)?.insert("generation".into(), json!(1));
        }
        let key = key_of(def, &ns, &name);
        let mut inner = self.write_lock();
        if current(&inner, def, &key).is_some() {
            return Err(ApiError::already_exists(def, &name));
        }
        if dry_run {
            let uid = rng::uuid(&mut Rng::derive(self.salt, inner.uid_counter + 1));
            metadata_mut(&mut obj)?.insert("uid".into(), json!(uid));
            let record = Record::build(def, EventType::Added, 0, &mut obj, false);
            return Ok(Arc::new(record));
        }
        inner.uid_counter += 1;
        let uid = rng::uuid(&mut Rng::derive(self.salt, inner.uid_counter));
        metadata_mut(&mut obj)?.insert("uid".into(), json!(uid));
        Ok(self.commit(&mut inner, def, &key, EventType::Added, None, &mut obj))
    }

    /// Replaces an object. A `metadata.resourceVersion` in `obj` is a precondition (409 when stale).
    pub(crate) fn update(
        &self,
        def: &Arc<ResourceDef>,
        namespace: &str,
        name: &str,
        obj: Map<String, Value>,
    ) -> Result<RecordRef, ApiError> {
        let pre =
            match obj
                .get("metadata")
                .and_then(|m| m.get("resourceVersion"))
                .and_then(Value::as_str)
            {
                Some(rv) if !rv.is_empty() => Precondition::Revision(rv.parse().map_err(|_| {
                    ApiError::bad_request(format!("invalid resource version: {rv}"))
                })?),
                _ => Precondition::None,
            };
        self.modify(def, namespace, name, pre, |_| Ok(obj.clone()))
    }

    /// Applies a JSON merge patch (RFC 7386) to an object.
    pub(crate) fn patch(
        &self,
        def: &Arc<ResourceDef>,
        namespace: &str,
        name: &str,
        patch: &Value,
    ) -> Result<RecordRef, ApiError> {
        let pre =
            match patch
                .get("metadata")
                .and_then(|m| m.get("resourceVersion"))
                .and_then(Value::as_str)
            {
                Some(rv) => Precondition::Revision(rv.parse().map_err(|_| {
                    ApiError::bad_request(format!("invalid resource version: {rv}"))
                })?),
                None => Precondition::None,
            };
        if pre == Precondition::None
            && let Some(md_patch) = metadata_only(patch)
        {
            // Labels and annotations: keep spec and status as stored bytes.
            return self.update_metadata(def, namespace, name, |md| {
                let mut v = Value::Object(std::mem::take(md));
                crate::patch::merge::merge_patch(&mut v, md_patch);
                if let Value::Object(m) = v {
                    *md = m;
                }
            });
        }
        self.modify(def, namespace, name, pre, |mut current| {
            crate::patch::merge::merge_patch(&mut current, patch);
            match current {
                Value::Object(m) => Ok(m),
                _ => Err(ApiError::bad_request("the patch must be a JSON object")),
            }
        })
    }

    /// Read-modify-write of one object: `f` gets the current object and returns the new one.
    pub(crate) fn modify(
        &self,
        def: &Arc<ResourceDef>,
        namespace: &str,
        name: &str,
        pre: Precondition,
        f: impl FnMut(Value) -> Result<Map<String, Value>, ApiError>,
    ) -> Result<RecordRef, ApiError> {
        self.modify_with(def, namespace, name, pre, false, f)
    }

    /// [`Store::modify`]; with `dry_run`, answers the object as it would be stored (at the current
    /// resourceVersion) and writes nothing. A change that leaves the object as it is writes nothing
    /// either and answers the stored object, as etcd's storage skips identical writes.
    pub(crate) fn modify_with(
        &self,
        def: &Arc<ResourceDef>,
        namespace: &str,
        name: &str,
        pre: Precondition,
        dry_run: bool,
        mut f: impl FnMut(Value) -> Result<Map<String, Value>, ApiError>,
    ) -> Result<RecordRef, ApiError> {
        let key = key_of(def, namespace, name);
        for _ in 0..MAX_RETRIES {
            let old =
                current(&self.read(), def, &key).ok_or_else(|| ApiError::not_found(def, name))?;
            if let Precondition::Revision(rev) = pre
                && rev != old.rev
            {
                return Err(ApiError::conflict(def, name));
            }
            let old_map = old.to_map();
            let old_content = old_map.clone();
            let old_md = old_map
                .get("metadata")
                .cloned()
                .unwrap_or_else(|| json!({}));
            let mut new = f(Value::Object(old_map))?;
            let md = metadata_mut(&mut new)?;
            // Identity and server-owned fields come from the stored object, whatever the client sent.
            md.insert("name".into(), json!(name));
            if def.namespaced {
                md.insert("namespace".into(), json!(namespace));
            } else {
                md.remove("namespace");
            }
            for f in ["uid", "creationTimestamp"] {
                match old_md.get(f) {
                    Some(v) => md.insert(f.into(), v.clone()),
                    None => md.remove(f),
                };
            }
            let md = metadata_mut(&mut new)?;
            let finishing = super::finalizers::guard_write(def, name, &old_md, md)?
                && !super::finalizers::held_by_spec(def, &new);
            match old_md.get("generation").and_then(Value::as_i64) {
                Some(generation) => {
                    let bump = i64::from(write_rules::bumps_generation(def, &old_content, &new));
                    metadata_mut(&mut new)?.insert("generation".into(), json!(generation + bump));
                }
                None => drop(metadata_mut(&mut new)?.remove("generation")),
            }
            new.remove("kind");
            new.remove("apiVersion");
            set_resource_version(&mut new, old.rev);
            let mut unchanged = old_content;
            unchanged.remove("kind");
            unchanged.remove("apiVersion");
            if new == unchanged {
                return Ok(old);
            }
            // The write that removes the last finalizer of an object being deleted deletes it.
            let kind = if finishing {
                EventType::Deleted
            } else {
                EventType::Modified
            };
            if dry_run {
                return Ok(Arc::new(Record::build(def, kind, old.rev, &mut new, false)));
            }
            let build = stamped(def, kind, &mut new, self.protobuf());
            match self.commit_if_unchanged(def, &key, kind, old, build) {
                Commit::Done(record) => return Ok(record),
                Commit::Raced if pre != Precondition::None => {
                    return Err(ApiError::conflict(def, name));
                }
                Commit::Raced => {}
                Commit::Gone => return Err(ApiError::not_found(def, name)),
            }
        }
        Err(ApiError::conflict(def, name))
    }

    /// Appends one revision (`obj` gets its resourceVersion) under the lock: the log stays in order.
    pub(super) fn commit(
        &self,
        inner: &mut Inner,
        def: &Arc<ResourceDef>,
        key: &str,
        kind: EventType,
        prev: Option<RecordRef>,
        obj: &mut Map<String, Value>,
    ) -> RecordRef {
        let build = stamped(def, kind, obj, self.protobuf());
        self.commit_with(inner, def, key, kind, prev, build)
    }

    /// Commits `build`'s revision of `key` if it is still at `old`'s (an optimistic write's end).
    pub(super) fn commit_if_unchanged(
        &self,
        def: &Arc<ResourceDef>,
        key: &str,
        kind: EventType,
        old: RecordRef,
        build: impl FnOnce(u64) -> Record,
    ) -> Commit {
        let mut inner = self.write_lock();
        match current(&inner, def, key) {
            Some(now) if now.rev == old.rev => {
                Commit::Done(self.commit_with(&mut inner, def, key, kind, Some(old), build))
            }
            Some(_) => Commit::Raced,
            None => Commit::Gone,
        }
    }

    /// Appends the revision `build` makes for the next revision number.
    pub(super) fn commit_with(
        &self,
        inner: &mut Inner,
        def: &Arc<ResourceDef>,
        key: &str,
        kind: EventType,
        prev: Option<RecordRef>,
        build: impl FnOnce(u64) -> Record,
    ) -> RecordRef {
        inner.revision += 1;
        let rev = inner.revision;
        let record = Arc::new(build(rev));
        let coll = inner
            .collections
            .entry(def.id.clone())
            .or_insert_with(Collection::new);
        let history = coll.keys.entry(key.into()).or_default();
        let before = match history.last() {
            Some(Version::Live(live)) => Some(Arc::clone(live)),
            _ => None,
        };
        let before = before.as_deref();
        if kind == EventType::Deleted {
            history.push(Version::Deleted(rev));
            coll.live.remove(key);
        } else {
            history.push(Version::Live(record.clone()));
            coll.live.insert(key);
        }
        let event = Event {
            rev,
            kind,
            record: record.clone(),
            prev: if kind == EventType::Modified {
                prev
            } else {
                None
            },
            left: OnceLock::new(),
        };
        coll.log.push_back(Arc::new(event));
        if let Some(audit) = &self.audit {
            audit.record(&def.id, &record);
        }
        coll.notify.send_replace(rev);
        let after = (kind != EventType::Deleted).then_some(&record.meta);
        if self.collecting()
            && inner
                .owners
                .record(def, key, before.map(|r| &r.meta), after)
        {
            self.gc.notify_one();
        }
        if self.max_history > 0 && rev - inner.compacted > self.max_history {
            inner.compact_to(rev - self.max_history / 2);
        }
        self.revision_tx.send_replace(rev);
        record
    }
}

/// How [`Store::commit_if_unchanged`] ended.
pub(super) enum Commit {
    /// Committed: no other write came in since the object was read.
    Done(RecordRef),
    /// Another write came in since the object was read.
    Raced,
    /// The object was deleted since it was read.
    Gone,
}

/// The record of `obj` at its revision, resourceVersion set (and, with `protobuf`, its protobuf).
pub(super) fn stamped<'a>(
    def: &'a ResourceDef,
    kind: EventType,
    obj: &'a mut Map<String, Value>,
    protobuf: bool,
) -> impl FnOnce(u64) -> Record + 'a {
    move |rev| {
        set_resource_version(obj, rev);
        Record::build(def, kind, rev, obj, protobuf)
    }
}

pub(crate) fn set_resource_version(obj: &mut Map<String, Value>, rev: u64) {
    if let Ok(md) = metadata_mut(obj) {
        md.insert("resourceVersion".into(), json!(rev.to_string()));
    }
}

pub(super) fn metadata_mut(
    obj: &mut Map<String, Value>,
) -> Result<&mut Map<String, Value>, ApiError> {
    obj.entry("metadata")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| ApiError::bad_request("metadata must be an object"))
}

/// The `metadata` of a patch that changes nothing else.
fn metadata_only(patch: &Value) -> Option<&Value> {
    let map = patch.as_object()?;
    match (map.len(), map.get("metadata")) {
        (1, Some(md)) if md.is_object() => Some(md),
        _ => None,
    }
}
