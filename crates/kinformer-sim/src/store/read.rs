//! Reads at a revision: list pages (snapshot-consistent across pages), watch event ranges, state dumps.

use std::ops::Bound;
use std::sync::Arc;

use super::{Event, EventType, Inner, Meta, Record, RecordRef, Store, Version};
use crate::resource::ResourceDef;

/// Which revision a read sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReadAt {
    Latest,
    Revision(u64),
}

/// Why a read at a revision failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReadError {
    /// The revision is older than the compaction revision (carried).
    Compacted(u64),
    /// The revision is newer than the store's (carried: the current revision).
    Future(u64),
}

/// One page of a list.
#[derive(Debug)]
pub(crate) struct ListPage {
    pub(crate) rev: u64,
    pub(crate) items: Vec<RecordRef>,
    /// The next start key, relative to the list prefix, when more keys may follow.
    pub(crate) next_start: Option<String>,
    /// How many visible keys follow this page (only computed when asked).
    pub(crate) remaining: Option<u64>,
}

/// The version of a key visible at `rev`.
fn visible(history: &[Version], rev: u64) -> Option<&RecordRef> {
    // Histories are short (usually one entry) and sorted; scan from the newest.
    match history.iter().rev().find(|v| v.rev() <= rev)? {
        Version::Live(r) => Some(r),
        Version::Deleted(_) => None,
    }
}

impl Store {
    /// Reads up to `limit` matching objects under `prefix`, starting at `start` (relative to it).
    #[allow(clippy::too_many_arguments)] // each is one list parameter; a struct would only rename them
    pub(crate) fn list(
        &self,
        def: &ResourceDef,
        prefix: &str,
        start: Option<&str>,
        at: ReadAt,
        limit: Option<usize>,
        count_remaining: bool,
        filter: &dyn Fn(&Meta) -> bool,
    ) -> Result<ListPage, ReadError> {
        let inner = self.read();
        let rev = match at {
            ReadAt::Latest => inner.revision,
            ReadAt::Revision(r) if r < inner.compacted => {
                return Err(ReadError::Compacted(inner.compacted));
            }
            ReadAt::Revision(r) if r > inner.revision => {
                return Err(ReadError::Future(inner.revision));
            }
            ReadAt::Revision(r) => r,
        };
        let mut page = ListPage {
            rev,
            items: Vec::new(),
            next_start: None,
            remaining: None,
        };
        let Some(coll) = inner.collections.get(&def.id) else {
            return Ok(page);
        };
        let from = format!("{prefix}{}", start.unwrap_or(""));
        // Prefixes end in '/', so every key under one sorts below the prefix with '/' bumped to '0'.
        let end = prefix.strip_suffix('/').map(|p| format!("{p}0"));
        let upper = match &end {
            Some(e) => Bound::Excluded(e.as_str()),
            None => Bound::Unbounded,
        };
        let mut range = coll
            .keys
            .range::<str, _>((Bound::Included(from.as_str()), upper));
        let limit = limit.unwrap_or(usize::MAX);
        let mut last_key: Option<&str> = None;
        for (key, history) in range.by_ref() {
            if let Some(r) = visible(history, rev)
                && filter(&r.meta)
            {
                page.items.push(r.clone());
                last_key = Some(key);
                if page.items.len() >= limit {
                    break;
                }
            }
        }
        if page.items.len() >= limit {
            let rest = range.filter(|(_, h)| visible(h, rev).is_some());
            if count_remaining {
                let n = rest.count() as u64;
                if n > 0 {
                    page.remaining = Some(n);
                    page.next_start = last_key.map(|k| format!("{}\u{0}", &k[prefix.len()..]));
                }
            } else if rest.take(1).count() > 0 {
                page.next_start = last_key.map(|k| format!("{}\u{0}", &k[prefix.len()..]));
            }
        }
        Ok(page)
    }

    /// Up to `max` events of `def` after revision `after`, and the store revision they are complete up to.
    pub(crate) fn events_after(
        &self,
        def: &ResourceDef,
        after: u64,
        max: usize,
    ) -> Result<(Vec<Arc<Event>>, u64), ReadError> {
        let inner = self.read();
        if after < inner.compacted {
            return Err(ReadError::Compacted(inner.compacted));
        }
        let Some(coll) = inner.collections.get(&def.id) else {
            return Ok((Vec::new(), inner.revision));
        };
        let from = coll.log.partition_point(|e| e.rev <= after);
        let events: Vec<Arc<Event>> = coll.log.range(from..).take(max).cloned().collect();
        let complete_to = if from + events.len() < coll.log.len() {
            events.last().map_or(after, |e| e.rev)
        } else {
            inner.revision
        };
        Ok((events, complete_to))
    }

    /// Every live object of `def` at the latest revision, in key order.
    pub(crate) fn snapshot(
        &self,
        def: &ResourceDef,
        prefix: &str,
        filter: &dyn Fn(&Meta) -> bool,
    ) -> ListPage {
        match self.list(def, prefix, None, ReadAt::Latest, None, false, filter) {
            Ok(page) => page,
            // Reading at the latest revision can fail neither way.
            Err(_) => ListPage {
                rev: self.revision(),
                items: Vec::new(),
                next_start: None,
                remaining: None,
            },
        }
    }

    /// The latest live record of one object.
    pub(crate) fn get(&self, def: &ResourceDef, key: &str) -> Option<RecordRef> {
        current(&self.read(), def, key)
    }

    /// (resource id, live objects, events in the log) for every resource with data.
    pub(crate) fn counts(&self) -> Vec<(String, usize, usize)> {
        let inner = self.read();
        let mut out: Vec<_> = inner
            .collections
            .iter()
            .map(|(id, c)| (id.clone(), c.live_count(), c.log.len()))
            .collect();
        out.sort();
        out
    }
}

/// The latest live record of a key.
pub(crate) fn current(inner: &Inner, def: &ResourceDef, key: &str) -> Option<RecordRef> {
    match inner.collections.get(&def.id)?.keys.get(key)?.last()? {
        Version::Live(r) => Some(r.clone()),
        Version::Deleted(_) => None,
    }
}

impl Store {
    /// Reads every live object of `def` anew through `decode`, as kube-apiserver decodes what
    /// it reads from storage (a CRD's new defaults apply to objects stored before them): an
    /// object `decode` changes is replaced at its own revision, with no event, as a real server's
    /// reads change without a write.
    pub(crate) fn redecode(
        &self,
        def: &ResourceDef,
        mut decode: impl FnMut(&mut serde_json::Map<String, serde_json::Value>) -> bool,
    ) {
        let protobuf = self.protobuf();
        let mut inner = self.write_lock();
        let Some(collection) = inner.collections.get_mut(&def.id) else {
            return;
        };
        for history in collection.keys.values_mut() {
            let Some(Version::Live(record)) = history.last_mut() else {
                continue;
            };
            let mut map = record.to_map();
            if decode(&mut map) {
                let rebuilt =
                    Record::build(def, EventType::Modified, record.rev, &mut map, protobuf);
                *record = Arc::new(rebuilt);
            }
        }
    }
}
