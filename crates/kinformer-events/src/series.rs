//! Folding repeats into series (client-go's `eventCache`) and the queue of series waiting for
//! a write.
//!
//! Every open series holds its Event as it should be on the server. A series that changed
//! waits in the pending queue for a worker; repeats that arrive while it waits or is being
//! written only update it, so one write carries all of them (the count the server shows
//! trails by at most one write). The pending queue is bounded: a new event that finds it full
//! is dropped, while repeats of known events are still folded, so an outage loses new events
//! but keeps counting the old ones.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::api::events::v1::{Event, EventSeries};
use tokio::time::Instant;

use crate::event::{Occurrence, micro_time};

/// What makes two occurrences one series (client-go's `eventKey`): type, action, reason,
/// reporter, regarding and related objects. The note is not part of it: a repeat with another
/// note joins the series and the first note stays.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct SeriesKey {
    event_type: &'static str,
    action: String,
    reason: String,
    controller: String,
    instance: String,
    regarding: ReferenceKey,
    related: Option<ReferenceKey>,
}

/// An object reference's fields, hashable.
type ReferenceKey = [Option<String>; 7];

fn reference_key(reference: &ObjectReference) -> ReferenceKey {
    [
        reference.api_version.clone(),
        reference.kind.clone(),
        reference.namespace.clone(),
        reference.name.clone(),
        reference.uid.clone(),
        reference.resource_version.clone(),
        reference.field_path.clone(),
    ]
}

impl SeriesKey {
    fn of(occurrence: &Occurrence) -> Self {
        Self {
            event_type: occurrence.event_type.as_str(),
            action: occurrence.action.clone(),
            reason: occurrence.reason.clone(),
            controller: occurrence.reporter.controller().to_owned(),
            instance: occurrence.reporter.instance().to_owned(),
            regarding: reference_key(&occurrence.regarding),
            related: occurrence.related.as_ref().map(reference_key),
        }
    }
}

/// Where an open series stands with the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing to write: the last write of it ended (written or given up).
    Idle,
    /// In the pending queue.
    Queued,
    /// A write is under way; `again`: it changed since, write once more after.
    Writing { again: bool },
}

/// One event and its repeats so far.
#[derive(Debug)]
struct OpenSeries {
    event: Event,
    last_seen: Instant,
    state: State,
}

/// What [`SeriesCache::observe`] did with an occurrence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Observed {
    /// A new event, queued for its create.
    New,
    /// A repeat, folded into its series.
    Repeat,
    /// A new event, dropped: the pending queue is full.
    Dropped,
}

/// The open series and the queue of those waiting for a write.
#[derive(Debug)]
pub(crate) struct SeriesCache {
    entries: HashMap<SeriesKey, OpenSeries>,
    pending: VecDeque<SeriesKey>,
    max_pending: usize,
    window: Duration,
}

impl SeriesCache {
    /// A cache whose series stay open `window` after their last occurrence, and whose
    /// pending queue takes new events up to `max_pending`.
    pub(crate) fn new(max_pending: usize, window: Duration) -> Self {
        Self {
            entries: HashMap::new(),
            pending: VecDeque::new(),
            max_pending,
            window,
        }
    }

