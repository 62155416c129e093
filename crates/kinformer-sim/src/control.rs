//! The control API's request and response types, and the operations behind them. The HTTP routes
//! under `/_control/` and the `SimHandle` methods both call these.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::shared::Shared;
use crate::status::ApiError;
use crate::store::{RecordRef, key_of};

/// Counters that describe the simulator's state (`GET /_control/stats`).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SimStats {
    /// The current global revision.
    pub revision: u64,
    /// Revisions below this one are compacted.
    pub compacted_revision: u64,
    /// Live objects per resource.
    pub objects: BTreeMap<String, usize>,
    /// Events held in each resource's log (what compaction bounds).
    pub events: BTreeMap<String, usize>,
    /// Watch streams open now.
    pub open_watches: usize,
    /// Entries in the request log.
    pub requests: usize,
    /// TCP connections accepted since the sim started.
    pub connections_accepted: u64,
    /// TCP connections open now.
    pub connections_open: u64,
    /// Milliseconds since the sim started (the clock of the request log's `at_ms`).
    #[serde(default)]
    pub uptime_ms: u64,
}

/// The ground truth for one resource (`GET /_control/state`).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct State {
    /// The revision this state is at.
    pub resource_version: String,
    /// Every object, in key order (with `summary`, only namespace/name/uid/resourceVersion/labels).
    pub items: Vec<Value>,
}

/// The operation of an [`ObjectOp`].
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    /// Create; 409 if it exists.
    Create,
    /// Replace; 404 if missing, 409 on a stale `metadata.resourceVersion`.
    Update,
    /// Create or replace.
    Upsert,
    /// JSON merge patch.
    Patch,
    /// Delete.
    Delete,
}

/// One write for `POST /_control/objects`.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObjectOp {
    /// What to do.
    pub op: OpKind,
    /// The resource (`pods`, `widgets.example.com`).
    pub resource: String,
    /// The namespace (namespaced resources; defaults to the object's, then `default`).
    #[serde(default)]
    pub namespace: Option<String>,
    /// The name (defaults to the object's).
    #[serde(default)]
    pub name: Option<String>,
    /// The object, or the patch.
    #[serde(default)]
    pub object: Option<Value>,
}

impl ObjectOp {
    /// An operation on `resource` with an object (or patch) body.
    ///
    /// # Examples
    /// ```
    /// use kinformer_sim::{ObjectOp, OpKind};
    /// let op = ObjectOp::new(OpKind::Create, "configmaps", serde_json::json!({"metadata": {"name": "a"}}));
    /// assert_eq!(op.resource, "configmaps");
    /// ```
    pub fn new(op: OpKind, resource: impl Into<String>, object: Value) -> Self {
        Self {
            op,
            resource: resource.into(),
            namespace: None,
            name: None,
            object: Some(object),
        }
    }

    /// A delete of `namespace/name` (`namespace` ignored at cluster scope).
    pub fn delete(
        resource: impl Into<String>,
        namespace: impl Into<String>,
        name: impl Into<String>,
    ) -> Self {
        Self {
            op: OpKind::Delete,
            resource: resource.into(),
            namespace: Some(namespace.into()),
            name: Some(name.into()),
            object: None,
        }
    }

    /// Sets the namespace.
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }

    /// Sets the name.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// The outcome of one [`ObjectOp`].
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpResult {
    /// HTTP-style code: 200, 201, or the error's.
    pub code: u16,
    /// The stored object (after the write; for delete, its last state).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<Value>,
    /// The Status, on failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

/// How `POST /_control/watches/drop` ends the watches that are open.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "lowercase")]
pub enum DropMode {
    /// Cut the connection.
    Abrupt,
    /// End the stream cleanly.
    Clean,
    /// Send an `ERROR` event with a 410 Expired Status, then end.
    Error410,
    /// Send one line of broken JSON, then carry on.
    Malformed,
    /// Go silent for `seconds`, then carry on.
    Stall {
        /// How long to stay silent (default 30).
        #[serde(default = "default_stall")]
        seconds: f64,
    },
}

fn default_stall() -> f64 {
    30.0
}

/// One logged request (`GET /_control/requests`).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestRecord {
    /// HTTP method.
    pub method: String,
    /// Path with query string.
    pub path: String,
    /// Response status code.
    pub status: u16,
    /// When the response (its head, for a watch) was ready, in milliseconds since the sim started.
    #[serde(default)]
    pub at_ms: u64,
}

/// `POST /_control/compact`: `{"keep":K}` keeps the last K revisions, `{"revision":R}` compacts to R,
/// `{}` compacts everything up to now.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Compaction {
    /// Keep this many most recent revisions.
    #[serde(default)]
    pub keep: Option<u64>,
    /// Compact to exactly this revision.
    #[serde(default)]
    pub revision: Option<u64>,
}

impl Compaction {
    /// Compacts everything up to the current revision.
    pub fn all() -> Self {
        Self::default()
    }

    /// Keeps the last `keep` revisions.
    pub fn keep(keep: u64) -> Self {
        Self {
            keep: Some(keep),
            revision: None,
        }
    }

