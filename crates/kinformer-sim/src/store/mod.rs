//! The MVCC store: one global revision for every write (like etcd), per-key history and a per-resource
//! event log, all of whose entries are pre-serialized [`Record`]s.

mod compaction;
mod delete;
mod finalizers;
mod metadata;
mod owners;
mod partial;
mod proto;
mod read;
mod record;
mod served_version;
mod update;
mod write;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

use tokio::sync::watch;

use crate::audit::Audit;
use crate::resource::ResourceDef;

pub(crate) use delete::{DeleteOptions, FOREGROUND, ORPHAN, Propagation};
pub(crate) use finalizers::being_deleted;
pub(crate) use owners::{Dependent, Work};
pub(crate) use partial::partial_event_line;
pub(crate) use read::{ListPage, ReadAt, ReadError};
pub(crate) use record::{EventType, Meta, Record, RecordRef};
pub(crate) use write::Precondition;

/// One entry of a key's history.
#[derive(Debug, Clone)]
pub(crate) enum Version {
    Live(RecordRef),
    Deleted(u64),
}

impl Version {
    pub(crate) fn rev(&self) -> u64 {
        match self {
            Self::Live(r) => r.rev,
            Self::Deleted(rev) => *rev,
        }
    }
}

/// One change, as watchers see it.
#[derive(Debug)]
pub(crate) struct Event {
    pub(crate) rev: u64,
    pub(crate) kind: EventType,
    /// The new state; for `DELETED`, the last state with the delete's revision.
    pub(crate) record: RecordRef,
    /// For `MODIFIED`, the state before; selector watchers need it to see an object leave.
    pub(crate) prev: Option<RecordRef>,
    /// `prev` as a `DELETED` at this revision, built on first use.
    left: OnceLock<Record>,
}

impl Event {
    /// The `DELETED` revision a selector watcher gets when this update moves the object out of
    /// its selector: the state before, at this revision.
    pub(crate) fn left(&self, def: &ResourceDef) -> &Record {
        self.left.get_or_init(|| {
            let prev = self.prev.as_ref().unwrap_or(&self.record);
            let mut map = prev.to_map();
            write::set_resource_version(&mut map, self.rev);
            // Rare (an object leaving a selector): its protobuf form waits for first use.
            // Built as stored: a watch through another version converts it as it sends it.
            Record::build(
                def.storage_def(),
                EventType::Deleted,
                self.rev,
                &mut map,
                false,
            )
        })
    }
}

/// Objects of one resource type.
#[derive(Debug)]
pub(crate) struct Collection {
    /// `namespace/name` (or `name` at cluster scope) to history, oldest first.
    pub(crate) keys: BTreeMap<Box<str>, Vec<Version>>,
    pub(crate) log: VecDeque<Arc<Event>>,
    live: LiveSet,
    notify: watch::Sender<u64>,
}

impl Collection {
    fn new() -> Self {
        Self {
            keys: BTreeMap::new(),
            log: VecDeque::new(),
            live: LiveSet::default(),
            notify: watch::channel(0).0,
        }
    }

    pub(crate) fn live_count(&self) -> usize {
        self.live.keys.len()
    }
}

/// The live keys, indexable, so churn can pick a random object in O(1).
#[derive(Debug, Default)]
struct LiveSet {
    keys: Vec<Box<str>>,
    pos: HashMap<Box<str>, usize>,
}

impl LiveSet {
    fn insert(&mut self, key: &str) {
        if !self.pos.contains_key(key) {
            self.pos.insert(key.into(), self.keys.len());
            self.keys.push(key.into());
        }
    }