    /// Records one occurrence: a repeat within the window of its series' last occurrence
    /// (or while its series is still being written) joins the series, anything else starts
    /// a new event.
    pub(crate) fn observe(&mut self, occurrence: &Occurrence, now: Instant) -> Observed {
        let key = SeriesKey::of(occurrence);
        let window = self.window;
        let full = self.pending.len() >= self.max_pending;
        match self.entries.entry(key) {
            Entry::Occupied(mut open)
                if open.get().state != State::Idle
                    || now.saturating_duration_since(open.get().last_seen) < window =>
            {
                let entry = open.get_mut();
                let count = entry
                    .event
                    .series
                    .as_ref()
                    .map_or(2, |series| series.count + 1);
                entry.event.series = Some(EventSeries {
                    count,
                    last_observed_time: micro_time(occurrence.time),
                });
                entry.last_seen = now;
                match entry.state {
                    State::Idle => {
                        entry.state = State::Queued;
                        self.pending.push_back(open.key().clone());
                    }
                    State::Queued => {}
                    State::Writing { .. } => entry.state = State::Writing { again: true },
                }
                Observed::Repeat
            }
            _ if full => Observed::Dropped,
            Entry::Occupied(mut stale) => {
                // The old series is closed: this occurrence is a new event.
                stale.insert(OpenSeries {
                    event: occurrence.to_event(),
                    last_seen: now,
                    state: State::Queued,
                });
                self.pending.push_back(stale.key().clone());
                Observed::New
            }
            Entry::Vacant(vacant) => {
                self.pending.push_back(vacant.key().clone());
                vacant.insert(OpenSeries {
                    event: occurrence.to_event(),
                    last_seen: now,
                    state: State::Queued,
                });
                Observed::New
            }
        }
    }

    /// The next series to write, marked as being written.
    pub(crate) fn next_write(&mut self) -> Option<(SeriesKey, Event)> {
        while let Some(key) = self.pending.pop_front() {
            // Every queued key has its entry: entries leave only when idle (`finish`).
            if let Some(entry) = self.entries.get_mut(&key) {
                entry.state = State::Writing { again: false };
                return Some((key, entry.event.clone()));
            }
        }
        None
    }

    /// A write of `key` ended; queues it again if it changed meanwhile.
    pub(crate) fn written(&mut self, key: &SeriesKey) {
        if let Some(entry) = self.entries.get_mut(key) {
            entry.state = match entry.state {
                State::Writing { again: true } => {
                    self.pending.push_back(key.clone());
                    State::Queued
                }
                _ => State::Idle,
            };
        }
    }

