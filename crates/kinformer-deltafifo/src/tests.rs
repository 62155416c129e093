//! Test support shared by the queue tests, and the model-based and concurrency tests.

mod concurrency;
mod model;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_core::{DeletedState, Delta, Object, StoreRead};

use crate::{DeltaQueue, Popped, PoppedItem};

/// A config map `name` (in namespace `ns`) at resourceVersion `rv`.
pub(crate) fn cm(name: &str, rv: u32) -> Arc<ConfigMap> {
    let mut cm = ConfigMap::default();
    cm.metadata.namespace = Some("ns".into());
    cm.metadata.name = Some(name.into());
    cm.metadata.resource_version = Some(rv.to_string());
    Arc::new(cm)
}

/// The consumer's store, readable by the queue as its known objects.
#[derive(Debug, Default)]
pub(crate) struct Cache(pub(crate) Mutex<HashMap<String, Arc<ConfigMap>>>);

impl Cache {
    pub(crate) fn with(objects: &[Arc<ConfigMap>]) -> Arc<Self> {
        let cache = Self::default();
        for obj in objects {
            cache.put(Arc::clone(obj));
        }
        Arc::new(cache)
    }

    pub(crate) fn put(&self, obj: Arc<ConfigMap>) {
        let key = kinformer_core::object_key(&*obj);
        self.0.lock().unwrap().insert(key, obj);
    }

    /// Applies a popped item the way an informer does.
    pub(crate) fn apply(&self, item: &PoppedItem<ConfigMap>) {
        let mut map = self.0.lock().unwrap();
        match item {
            PoppedItem::Deltas { key, deltas } => {
                for delta in deltas {
                    match delta {
                        Delta::Deleted(_) => {
                            map.remove(key);
                        }
                        other => {
                            map.insert(key.clone(), other.object().load().unwrap());
                        }
                    }
                }
            }
            PoppedItem::ReplacedAll { objects, .. } => {
                *map = objects
                    .iter()
                    .map(|obj| obj.load().unwrap())
                    .map(|obj| (kinformer_core::object_key(&*obj), obj))
                    .collect();
            }
            PoppedItem::SyncAll => {}
        }
    }

    /// `key -> resourceVersion`.
    pub(crate) fn versions(&self) -> HashMap<String, String> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.resource_version().unwrap_or("").to_owned()))
            .collect()
    }
}

impl StoreRead<ConfigMap> for Cache {
    fn get_by_key(&self, key: &str) -> Option<Arc<ConfigMap>> {
        self.0.lock().unwrap().get(key).cloned()
    }

    fn list(&self) -> Vec<Arc<ConfigMap>> {
        self.0.lock().unwrap().values().cloned().collect()
    }

    fn list_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.0.lock().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    }

    fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

/// A delta as `Kind:name@rv`, tombstones as `Tombstone:name@rv`.
pub(crate) fn describe(delta: &Delta<ConfigMap>) -> String {
    let kind = match delta {
        Delta::Added(_) => "Added",
        Delta::Updated(_) => "Updated",
        Delta::Deleted(DeletedState::Unknown { .. }) => "Tombstone",
        Delta::Deleted(_) => "Deleted",
        Delta::Replaced(_) => "Replaced",
        Delta::Sync(_) => "Sync",
    };
    let obj = delta.object().load().unwrap();
    format!(
        "{kind}:{}@{}",
        obj.name(),
        obj.resource_version().unwrap_or("")
    )
}

/// Pops one item without waiting (the queue must not be empty).
pub(crate) fn pop_now<Q: DeltaQueue<ConfigMap>>(queue: &Q) -> Popped<ConfigMap> {
    let mut task = tokio_test::task::spawn(queue.pop(|popped| popped));
    match task.poll() {
        std::task::Poll::Ready(Ok(popped)) => popped,
        other => panic!("expected an item, got {other:?}"),
    }
}

/// Pops one item and describes it: `(key, deltas, is_in_initial_list)`.
pub(crate) fn pop_described<Q: DeltaQueue<ConfigMap>>(queue: &Q) -> (String, Vec<String>, bool) {
    let popped = pop_now(queue);
    match popped.item {
        PoppedItem::Deltas { key, deltas } => (
            key,
            deltas.iter().map(describe).collect(),
            popped.is_in_initial_list,
        ),
        PoppedItem::ReplacedAll {
            objects,
            resource_version,
        } => (
            format!("ReplacedAll@{resource_version}"),
            objects
                .iter()
                .map(|o| o.load().unwrap().name().to_owned())
                .collect(),
            popped.is_in_initial_list,
        ),
        _ => ("SyncAll".into(), Vec::new(), popped.is_in_initial_list),
    }
}