    /// Compacts to `revision`.
    pub fn to_revision(revision: u64) -> Self {
        Self {
            keep: None,
            revision: Some(revision),
        }
    }
}

impl Shared {
    pub(crate) fn stats(&self) -> SimStats {
        let mut objects = BTreeMap::new();
        let mut events = BTreeMap::new();
        for (id, live, log) in self.store.counts() {
            objects.insert(id.clone(), live);
            events.insert(id, log);
        }
        let inner = self.store.read();
        let (revision, compacted_revision) = (inner.revision, inner.compacted);
        drop(inner);
        SimStats {
            revision,
            compacted_revision,
            objects,
            events,
            open_watches: self.watches.open(),
            requests: self.requests().len(),
            connections_accepted: self.connections.accepted.load(Ordering::Relaxed),
            connections_open: self.connections.open.load(Ordering::Relaxed),
            uptime_ms: self.uptime_ms(),
        }
    }

    pub(crate) fn state(&self, resource: &str, summary: bool) -> Result<State, ApiError> {
        let def = self.resource(resource).ok_or_else(|| {
            ApiError::new(404, "NotFound", format!("unknown resource {resource}"))
        })?;
        let page = self.store.snapshot(&def, "", &|_| true);
        let items = page
            .items
            .iter()
            .map(|r| {
                if summary {
                    let labels: serde_json::Map<String, Value> = r
                        .meta
                        .labels
                        .iter()
                        .map(|(k, v)| (k.to_string(), Value::from(&**v)))
                        .collect();
                    serde_json::json!({"namespace": &*r.meta.namespace, "name": &*r.meta.name,
                        "uid": &*r.meta.uid, "resourceVersion": r.rev.to_string(), "labels": labels})
                } else {
                    record_value(r)
                }
            })
            .collect();
        Ok(State {
            resource_version: page.rev.to_string(),
            items,
        })
    }

    pub(crate) fn apply_op(&self, op: &ObjectOp) -> Result<(u16, RecordRef), ApiError> {
        let def = self.resource(&op.resource).ok_or_else(|| {
            ApiError::new(404, "NotFound", format!("unknown resource {}", op.resource))
        })?;
        let obj = op.object.clone().unwrap_or(Value::Null);
        let md = obj.get("metadata");
        let name = op
            .name
            .clone()
            .or_else(|| {
                md.and_then(|m| m.get("name"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        let ns = op
            .namespace
            .clone()
            .or_else(|| {
                md.and_then(|m| m.get("namespace"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| "default".to_owned());
        let ns = if def.namespaced { ns } else { String::new() };
        let as_map = |v: Value| match v {
            Value::Object(m) => Ok(m),
            _ => Err(ApiError::bad_request("object must be a JSON object")),
        };
        match op.op {
            OpKind::Create => Ok((201, self.store.create(&def, Some(&ns), as_map(obj)?)?)),
            OpKind::Update => Ok((200, self.store.update(&def, &ns, &name, as_map(obj)?)?)),
            OpKind::Upsert => {
                if self.store.get(&def, &key_of(&def, &ns, &name)).is_some() {
                    Ok((200, self.store.update(&def, &ns, &name, as_map(obj)?)?))
                } else {
                    Ok((201, self.store.create(&def, Some(&ns), as_map(obj)?)?))
                }
            }
            OpKind::Patch => Ok((200, self.store.patch(&def, &ns, &name, &obj)?)),
            OpKind::Delete => Ok((200, self.store.delete(&def, &ns, &name)?)),
        }
    }

    pub(crate) fn apply_ops(&self, ops: &[ObjectOp]) -> Vec<OpResult> {
        ops.iter()
            .map(|op| match self.apply_op(op) {
                Ok((code, r)) => OpResult {
                    code,
                    object: Some(record_value(&r)),
                    status: None,
                },
                Err(e) => OpResult {
                    code: e.code,
                    object: None,
                    status: Some(e.status()),
                },
            })
            .collect()
    }

    /// Compacts as asked; returns the compaction revision.
    pub(crate) fn compact(&self, req: Compaction) -> u64 {
        let current = self.store.revision();
        let target = match (req.revision, req.keep) {
            (Some(r), _) => r,
            (None, Some(k)) => current.saturating_sub(k),
            (None, None) => current,
        };
        self.store.compact(target)
    }

    /// Stops churn, ends every watch cleanly, clears faults, objects and the request log.
    pub(crate) fn reset(&self) {
        self.stop_churn();
        self.watches.drop_all(&DropMode::Clean);
        self.faults.clear();
        self.store.reset();
        // What every cluster has is there again: its namespaces, first of all. Creating
        // fixed, valid names in an emptied store cannot fail.
        let _ = self.seed_cluster();
        self.clear_requests();
    }
}

pub(crate) fn record_value(r: &RecordRef) -> Value {
    // Records are serde_json output, so they always parse.
    serde_json::from_slice(&r.object()).unwrap_or(Value::Null)
}
