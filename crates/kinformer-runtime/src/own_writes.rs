//! The controller's own writes, so their watch events do not reconcile again the primary
//! that made them: a reconcile that applies its Deployment knows what it stored, and the
//! Deployment's event carrying exactly that state is its echo, not a change.
//!
//! Each write a reconcile makes through `kinformer-api` (under the `rest` feature) is recorded
//! as the written object's uid, the resourceVersion the server stored, and the primary being
//! reconciled. An owned or watched object's event with that uid and resourceVersion queues
//! every primary its mapping names but that one. Any other state of the object (someone
//! else's write, a later one) queues as before; an echo that comes before the write's answer
//! is not recognised and costs one reconcile, as without this.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use kinformer_core::Object;

use crate::ObjectRef;

/// Written object's uid -> (the resourceVersion stored, the primary whose reconcile wrote it).
type Written = HashMap<Box<str>, (Box<str>, ObjectRef)>;

/// Writes recorded at most: past it the record starts over (an echo never seen, say of an
/// object deleted since, must not pile up); forgetting costs at most one reconcile each.
#[cfg(feature = "rest")]
const MAX_RECORDED: usize = 1 << 16;

/// The writes of a controller's reconciles (without the `rest` feature nothing writes through
/// `kinformer-api`, and it stays empty).
#[derive(Debug, Default)]
pub(crate) struct OwnWrites {
    written: Mutex<Written>,
}

impl OwnWrites {
    /// `writer`'s reconcile stored the object `uid` at `resource_version`.
    #[cfg(feature = "rest")]
    pub(crate) fn record(&self, uid: &str, resource_version: &str, writer: &ObjectRef) {
        let mut written = self.written.lock().unwrap_or_else(PoisonError::into_inner);
        if written.len() >= MAX_RECORDED && !written.contains_key(uid) {
            written.clear();
        }
        written.insert(uid.into(), (resource_version.into(), writer.clone()));
    }

    /// The primary whose own write `object` is the echo of (consumed: it is seen once).
    pub(crate) fn writer_of<O: Object>(&self, object: &O) -> Option<ObjectRef> {
        let uid = object.uid()?;
        let resource_version = object.resource_version()?;
        let mut written = self.written.lock().unwrap_or_else(PoisonError::into_inner);
        match written.get(uid) {
            Some((stored, _)) if &**stored == resource_version => {
                written.remove(uid).map(|(_, writer)| writer)
            }
            _ => None,
        }
    }
}

/// Records the writes of one reconcile of `primary` (see `kinformer_api::observe_writes`).
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

    #[test]
    fn only_the_exact_state_written_is_an_echo_and_only_once() {
        let own = OwnWrites::default();
        let writer = ObjectRef::new(Some("ns"), "foo-1");
        own.record("u1", "7", &writer);
        assert_eq!(own.writer_of(&at("u1", "6")), None, "an older state");
        assert_eq!(own.writer_of(&at("u2", "7")), None, "another object");
        assert_eq!(own.writer_of(&at("u1", "7")), Some(writer.clone()));
        assert_eq!(own.writer_of(&at("u1", "7")), None, "seen once");
        own.record("u1", "8", &writer);
        own.record("u1", "9", &writer);
        assert_eq!(
            own.writer_of(&at("u1", "8")),
            None,
            "only the latest write counts"
        );
        assert_eq!(own.writer_of(&at("u1", "9")), Some(writer));
    }

    #[test]
    fn the_record_is_bounded() {
        let own = OwnWrites::default();
        let writer = ObjectRef::new(None, "w");
        for i in 0..=MAX_RECORDED {
            own.record(&i.to_string(), "1", &writer);
        }
        assert!(own.written.lock().unwrap().len() <= MAX_RECORDED);
    }
}
