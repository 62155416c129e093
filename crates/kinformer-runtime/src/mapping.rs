//! The event handlers that turn changes into queued [`ObjectRef`]s: the primary's own
//! changes, an owned object's controller owner, and any object through a mapper.

use std::sync::Arc;

use kinformer_core::{ApiResource, DeletedState, Object, Scope};
use kinformer_informer::EventHandler;
use kinformer_workqueue::{Priority, RateLimitingQueue};

use crate::own_writes::OwnWrites;
use crate::{ObjectRef, Predicate};

/// Queues a primary object when it is added and when an update passes the predicate. A
/// deleted primary is not queued: it is gone from the cache, and what is gone is not
/// reconciled. What an initial list or a resync brings is queued at [`Priority::Low`]: after a
/// restart, real changes go before the backlog of unchanged objects (which ages, so it is never
/// starved).
pub(crate) struct Primary<K> {
    pub(crate) queue: RateLimitingQueue<ObjectRef>,
    pub(crate) predicate: Predicate<K>,
}

impl<K: Object> EventHandler<K> for Primary<K> {
    fn on_add(&self, obj: &Arc<K>, is_in_initial_list: bool) {
        self.queue
            .add_with_priority(ObjectRef::from_obj(&**obj), priority(is_in_initial_list));
    }

    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        if self.predicate.matches(old, new) {
            let resync = old.resource_version() == new.resource_version();
            self.queue
                .add_with_priority(ObjectRef::from_obj(&**new), priority(resync));
        }
    }
}

/// The primary an object names as its controller owner (`ownerReferences` with
/// `controller: true` and the primary's apiVersion and kind; the API server allows one), in the
/// object's namespace or cluster-scoped as the primary is.
pub(crate) fn controller_owner<C: Object>(owner: &ApiResource, child: &C) -> Option<ObjectRef> {
    let api_version = owner.api_version();
    let reference = child.meta().owner_references.iter().flatten().find(|o| {
        o.controller == Some(true) && o.kind == owner.kind && o.api_version == api_version
    })?;
    let namespace = if owner.scope == Scope::Cluster {
        None
    } else {
        child.namespace()
    };
    Some(ObjectRef::new(namespace, reference.name.clone()))
}

/// Queues whatever a mapper names for an object, before and after a change (so an object
/// that changes owner, or mapping, reconciles both), but not the primary whose own write the
/// change is the echo of (see [`OwnWrites`]).
pub(crate) struct Mapped<F> {
    pub(crate) queue: RateLimitingQueue<ObjectRef>,
    pub(crate) mapper: F,
    pub(crate) own: Arc<OwnWrites>,
}

impl<F> Mapped<F> {
    /// Queues the primaries `objects` map to (each once), as [`OwnWrites::route`] sorts
    /// them for `changed`, the object's state now.
    fn queue_mapped<O, I>(&self, changed: &O, objects: &[&O], priority: Priority)
    where
        O: Object,
        F: Fn(&O) -> I,
        I: IntoIterator<Item = ObjectRef>,
    {
        let mut primaries: Vec<ObjectRef> = Vec::new();
        for object in objects {
            for primary in (self.mapper)(object) {
                if !primaries.contains(&primary) {
                    primaries.push(primary);
                }
            }
        }
        for primary in self.own.route(changed, primaries, priority) {
            self.queue.add_with_priority(primary, priority);
        }
    }
}

/// Low for what confirms the unchanged (an initial list, a resync), else normal.
fn priority(unchanged: bool) -> Priority {
    if unchanged {
        Priority::Low
    } else {
        Priority::Normal
    }
}

impl<O, F, I> EventHandler<O> for Mapped<F>
where
    O: Object,
    F: Fn(&O) -> I + Send + Sync + 'static,
    I: IntoIterator<Item = ObjectRef>,
{
    fn on_add(&self, obj: &Arc<O>, is_in_initial_list: bool) {
        self.queue_mapped(&**obj, &[&**obj], priority(is_in_initial_list));
    }

    fn on_update(&self, old: &Arc<O>, new: &Arc<O>) {
        let resync = old.resource_version() == new.resource_version();
        self.queue_mapped(&**new, &[&**old, &**new], priority(resync));
    }

    fn on_delete(&self, state: &DeletedState<O>) {
        for primary in (self.mapper)(&**state.object()) {
            self.queue.add_with_priority(primary, Priority::Normal);
        }
    }
}
