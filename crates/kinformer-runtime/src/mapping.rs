//! The event handlers that turn changes into queued [`ObjectRef`]s: the primary's own
//! changes, an owned object's controller owner, and any object through a mapper.

use std::sync::Arc;

use kinformer_core::{ApiResource, DeletedState, Object, Scope};
use kinformer_informer::EventHandler;
use kinformer_workqueue::RateLimitingQueue;

use crate::{ObjectRef, Predicate};

/// Queues a primary object when it is added and when an update passes the predicate. A
/// deleted primary is not queued: it is gone from the cache, and what is gone is not
/// reconciled.
pub(crate) struct Primary<K> {
    pub(crate) queue: RateLimitingQueue<ObjectRef>,
    pub(crate) predicate: Predicate<K>,
}

impl<K: Object> EventHandler<K> for Primary<K> {
    fn on_add(&self, obj: &Arc<K>, _is_in_initial_list: bool) {
        self.queue.add(ObjectRef::from_obj(&**obj));
    }

    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        if self.predicate.matches(old, new) {
            self.queue.add(ObjectRef::from_obj(&**new));
        }
    }
}

/// Queues the primary an object names as its controller owner (`ownerReferences` with
/// `controller: true` and the primary's apiVersion and kind), before and after a change, so
/// a child that changes owner reconciles both.
pub(crate) struct Owned {
    pub(crate) queue: RateLimitingQueue<ObjectRef>,
    pub(crate) owner: ApiResource,
}

impl Owned {
    fn queue_owner<C: Object>(&self, child: &C) {
        let api_version = self.owner.api_version();
        let owners = child.meta().owner_references.iter().flatten();
        for owner in owners.filter(|o| o.controller == Some(true)) {
            if owner.kind == self.owner.kind && owner.api_version == api_version {
                // An owner is in the child's namespace, or cluster-scoped.
                let namespace = if self.owner.scope == Scope::Cluster {
                    None
                } else {
                    child.namespace()
                };
                self.queue
                    .add(ObjectRef::new(namespace, owner.name.clone()));
            }
        }
    }
}

impl<C: Object> EventHandler<C> for Owned {
    fn on_add(&self, obj: &Arc<C>, _is_in_initial_list: bool) {
        self.queue_owner(&**obj);
    }

    fn on_update(&self, old: &Arc<C>, new: &Arc<C>) {
        self.queue_owner(&**old);
        self.queue_owner(&**new);
    }

    fn on_delete(&self, state: &DeletedState<C>) {
        self.queue_owner(&**state.object());
    }
}

/// Queues whatever a mapper names for an object, before and after a change.
pub(crate) struct Mapped<F> {
    pub(crate) queue: RateLimitingQueue<ObjectRef>,
    pub(crate) mapper: F,
}

impl<F> Mapped<F> {
    fn queue_mapped<O>(&self, obj: &O)
    where
        F: Fn(&O) -> Vec<ObjectRef>,
    {
        for primary in (self.mapper)(obj) {
            self.queue.add(primary);
        }
    }
}

impl<O, F> EventHandler<O> for Mapped<F>
where
    O: Object,
    F: Fn(&O) -> Vec<ObjectRef> + Send + Sync + 'static,
{
    fn on_add(&self, obj: &Arc<O>, _is_in_initial_list: bool) {
        self.queue_mapped(&**obj);
    }

    fn on_update(&self, old: &Arc<O>, new: &Arc<O>) {
        self.queue_mapped(&**old);
        self.queue_mapped(&**new);
    }

    fn on_delete(&self, state: &DeletedState<O>) {
        self.queue_mapped(&**state.object());
    }
}
