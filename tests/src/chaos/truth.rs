//! The server's ground truth for an informer (its selector applied), and what the write audit
//! says about the deletes a handler received.

use std::collections::{BTreeMap, HashMap};

use kinformer_selector::LabelSelector;
use kinformer_sim::{AuditEntry, AuditKind, SimHandle};
use serde_json::Value;

use super::recorder::{Delivered, Version};

/// Keys to versions: a cache, a handler's view, or the truth.
pub type View = BTreeMap<String, Version>;

/// Which pods an informer should hold.
#[derive(Debug, Clone)]
pub struct Scope {
    selector: Option<LabelSelector>,
}

impl Scope {
    /// Everything, or only what `selector` matches.
    pub fn new(selector: Option<&str>) -> Result<Self, String> {
        let selector = selector
            .map(|s| LabelSelector::parse(s).map_err(|e| format!("selector {s:?}: {e}")))
            .transpose()?;
        Ok(Self { selector })
    }

    fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.selector.as_ref().is_none_or(|s| s.matches(labels))
    }

    /// The pods the server holds now, within the scope.
    pub async fn truth(&self, sim: &SimHandle) -> Result<View, String> {
        let state = sim
            .state("pods", true)
            .await
            .map_err(|e| format!("ground truth: {e}"))?;
        let mut out = View::new();
        for item in &state.items {
            let text = |k: &str| item[k].as_str().unwrap_or_default().to_owned();
            if !self.matches(&labels_of(&item["labels"])) {
                continue;
            }
            let rv = item["resourceVersion"]
                .as_str()
                .and_then(|rv| rv.parse().ok())
                .ok_or_else(|| format!("no resourceVersion in {item}"))?;
            out.insert(
                format!("{}/{}", text("namespace"), text("name")),
                Version {
                    uid: text("uid"),
                    rv,
                },
            );
        }
        Ok(out)
    }

    /// The deletes in `delivered` the server never made: no write at or after the delivered
    /// version deleted the object or moved it out of the scope.
    pub fn unjustified<'a>(
        &self,
        audit: &[AuditEntry],
        delivered: &'a [Delivered],
    ) -> Vec<&'a Delivered> {
        // Per uid, the revisions at which the object stopped being in scope.
        let mut left: HashMap<&str, Vec<u64>> = HashMap::new();
        for e in audit {
            if e.kind == AuditKind::Deleted || !self.matches(&e.labels) {
                left.entry(e.uid.as_str()).or_default().push(e.revision);
            }
        }
        delivered
            .iter()
            .filter(|d| {
                !left
                    .get(d.version.uid.as_str())
                    .is_some_and(|revs| revs.iter().any(|r| *r >= d.version.rv))
            })
            .collect()
    }
}

/// How `actual` differs from `expected`: keys with the wrong or no version, keys too many.
pub fn diff(expected: &View, actual: &View) -> Vec<String> {
    let mut out = Vec::new();
    for (key, want) in expected {
        match actual.get(key) {
            None => out.push(format!("missing {key} (rv {})", want.rv)),
            Some(got) if got != want => out.push(format!(
                "stale {key}: rv {} uid {} (server rv {} uid {})",
                got.rv, got.uid, want.rv, want.uid
            )),
            Some(_) => {}
        }
    }
    for (key, got) in actual {
        if !expected.contains_key(key) {
            out.push(format!("extra {key} (rv {})", got.rv));
        }
    }
    out
}

/// The uids of `view` the server has deleted (per the audit): cached ghosts.
pub fn deleted_but_present(audit: &[AuditEntry], view: &View) -> Vec<String> {
    let deleted: std::collections::HashSet<&str> = audit
        .iter()
        .filter(|e| e.kind == AuditKind::Deleted)
        .map(|e| e.uid.as_str())
        .collect();
    view.iter()
        .filter(|(_, v)| deleted.contains(v.uid.as_str()))
        .map(|(k, v)| format!("{k} (uid {}, rv {})", v.uid, v.rv))
        .collect()
}

/// A JSON label map as a `BTreeMap`.
fn labels_of(value: &Value) -> BTreeMap<String, String> {
    value
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(revision: u64, kind: AuditKind, uid: &str, tier: &str) -> AuditEntry {
        serde_json::from_value(json!({
            "revision": revision, "kind": kind, "namespace": "ns", "name": "p",
            "uid": uid, "labels": {"tier": tier},
        }))
        .unwrap()
    }

    fn delivered(uid: &str, rv: u64) -> Delivered {
        Delivered {
            key: "ns/p".into(),
            version: Version {
                uid: uid.into(),
                rv,
            },
            tombstone: false,
        }
    }

    #[test]
    fn a_delete_is_justified_by_a_later_delete_or_a_move_out_of_the_selector() {
        let audit = [
            entry(1, AuditKind::Added, "a", "web"),
            entry(2, AuditKind::Modified, "a", "db"),
            entry(3, AuditKind::Modified, "a", "web"),
            entry(4, AuditKind::Added, "b", "web"),
            entry(5, AuditKind::Deleted, "b", "web"),
        ];
        let all = Scope::new(None).unwrap();
        let web = Scope::new(Some("tier=web")).unwrap();
        let ds = [delivered("a", 2), delivered("b", 4), delivered("a", 3)];
        let flagged = |s: &Scope| {
            s.unjustified(&audit, &ds)
                .iter()
                .map(|d| d.version.rv)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            flagged(&all),
            [2, 3],
            "without a selector only real deletes count"
        );
        assert_eq!(flagged(&web), [3], "a moved out at 2, never after 3");
    }
}
