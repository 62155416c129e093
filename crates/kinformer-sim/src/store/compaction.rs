//! Compaction: forget history older than a revision, as etcd does.

use super::{Inner, Store, Version};

impl Store {
    /// Compacts to `rev` (clamped to the current revision). Afterwards reads and watches at revisions
    /// below `rev` fail with 410; the state at `rev` and later stays readable. Returns the new
    /// compaction revision.
    pub(crate) fn compact(&self, rev: u64) -> u64 {
        self.write_lock().compact_to(rev)
    }
}

impl Inner {
    pub(super) fn compact_to(&mut self, rev: u64) -> u64 {
        let inner = self;
        let rev = rev.min(inner.revision);
        if rev <= inner.compacted {
            return inner.compacted;
        }
        inner.compacted = rev;
        for coll in inner.collections.values_mut() {
            coll.keys.retain(|_, history| {
                // Keep the version visible at `rev` and everything newer.
                let keep_from = history.iter().rposition(|v| v.rev() <= rev).unwrap_or(0);
                history.drain(..keep_from);
                if matches!(history.first(), Some(Version::Deleted(r)) if *r <= rev) {
                    history.remove(0);
                }
                !history.is_empty()
            });
            let drop_to = coll.log.partition_point(|e| e.rev <= rev);
            coll.log.drain(..drop_to);
        }
        rev
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::{Value, json};

    use super::*;
    use crate::resource::Registry;
    use crate::store::ReadAt;

    fn obj(name: &str) -> serde_json::Map<String, Value> {
        match json!({"metadata": {"name": name}, "data": {"k": "v"}}) {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn compaction_keeps_state_at_the_revision() {
        let reg = Registry::default();
        let def = reg.by_name("configmaps").expect("built in");
        let store = Store::new(1, 0);
        store.create(&def, Some("ns"), obj("a")).expect("create a");
        store.create(&def, Some("ns"), obj("b")).expect("create b");
        store
            .patch(&def, "ns", "a", &json!({"data": {"k": "w"}}))
            .expect("patch");
        store.delete(&def, "ns", "b").expect("delete");
        let at = store.revision();
        let all = |_: &crate::store::Meta| true;
        let before = store
            .list(&def, "", None, ReadAt::Revision(at), None, false, &all)
            .expect("list");
        assert_eq!(before.items.len(), 1);
        assert_eq!(store.compact(at), at);
        let after = store
            .list(&def, "", None, ReadAt::Revision(at), None, false, &all)
            .expect("list");
        assert_eq!(after.items.len(), 1);
        assert!(
            store
                .list(&def, "", None, ReadAt::Revision(at - 1), None, false, &all)
                .is_err()
        );
        assert!(store.events_after(&def, at - 1, 10).is_err());
        assert_eq!(
            store.events_after(&def, at, 10).map(|(e, _)| e.len()),
            Ok(0)
        );
        let inner = store.read();
        let keys = &inner.collections[&def.id].keys;
        assert_eq!(keys.len(), 1);
        assert_eq!(keys.values().map(Vec::len).sum::<usize>(), 1);
        drop(inner);
        assert!(Arc::strong_count(&def) >= 1);
    }
}