    fn remove(&mut self, key: &str) {
        if let Some(i) = self.pos.remove(key) {
            self.keys.swap_remove(i);
            if let Some(moved) = self.keys.get(i) {
                self.pos.insert(moved.clone(), i);
            }
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct Inner {
    pub(crate) revision: u64,
    pub(crate) compacted: u64,
    pub(crate) collections: HashMap<String, Collection>,
    uid_counter: u64,
    /// Who owns what, and the garbage collector's work (kept only once it runs).
    pub(crate) owners: owners::OwnerIndex,
}

/// The store. Reads take a shared lock only long enough to clone `Arc`s; bytes are copied outside it.
#[derive(Debug)]
pub(crate) struct Store {
    inner: RwLock<Inner>,
    revision_tx: watch::Sender<u64>,
    salt: u64,
    /// Revisions of history kept at most (0: unbounded); older ones are compacted on the way, as
    /// the watch cache's capacity bounds its window.
    max_history: u64,
    /// Every write's identity and labels, when the builder asked for an audit.
    pub(crate) audit: Option<Audit>,
    /// Whether writes encode each revision's protobuf form (see [`Store::start_protobuf`]).
    protobuf: AtomicBool,
    /// Whether commits keep the owner index and leave work for the garbage collector.
    collecting: AtomicBool,
    /// Wakes the garbage collector when a commit left work.
    gc: tokio::sync::Notify,
}

impl Store {
    pub(crate) fn new(salt: u64, max_history: u64) -> Self {
        Self {
            inner: RwLock::new(Inner {
                revision: 1,
                ..Inner::default()
            }),
            revision_tx: watch::channel(1).0,
            salt,
            max_history,
            audit: None,
            protobuf: AtomicBool::new(false),
            collecting: AtomicBool::new(false),
            gc: tokio::sync::Notify::new(),
        }
    }

    /// From now on, commits index owner references and leave work for the garbage collector
    /// (call before anything is stored).
    pub(crate) fn start_collecting(&self) {
        self.collecting.store(true, Ordering::Relaxed);
    }

    fn collecting(&self) -> bool {
        self.collecting.load(Ordering::Relaxed)
    }

    /// Waits until a commit left work for the garbage collector, then takes it all.
    pub(crate) async fn gc_work(&self) -> Vec<Work> {
        loop {
            let notified = self.gc.notified();
            let work = std::mem::take(&mut self.write_lock().owners.queue);
            if !work.is_empty() {
                return work;
            }
            notified.await;
        }
    }

    /// Leaves `work` for the garbage collector (when it runs).
    pub(crate) fn queue_gc(&self, work: Work) {
        if self.collecting.load(Ordering::Relaxed) {
            self.write_lock().owners.queue.push(work);
            self.gc.notify_one();
        }
    }

    /// The live objects that name `uid` as an owner.
    pub(crate) fn dependents_of(&self, uid: &str) -> Vec<Dependent> {
        self.read().owners.dependents_of(uid)
    }

    /// Whether a live object names `uid` as an owner whose deletion it blocks.
    pub(crate) fn blocked(&self, uid: &str) -> bool {
        self.read().owners.blocked(uid)
    }

    /// `owner` waits in the foreground until its blocking dependents are gone.
    pub(crate) fn wait_for_dependents(&self, owner: Dependent, uid: Box<str>) {
        self.write_lock().owners.wait_for_dependents(owner, uid);
    }

    /// Records every write from now on (see [`Audit`]).
    pub(crate) fn with_audit(mut self, on: bool) -> Self {
        self.audit = on.then(Audit::default);
        self
    }

    /// Encodes every revision's protobuf form when it is written from now on, so a protobuf list
    /// or watch only copies bytes. Until then writes cost what JSON alone costs, and a protobuf
    /// read encodes a revision written before on first use, parsing its JSON back (several times
    /// the cost of encoding it on write).
    pub(crate) fn start_protobuf(&self) {
        self.protobuf.store(true, Ordering::Relaxed);
    }

    /// Whether writes encode protobuf.
    pub(crate) fn protobuf(&self) -> bool {
        self.protobuf.load(Ordering::Relaxed)
    }

    pub(crate) fn read(&self) -> RwLockReadGuard<'_, Inner> {
        // A panic while holding the lock leaves the data consistent (every mutation is one step), so a
        // poisoned lock is still usable.
        self.inner.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write_lock(&self) -> RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn revision(&self) -> u64 {
        self.read().revision
    }

    pub(crate) fn compacted(&self) -> u64 {
        self.read().compacted
    }

    /// Waits until the store's revision reaches `rev`, for at most `wait`. Returns whether it did.
    pub(crate) async fn wait_for_revision(&self, rev: u64, wait: Duration) -> bool {
        let mut rx = self.revision_tx.subscribe();
        let reached = tokio::time::timeout(wait, rx.wait_for(|r| *r >= rev)).await;
        matches!(reached, Ok(Ok(_)))
    }

    /// A receiver that changes whenever `def` gets a new event.
    pub(crate) fn subscribe(&self, def: &Arc<ResourceDef>) -> watch::Receiver<u64> {
        if let Some(c) = self.read().collections.get(&def.id) {
            return c.notify.subscribe();
        }
        let mut inner = self.write_lock();
        inner
            .collections
            .entry(def.id.clone())
            .or_insert_with(Collection::new)
            .notify
            .subscribe()
    }

    /// Removes every object and all history. The revision keeps counting up, and everything before
    /// the reset becomes compacted, so old resource versions get 410.
    pub(crate) fn reset(&self) {
        let mut inner = self.write_lock();
        inner.revision += 1;
        inner.compacted = inner.revision;
        let rev = inner.revision;
        for c in inner.collections.values_mut() {
            c.keys.clear();
            c.log.clear();
            c.live = LiveSet::default();
            c.notify.send_replace(rev);
        }
        inner.owners.clear();
        drop(inner);
        if let Some(audit) = &self.audit {
            audit.clear();
        }
        self.revision_tx.send_replace(rev);
    }

    /// A random live key of `def`, for churn.
    pub(crate) fn random_key(&self, def: &ResourceDef, pick: u64) -> Option<Box<str>> {
        let inner = self.read();
        let live = &inner.collections.get(&def.id)?.live;
        if live.keys.is_empty() {
            return None;
        }
        Some(live.keys[(pick % live.keys.len() as u64) as usize].clone())
    }
}

/// The store key of an object.
pub(crate) fn key_of(def: &ResourceDef, namespace: &str, name: &str) -> String {
    if def.namespaced {
        format!("{namespace}/{name}")
    } else {
        name.to_owned()
    }
}

/// The key prefix of a list: everything, or one namespace.
pub(crate) fn list_prefix(def: &ResourceDef, namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) if def.namespaced => format!("{ns}/"),
        _ => String::new(),
    }
}
