//! Owner references, indexed for garbage collection: which stored objects name an owner's
//! uid, and the collector's work that commits leave behind (see `crate::gc`).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use serde_json::Value;

use super::record::Meta;
use crate::resource::ResourceDef;

/// One owner reference of a stored object: the owner's uid, and whether it blocks the owner's
/// foreground deletion (`blockOwnerDeletion`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Owner {
    pub(crate) uid: Box<str>,
    pub(crate) block: bool,
}

/// The owner references of `metadata`.
pub(crate) fn owners_from(md: Option<&Value>) -> Box<[Owner]> {
    md.and_then(|m| m.get("ownerReferences"))
        .and_then(Value::as_array)
        .map(|refs| {
            refs.iter()
                .filter_map(|r| {
                    Some(Owner {
                        uid: r.get("uid")?.as_str()?.into(),
                        block: r
                            .get("blockOwnerDeletion")
                            .and_then(Value::as_bool)
                            .unwrap_or(false),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A stored object the collector may write: its resource, namespace and name.
#[derive(Debug, Clone)]
pub(crate) struct Dependent {
    pub(crate) def: Arc<ResourceDef>,
    pub(crate) namespace: Box<str>,
    pub(crate) name: Box<str>,
}

/// What the collector has to do, left by the commits that call for it.
#[derive(Debug, Clone)]
pub(crate) enum Work {
    /// The owner with this uid is gone: its dependents go too (background propagation), or
    /// lose their reference to it when another owner remains.
    OwnerGone(Box<str>),
    /// The owner (with this uid) is being deleted with the `orphan` finalizer: its dependents
    /// lose their references to it, then the finalizer goes.
    Orphan(Dependent, Box<str>),
    /// The owner (with this uid) is being deleted with the `foregroundDeletion` finalizer: its
    /// dependents are deleted, and once none that blocks it is left, the finalizer goes.
    Foreground(Dependent, Box<str>),
}

/// The live objects that name one owner: key -> the dependent, and whether its reference
/// blocks the owner's foreground deletion.
type Dependents = HashMap<Box<str>, (Dependent, bool)>;

/// How many uids of deleted objects the index remembers, so that a dependent written after
/// its owner's deletion (a controller's apply racing the owner's delete) is collected as the
/// real collector does; about 6 MB at most.
const REMEMBERED_GONE: usize = 100_000;

/// The uids of the most recently deleted objects, oldest first out.
#[derive(Debug, Default)]
struct Gone {
    uids: HashSet<Box<str>>,
    order: VecDeque<Box<str>>,
}

impl Gone {
    fn insert(&mut self, uid: &str) {
        if self.uids.insert(uid.into()) {
            self.order.push_back(uid.into());
        }
        while self.order.len() > REMEMBERED_GONE {
            if let Some(oldest) = self.order.pop_front() {
                self.uids.remove(&oldest);
            }
        }
    }

    fn contains(&self, uid: &str) -> bool {
        self.uids.contains(uid)
    }
}

/// Owner uid -> the live objects that name it, and the collector's queue.
#[derive(Debug, Default)]
pub(crate) struct OwnerIndex {
    dependents: HashMap<Box<str>, Dependents>,
    /// Deleted objects' uids: an owner reference naming one names an absent owner.
    gone: Gone,
    /// Owners deleted in the foreground and waiting for blocking dependents: uid -> owner.
    waiting: HashMap<Box<str>, Dependent>,
    pub(crate) queue: Vec<Work>,
}

impl OwnerIndex {
    /// Records a commit of `key`: the owners it named before (`before`, when it was live) and
    /// names now (`after`, `None` when it was deleted). A deleted owner with dependents, a
    /// deleted dependent of an owner waiting in the foreground, or a write that names an owner
    /// already deleted leaves work; true when work is waiting.
    pub(crate) fn record(
        &mut self,
        def: &Arc<ResourceDef>,
        key: &str,
        before: Option<&Meta>,
        after: Option<&Meta>,
    ) -> bool {
        let unchanged = matches!((before, after), (Some(b), Some(a)) if b.owners == a.owners);
        if !unchanged {
            for owner in before.map(|m| &*m.owners).unwrap_or_default() {
                if let Some(deps) = self.dependents.get_mut(&owner.uid) {
                    deps.remove(key);
                    if deps.is_empty() {
                        self.dependents.remove(&owner.uid);
                    }
                }
            }
            if let Some(meta) = after {
                for owner in &meta.owners {
                    let dependent = Dependent {
                        def: Arc::clone(def),
                        namespace: meta.namespace.clone(),
                        name: meta.name.clone(),
                    };
                    self.dependents
                        .entry(owner.uid.clone())
                        .or_default()
                        .insert(key.into(), (dependent, owner.block));
                    if self.gone.contains(&owner.uid) {
                        self.queue.push(Work::OwnerGone(owner.uid.clone()));
                    }
                }
            }
        }
        let (Some(gone), None) = (before, after) else {
            return !self.queue.is_empty();
        };
        self.gone.insert(&gone.uid);
        if self.dependents.contains_key(&gone.uid) {
            self.queue.push(Work::OwnerGone(gone.uid.clone()));
        }
        self.waiting.remove(&gone.uid);
        for owner in &gone.owners {
            if let Some(waiting) = self.waiting.get(&owner.uid) {
                self.queue
                    .push(Work::Foreground(waiting.clone(), owner.uid.clone()));
            }
        }
        !self.queue.is_empty()
    }

    /// The live objects that name `uid` as an owner.
    pub(crate) fn dependents_of(&self, uid: &str) -> Vec<Dependent> {
        self.dependents
            .get(uid)
            .map(|deps| deps.values().map(|(d, _)| d.clone()).collect())
            .unwrap_or_default()
    }

    /// Whether a live object names `uid` as an owner whose deletion it blocks.
    pub(crate) fn blocked(&self, uid: &str) -> bool {
        self.dependents
            .get(uid)
            .is_some_and(|deps| deps.values().any(|(_, block)| *block))
    }

    /// `owner` waits in the foreground until its blocking dependents are gone.
    pub(crate) fn wait_for_dependents(&mut self, owner: Dependent, uid: Box<str>) {
        self.waiting.insert(uid, owner);
    }

    /// Forgets everything (the store was reset).
    pub(crate) fn clear(&mut self) {
        *self = Self::default();
    }
}
