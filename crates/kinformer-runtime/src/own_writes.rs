//! The controller's own writes, so their watch events do not reconcile again the primary
//! that made them: a reconcile that applies its Deployment knows what it stored, and the
//! Deployment's event carrying exactly that state is its echo, not a change.
//!
//! Each write a reconcile makes through `kinformer-api` (under the `rest` feature) is recorded
//! as the written object's uid, the resourceVersion the server stored, and the primary being
//! reconciled. An owned or watched object's event with that uid and resourceVersion queues
//! every primary its mapping names but that one. Any other state of the object (someone
//! else's write, a later one) queues as before. An event for a primary under reconcile is
//! held until the reconcile ends, when its writes are known: an echo that came before its
//! write's answer is recognised too, and anything else queues the primary once more.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use kinformer_core::Object;
use kinformer_workqueue::Priority;

use crate::ObjectRef;

/// Written object's uid -> (the resourceVersion stored, the primary whose reconcile wrote it).
type Written = HashMap<Box<str>, (Box<str>, ObjectRef)>;

/// An event held while the primary it queues is being reconciled: the object's uid and
/// resourceVersion, and the priority it would have been queued at.
type Held = (Box<str>, Box<str>, Priority);

/// Writes recorded at most: past it the record starts over (an echo never seen, say of an
/// object deleted since, must not pile up); forgetting costs at most one reconcile each.
#[cfg(feature = "rest")]
const MAX_RECORDED: usize = 1 << 16;

#[derive(Debug, Default)]
struct State {
    written: Written,
    /// Primaries being reconciled -> the events that would queue them, held until the
    /// reconcile ends and its writes are known.
    reconciling: HashMap<ObjectRef, Vec<Held>>,
}

/// The writes of a controller's reconciles (without the `rest` feature nothing writes through
/// `kinformer-api`, and none is recorded).
#[derive(Debug, Default)]
pub(crate) struct OwnWrites {
    state: Mutex<State>,
}

impl OwnWrites {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `writer`'s reconcile stored the object `uid` at `resource_version`.
    #[cfg(feature = "rest")]
    pub(crate) fn record(&self, uid: &str, resource_version: &str, writer: &ObjectRef) {
        let mut state = self.lock();
        if state.written.len() >= MAX_RECORDED && !state.written.contains_key(uid) {
            state.written.clear();
        }
        state
            .written
            .insert(uid.into(), (resource_version.into(), writer.clone()));
    }

    /// Which of `primaries` (those an event of `object` names) to queue now at `priority`:
    /// not the one whose own write `object` is the echo of (the echo is consumed: it is seen
    /// once), and not one being reconciled, for which the event is held until
    /// [`end`](Self::end) knows that reconcile's writes.
    pub(crate) fn route<O: Object>(
        &self,
        object: &O,
        primaries: impl IntoIterator<Item = ObjectRef>,
        priority: Priority,
    ) -> Vec<ObjectRef> {
        let (Some(uid), Some(rv)) = (object.uid(), object.resource_version()) else {
            return primaries.into_iter().collect();
        };
        let mut state = self.lock();
        let writer = match state.written.get(uid) {
            Some((stored, _)) if &**stored == rv => state.written.remove(uid).map(|(_, w)| w),
            _ => None,
        };
        let mut now = Vec::new();
        for primary in primaries {
            if Some(&primary) == writer.as_ref() {
                continue;
            }
            match state.reconciling.get_mut(&primary) {
                Some(held) => held.push((uid.into(), rv.into(), priority)),
                None => now.push(primary),
            }
        }
        now
    }

    /// `primary`'s reconcile starts: events that would queue it are held until
    /// [`Reconciling::end`] (or, for a reconcile dropped unfinished, until the guard drops).
    pub(crate) fn begin<'a>(&'a self, primary: &'a ObjectRef) -> Reconciling<'a> {
        self.lock().reconciling.insert(primary.clone(), Vec::new());
        Reconciling {
            own: self,
            primary,
            ended: false,
        }
    }
}

/// A reconcile under way, for [`OwnWrites`]: events held for its primary are released by
/// [`end`](Self::end), or dropped with the guard when the reconcile itself was dropped (a
/// controller stopping).
pub(crate) struct Reconciling<'a> {
    own: &'a OwnWrites,
    primary: &'a ObjectRef,
    ended: bool,
}

