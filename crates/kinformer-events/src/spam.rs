//! The spam filter: a token bucket per source and object, as client-go's `tools/record`
//! `EventSourceObjectSpamFilter` keeps one (burst 25, one token back every five minutes).

use std::collections::HashMap;
use std::time::Duration;

use tokio::time::Instant;

use crate::event::Occurrence;

/// Who reports about which object: the reporting controller and instance and the regarding
/// object's identity.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct SourceObject {
    controller: String,
    instance: String,
    api_version: Option<String>,
    kind: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    uid: Option<String>,
}

impl SourceObject {
    fn of(occurrence: &Occurrence) -> Self {
        let regarding = &occurrence.regarding;
        Self {
            controller: occurrence.reporter.controller().to_owned(),
            instance: occurrence.reporter.instance().to_owned(),
            api_version: regarding.api_version.clone(),
            kind: regarding.kind.clone(),
            namespace: regarding.namespace.clone(),
            name: regarding.name.clone(),
            uid: regarding.uid.clone(),
        }
    }
}

/// A token bucket kept in time units, so refills are exact: `credit` is how much refill time
/// the bucket holds (one token per `refill`, at most `burst` tokens' worth).
#[derive(Debug, Clone, Copy)]
struct Bucket {
    credit: Duration,
    updated: Instant,
}

/// Token buckets per source and object.
#[derive(Debug)]
pub(crate) struct SpamFilter {
    refill: Duration,
    capacity: Duration,
    buckets: HashMap<SourceObject, Bucket>,
}

impl SpamFilter {
    pub(crate) fn new(burst: u32, refill: Duration) -> Self {
        Self {
            refill,
            capacity: refill.saturating_mul(burst),
            buckets: HashMap::new(),
        }
    }

    /// Takes a token from the occurrence's bucket; `false` when it has none left.
    pub(crate) fn allow(&mut self, occurrence: &Occurrence, now: Instant) -> bool {
        let (refill, capacity) = (self.refill, self.capacity);
        let bucket = self
            .buckets
            .entry(SourceObject::of(occurrence))
            .or_insert(Bucket {
                credit: capacity,
                updated: now,
            });
        let credit = refilled(capacity, *bucket, now);
        bucket.updated = now;
        match credit.checked_sub(refill) {
            Some(left) => {
                bucket.credit = left;
                true
            }
            None => {
                bucket.credit = credit;
                false
            }
        }
    }

    /// Forgets full buckets: a full bucket is what a new one would be, so this loses nothing
    /// and keeps the map as small as the objects recently reported about.
    pub(crate) fn forget_full(&mut self, now: Instant) {
        let capacity = self.capacity;
        self.buckets
            .retain(|_, bucket| refilled(capacity, *bucket, now) < capacity);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.buckets.len()
    }
}

fn refilled(capacity: Duration, bucket: Bucket, now: Instant) -> Duration {
    let elapsed = now.saturating_duration_since(bucket.updated);
    bucket.credit.saturating_add(elapsed).min(capacity)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::SystemTime;

    use k8s_openapi::api::core::v1::ObjectReference;

    use super::*;
    use crate::event::EventType;
    use crate::reporter::Reporter;

    fn about(name: &str) -> Occurrence {
        by("ctl", name)
    }

    fn by(controller: &str, name: &str) -> Occurrence {
        Occurrence {
            reporter: Arc::new(Reporter::new(controller).unwrap()),
            regarding: ObjectReference {
                name: Some(name.into()),
                ..ObjectReference::default()
            },
            related: None,
            event_type: EventType::Normal,
            reason: "Synced".into(),
            action: "Sync".into(),
            note: String::new(),
            time: SystemTime::now(),
        }
    }

    #[test]
    fn a_burst_passes_then_one_event_per_refill_per_object() {
        let mut filter = SpamFilter::new(25, Duration::from_secs(300));
        let start = Instant::now();
        let passed = (0..30).filter(|_| filter.allow(&about("a"), start)).count();
        assert_eq!(passed, 25);
        assert!(
            filter.allow(&about("b"), start),
            "other objects have their own bucket"
        );
        assert!(
            filter.allow(&by("other", "a"), start),
            "other reporters too"
        );
        assert!(!filter.allow(&about("a"), start + Duration::from_secs(299)));
        assert!(filter.allow(&about("a"), start + Duration::from_secs(300)));
        assert!(!filter.allow(&about("a"), start + Duration::from_secs(301)));
    }

    #[test]
    fn full_buckets_are_forgotten() {
        let mut filter = SpamFilter::new(2, Duration::from_secs(10));
        let start = Instant::now();
        assert!(filter.allow(&about("a"), start));
        filter.forget_full(start + Duration::from_secs(5));
        assert_eq!(filter.len(), 1);
        filter.forget_full(start + Duration::from_secs(10));
        assert_eq!(filter.len(), 0);
    }
}
