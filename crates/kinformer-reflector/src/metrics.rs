//! [`ReflectorMetrics`]: hooks the reflector calls as it works, and [`Counters`], a ready
//! implementation.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Hooks for observing a reflector. Every method has a no-op default.
pub trait ReflectorMetrics: Send + Sync {
    /// A list (or streaming list) started; `relist` is false only before the first sync.
    fn list_started(&self, _relist: bool) {}

    /// A list (or a streaming list's initial events) completed with `items` objects, `took`
    /// after it started, retries included (client-go's `reflector_list_duration_seconds` and
    /// `reflector_listed_items`).
    fn list_done(&self, _took: Duration, _items: usize) {}

    /// A watch request (plain or streaming) was sent.
    fn watch_started(&self) {}

    /// A watch closed in under a second without events.
    fn short_watch(&self) {}

    /// A watch ended after `took`, having delivered `objects` events (client-go's
    /// `reflector_watch_duration_seconds` and `reflector_watched_objects`).
    fn watch_done(&self, _took: Duration, _objects: u64) {}

    /// A watch event or bookmark was accepted.
    fn event(&self) {}

    /// The last synced resourceVersion changed.
    fn last_resource_version(&self, _resource_version: &str) {}
}

/// The hooks that do nothing.
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct NoMetrics;

impl ReflectorMetrics for NoMetrics {}

/// Counters for every hook, readable at any time through [`snapshot`](Self::snapshot).
///
/// ```
/// use kinformer_reflector::{Counters, ReflectorMetrics};
///
/// let counters = Counters::default();
/// counters.list_started(false);
/// counters.list_started(true);
/// counters.last_resource_version("42");
/// let snap = counters.snapshot();
/// assert_eq!((snap.lists, snap.relists), (2, 1));
/// assert_eq!(snap.last_resource_version, "42");
/// ```
#[derive(Debug, Default)]
pub struct Counters {
    lists: AtomicU64,
    relists: AtomicU64,
    watches: AtomicU64,
    short_watches: AtomicU64,
    events: AtomicU64,
    last_resource_version: Mutex<String>,
}

/// A point-in-time copy of [`Counters`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CountersSnapshot {
    /// Lists and streaming lists started.
    pub lists: u64,
    /// Of those, the ones after the first sync.
    pub relists: u64,
    /// Watch requests sent.
    pub watches: u64,
    /// Watches that closed in under a second without events.
    pub short_watches: u64,
    /// Events and bookmarks accepted.
    pub events: u64,
    /// The last synced resourceVersion.
    pub last_resource_version: String,
}

impl Counters {
    /// The current values.
    pub fn snapshot(&self) -> CountersSnapshot {
        CountersSnapshot {
            lists: self.lists.load(Ordering::Relaxed),
            relists: self.relists.load(Ordering::Relaxed),
            watches: self.watches.load(Ordering::Relaxed),
            short_watches: self.short_watches.load(Ordering::Relaxed),
            events: self.events.load(Ordering::Relaxed),
            last_resource_version: self
                .last_resource_version
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone(),
        }
    }
}

impl ReflectorMetrics for Counters {
    fn list_started(&self, relist: bool) {
        self.lists.fetch_add(1, Ordering::Relaxed);
        if relist {
            self.relists.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn watch_started(&self) {
        self.watches.fetch_add(1, Ordering::Relaxed);
    }

    fn short_watch(&self) {
        self.short_watches.fetch_add(1, Ordering::Relaxed);
    }

    fn event(&self) {
        self.events.fetch_add(1, Ordering::Relaxed);
    }

    fn last_resource_version(&self, resource_version: &str) {
        let mut last = self
            .last_resource_version
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        last.clear();
        last.push_str(resource_version);
    }
}