impl Reconciling<'_> {
    /// The reconcile ended (its writes recorded): the priority to queue its primary at again
    /// when an event held meanwhile was not the echo of one of its writes.
    pub(crate) fn end(mut self) -> Option<Priority> {
        self.ended = true;
        let mut state = self.own.lock();
        let held = state.reconciling.remove(self.primary)?;
        let mut again = None;
        for (uid, rv, priority) in held {
            let echo = matches!(
                state.written.get(&uid),
                Some((stored, writer)) if *stored == rv && writer == self.primary
            );
            if echo {
                state.written.remove(&uid);
            } else {
                again = again.max(Some(priority));
            }
        }
        again
    }
}

impl Drop for Reconciling<'_> {
    fn drop(&mut self) {
        if !self.ended {
            self.own.lock().reconciling.remove(self.primary);
        }
    }
}

#[cfg(feature = "rest")]
pub(crate) struct Recorder {
    pub(crate) own: std::sync::Arc<OwnWrites>,
    pub(crate) primary: ObjectRef,
}

#[cfg(feature = "rest")]
impl kinformer_api::WriteObserver for Recorder {
    fn wrote(&self, uid: &str, resource_version: &str) {
        self.own.record(uid, resource_version, &self.primary);
    }
}

#[cfg(all(test, feature = "rest"))]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;

    use super::*;

    fn at(uid: &str, rv: &str) -> ConfigMap {
        let mut cm = ConfigMap::default();
        cm.metadata.uid = Some(uid.into());
        cm.metadata.resource_version = Some(rv.into());
        cm
    }

    fn routed(own: &OwnWrites, cm: &ConfigMap, primaries: &[&ObjectRef]) -> Vec<ObjectRef> {
        own.route(cm, primaries.iter().map(|p| (*p).clone()), Priority::Normal)
    }

    #[test]
    fn only_the_exact_state_written_is_an_echo_only_for_its_writer_and_only_once() {
        let own = OwnWrites::default();
        let writer = ObjectRef::new(Some("ns"), "foo-1");
        let other = ObjectRef::new(Some("ns"), "foo-2");
        own.record("u1", "7", &writer);
        let older = routed(&own, &at("u1", "6"), &[&writer]);
        assert_eq!(older, std::slice::from_ref(&writer), "an older state");
        let another = routed(&own, &at("u2", "7"), &[&writer]);
        assert_eq!(another, std::slice::from_ref(&writer), "another object");
        let both = routed(&own, &at("u1", "7"), &[&writer, &other]);
        assert_eq!(
            both,
            std::slice::from_ref(&other),
            "the other primary it maps to is still queued"
        );
        let again = routed(&own, &at("u1", "7"), &[&writer]);
        assert_eq!(again, std::slice::from_ref(&writer), "seen once");
        own.record("u1", "8", &writer);
        own.record("u1", "9", &writer);
        let superseded = routed(&own, &at("u1", "8"), &[&writer]);
        assert_eq!(
            superseded,
            std::slice::from_ref(&writer),
            "only the latest write counts"
        );
        assert!(routed(&own, &at("u1", "9"), &[&writer]).is_empty());
    }

    #[test]
    fn events_during_a_reconcile_wait_for_its_writes() {
        let own = OwnWrites::default();
        let primary = ObjectRef::new(Some("ns"), "p");
        let reconciling = own.begin(&primary);
        // The echo comes before the write's answer is recorded: held, then recognised.
        assert!(routed(&own, &at("u1", "3"), &[&primary]).is_empty());
        own.record("u1", "3", &primary);
        assert_eq!(reconciling.end(), None, "only its own echo came meanwhile");

        let reconciling = own.begin(&primary);
        let held = routed(&own, &at("u1", "4"), &[&primary]);
        assert!(held.is_empty(), "someone else's write, held");
        own.record("u1", "5", &primary);
        assert_eq!(
            reconciling.end(),
            Some(Priority::Normal),
            "queued once more"
        );

        // A reconcile dropped unfinished holds nothing afterwards.
        drop(own.begin(&primary));
        let after = routed(&own, &at("u9", "1"), &[&primary]);
        assert_eq!(after, std::slice::from_ref(&primary));
    }

    #[test]
    fn the_record_is_bounded() {
        let own = OwnWrites::default();
        let writer = ObjectRef::new(None, "w");
        for i in 0..=MAX_RECORDED {
            own.record(&i.to_string(), "1", &writer);
        }
        assert!(own.lock().written.len() <= MAX_RECORDED);
    }
}
