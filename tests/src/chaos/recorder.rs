//! A handler that replays its notifications into a map, so its view can be compared with the
//! server's, and keeps every delete it was told of for the audit check.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kinformer::informer::EventHandler;
use kinformer_core::{DeletedState, Object, object_key};

/// An object's identity and version: what the cache and each view are compared by.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    /// `metadata.uid`.
    pub uid: String,
    /// `metadata.resourceVersion`, as a number.
    pub rv: u64,
}

impl Version {
    /// The version of `pod`.
    pub fn of(pod: &Pod) -> Self {
        Self {
            uid: pod.uid().unwrap_or_default().to_owned(),
            rv: pod
                .resource_version()
                .and_then(|rv| rv.parse().ok())
                .unwrap_or(0),
        }
    }
}

/// A delete a handler received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivered {
    /// The object's key.
    pub key: String,
    /// The object's last known version.
    pub version: Version,
    /// Whether it came as a tombstone (a delete the informer inferred).
    pub tombstone: bool,
}

/// Replays add/update/delete into a map, in delivery order.
#[derive(Debug, Default)]
pub struct Recorder {
    view: Mutex<BTreeMap<String, Version>>,
    deletes: Mutex<Vec<Delivered>>,
    anomalies: Mutex<Vec<String>>,
    events: AtomicU64,
    /// Sleep 1 ms every this many events (0: never), to play a slow handler.
    slow_every: u64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Recorder {
    /// A handler that keeps up.
    pub fn fast() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// A handler that sleeps 1 ms every `every` events.
    pub fn slow(every: u64) -> Arc<Self> {
        Arc::new(Self {
            slow_every: every,
            ..Self::default()
        })
    }

    /// Its replayed view.
    pub fn view(&self) -> BTreeMap<String, Version> {
        lock(&self.view).clone()
    }

    /// Every delete it received.
    pub fn deletes(&self) -> Vec<Delivered> {
        lock(&self.deletes).clone()
    }

    /// Out-of-order deliveries it saw (a version older than one already seen for that object).
    pub fn anomalies(&self) -> Vec<String> {
        lock(&self.anomalies).clone()
    }

    /// Notifications received.
    pub fn events(&self) -> u64 {
        self.events.load(Ordering::Relaxed)
    }

    fn tick(&self) {
        let n = self.events.fetch_add(1, Ordering::Relaxed) + 1;
        if self.slow_every > 0 && n.is_multiple_of(self.slow_every) {
            // A handler doing blocking work, as real ones do, in real time (chaos runs are not
            // paused-time tests); the informer runs each handler on its own task.
            #[allow(clippy::disallowed_methods)]
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    fn put(&self, key: String, version: Version, what: &str) {
        let mut view = lock(&self.view);
        if let Some(old) = view.get(&key)
            && old.uid == version.uid
            && old.rv > version.rv
        {
            lock(&self.anomalies).push(format!(
                "{what} of {key} went back from rv {} to {}",
                old.rv, version.rv
            ));
        }
        view.insert(key, version);
    }
}

impl EventHandler<Pod> for Recorder {
    fn on_add(&self, obj: &Arc<Pod>, _is_in_initial_list: bool) {
        self.tick();
        self.put(object_key(&**obj), Version::of(obj), "add");
    }

    fn on_update(&self, _old: &Arc<Pod>, new: &Arc<Pod>) {
        self.tick();
        self.put(object_key(&**new), Version::of(new), "update");
    }

    fn on_delete(&self, state: &DeletedState<Pod>) {
        self.tick();
        let key = match state {
            DeletedState::Unknown { key, .. } => key.clone(),
            _ => object_key(&**state.object()),
        };
        lock(&self.view).remove(&key);
        lock(&self.deletes).push(Delivered {
            key,
            version: Version::of(state.object()),
            tombstone: state.is_tombstone(),
        });
    }
}
