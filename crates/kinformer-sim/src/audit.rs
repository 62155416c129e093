//! The write audit: every committed revision's identity and labels, kept forever (compaction
//! does not touch it), so a test can ask what really happened to an object after its watch
//! history is gone.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::shared::lock;
use crate::store::{EventType, Record};

/// What a write did to an object.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum AuditKind {
    /// Created.
    Added,
    /// Changed.
    Modified,
    /// Deleted.
    Deleted,
}

/// One committed write ([`SimHandle::audit`](crate::SimHandle::audit)).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    /// The revision the write got (its objects' resourceVersion).
    pub revision: u64,
    /// What it did.
    pub kind: AuditKind,
    /// The object's namespace (empty at cluster scope).
    pub namespace: String,
    /// The object's name.
    pub name: String,
    /// The object's uid.
    pub uid: String,
    /// The object's labels after the write (for a delete, its last labels).
    pub labels: BTreeMap<String, String>,
}

/// Entries per resource id, when auditing is on.
#[derive(Debug, Default)]
pub(crate) struct Audit {
    entries: Mutex<BTreeMap<String, Vec<AuditEntry>>>,
}

impl Audit {
    pub(crate) fn record(&self, resource_id: &str, record: &Record) {
        let meta = &record.meta;
        let entry = AuditEntry {
            revision: record.rev,
            kind: match record.event {
                EventType::Added => AuditKind::Added,
                EventType::Modified => AuditKind::Modified,
                EventType::Deleted => AuditKind::Deleted,
            },
            namespace: meta.namespace.to_string(),
            name: meta.name.to_string(),
            uid: meta.uid.to_string(),
            labels: meta
                .labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        lock(&self.entries)
            .entry(resource_id.to_owned())
            .or_default()
            .push(entry);
    }

    pub(crate) fn entries(&self, resource_id: &str) -> Vec<AuditEntry> {
        lock(&self.entries)
            .get(resource_id)
            .cloned()
            .unwrap_or_default()
    }

    pub(crate) fn clear(&self) {
        lock(&self.entries).clear();
    }
}