    /// Series waiting for a write.
    #[cfg(test)]
    fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Forgets the pending queue (at the end of shutdown's flush); returns how many waited.
    pub(crate) fn abandon_pending(&mut self) -> usize {
        let waiting = self.pending.len();
        self.pending.clear();
        waiting
    }

    /// Closes the idle series last seen a window or longer ago, as client-go's
    /// `finishSeries` does; a later repeat starts a new event.
    pub(crate) fn finish(&mut self, now: Instant) {
        let window = self.window;
        self.entries.retain(|_, entry| {
            entry.state != State::Idle || now.saturating_duration_since(entry.last_seen) < window
        });
    }

    #[cfg(test)]
    fn open(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::SystemTime;

    use super::*;
    use crate::event::EventType;
    use crate::reporter::Reporter;

    const WINDOW: Duration = Duration::from_secs(360);

    fn occurrence(name: &str, reason: &str, note: &str) -> Occurrence {
        Occurrence {
            reporter: Arc::new(Reporter::new("ctl").unwrap()),
            regarding: ObjectReference {
                name: Some(name.into()),
                ..ObjectReference::default()
            },
            related: None,
            event_type: EventType::Normal,
            reason: reason.into(),
            action: "Sync".into(),
            note: note.into(),
            time: SystemTime::now(),
        }
    }

    fn count(event: &Event) -> Option<i32> {
        event.series.as_ref().map(|series| series.count)
    }

    #[test]
    fn a_repeat_is_a_series_written_once_per_change() {
        let mut cache = SeriesCache::new(10, WINDOW);
        let now = Instant::now();
        assert_eq!(
            cache.observe(&occurrence("web-0", "Synced", "a"), now),
            Observed::New
        );
        let (key, first) = cache.next_write().unwrap();
        assert_eq!(count(&first), None);
        assert!(cache.next_write().is_none(), "nothing else changed");

        // Repeats during the create are folded into one series write after it.
        assert_eq!(
            cache.observe(&occurrence("web-0", "Synced", "b"), now),
            Observed::Repeat
        );
        assert_eq!(
            cache.observe(&occurrence("web-0", "Synced", "c"), now),
            Observed::Repeat
        );
        assert!(
            cache.next_write().is_none(),
            "one write of a series at a time"
        );
        cache.written(&key);
        let (_, series) = cache.next_write().unwrap();
        assert_eq!(count(&series), Some(3));
        assert_eq!(series.metadata.name, first.metadata.name);
        assert_eq!(series.note.as_deref(), Some("a"), "the first note stays");
        assert!(series.series.unwrap().last_observed_time.0 >= first.event_time.unwrap().0);
        cache.written(&key);
        assert!(cache.next_write().is_none());

        cache.observe(&occurrence("web-0", "Synced", "d"), now);
        assert_eq!(count(&cache.next_write().unwrap().1), Some(4));
    }

    #[test]
    fn repeats_while_queued_ride_along_with_the_queued_write() {
        let mut cache = SeriesCache::new(10, WINDOW);
        let now = Instant::now();
        cache.observe(&occurrence("web-0", "Synced", ""), now);
        cache.observe(&occurrence("web-0", "Synced", ""), now);
        assert_eq!(cache.pending(), 1);
        let (_, event) = cache.next_write().unwrap();
        assert_eq!(
            count(&event),
            Some(2),
            "created with its series, as client-go would"
        );
    }

    #[test]
    fn other_reasons_objects_and_types_are_other_series() {
        let mut cache = SeriesCache::new(10, WINDOW);
        let now = Instant::now();
        cache.observe(&occurrence("web-0", "Synced", ""), now);
        assert_eq!(
            cache.observe(&occurrence("web-0", "Failed", ""), now),
            Observed::New
        );
        assert_eq!(
            cache.observe(&occurrence("web-1", "Synced", ""), now),
            Observed::New
        );
        let mut warning = occurrence("web-0", "Synced", "");
        warning.event_type = EventType::Warning;
        assert_eq!(cache.observe(&warning, now), Observed::New);
        assert_eq!(cache.pending(), 4);
    }

    #[test]
    fn a_repeat_after_the_window_starts_a_new_event() {
        let mut cache = SeriesCache::new(10, WINDOW);
        let start = Instant::now();
        cache.observe(&occurrence("web-0", "Synced", ""), start);
        let (key, _) = cache.next_write().unwrap();
        cache.written(&key);
        let late = start + WINDOW;
        assert_eq!(
            cache.observe(&occurrence("web-0", "Synced", ""), late),
            Observed::New
        );
        assert_eq!(count(&cache.next_write().unwrap().1), None);
    }

    #[test]
    fn idle_series_close_after_the_window_busy_ones_stay() {
        let mut cache = SeriesCache::new(10, WINDOW);
        let start = Instant::now();
        cache.observe(&occurrence("web-0", "Synced", ""), start);
        cache.observe(&occurrence("web-1", "Synced", ""), start);
        let (done, _) = cache.next_write().unwrap();
        cache.written(&done);
        let (_writing, _) = cache.next_write().unwrap();
        cache.finish(start + WINDOW - Duration::from_secs(1));
        assert_eq!(cache.open(), 2, "both seen within the window");
        cache.finish(start + WINDOW);
        assert_eq!(cache.open(), 1, "the one being written stays open");
    }

    #[test]
    fn a_full_queue_drops_new_events_and_still_folds_repeats() {
        let mut cache = SeriesCache::new(2, WINDOW);
        let now = Instant::now();
        cache.observe(&occurrence("web-0", "Synced", ""), now);
        cache.observe(&occurrence("web-1", "Synced", ""), now);
        assert_eq!(
            cache.observe(&occurrence("web-2", "Synced", ""), now),
            Observed::Dropped
        );
        assert_eq!(
            cache.observe(&occurrence("web-0", "Synced", ""), now),
            Observed::Repeat
        );
        assert_eq!(cache.pending(), 2);
        assert_eq!(cache.abandon_pending(), 2);
        assert!(cache.next_write().is_none());
    }
}
