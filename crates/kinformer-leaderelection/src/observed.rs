//! [`Observed`]: the last record a candidate saw and when, by its own clock.

use tokio::time::{Duration, Instant};

use crate::lock::VersionedRecord;

/// client-go's `observedRecord`, `observedRawRecord`, `observedTime` and `reportedLeader`.
#[derive(Debug, Default)]
pub(crate) struct Observed {
    current: Option<VersionedRecord>,
    /// When `current` last changed, by the local clock: the lease expires a lease duration
    /// after this, whatever its `renewTime` says.
    at: Option<Instant>,
    /// The holder last reported to `on_new_leader`; starts as nobody, as client-go's
    /// `reportedLeader`, so a lease nobody holds is not reported at first sight.
    reported: Option<String>,
}

/// The observed holder changed: to this one, or to nobody (`None`, a release).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct HolderChange(pub(crate) Option<String>);

impl Observed {
    /// Takes `seen` as the current record. The time restarts only when it differs from the
    /// last one seen; the resourceVersion counts as a difference (client-go compares the
    /// record's bytes), so two renewals with equal timestamps still look like two.
    pub(crate) fn observe(&mut self, seen: VersionedRecord) {
        if self.current.as_ref() != Some(&seen) {
            self.current = Some(seen);
            self.at = Some(Instant::now());
        }
    }

    pub(crate) fn current(&self) -> Option<&VersionedRecord> {
        self.current.as_ref()
    }

    /// The observed holder, `None` when there is no record or nobody holds it.
    pub(crate) fn holder(&self) -> Option<&str> {
        self.current
            .as_ref()
            .and_then(|c| c.record.holder_identity.as_deref())
    }

    /// Whether the lease is unexpired at `now` (client-go `isLeaseValid`), with the duration
    /// the record's writer declared.
    pub(crate) fn valid_at(&self, now: Instant) -> bool {
        match (&self.current, self.at) {
            (Some(current), Some(at)) => {
                let seconds = u64::try_from(current.record.lease_duration_seconds).unwrap_or(0);
                at + Duration::from_secs(seconds) > now
            }
            _ => false,
        }
    }

    /// The holder, if it differs from the last one reported.
    pub(crate) fn take_new_holder(&mut self) -> Option<HolderChange> {
        let holder = self.holder();
        if self.reported.as_deref() == holder {
            return None;
        }
        self.reported = holder.map(str::to_owned);
        Some(HolderChange(self.reported.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::LeaderElectionRecord;

    fn held_by(holder: &str, version: &str) -> VersionedRecord {
        VersionedRecord {
            record: LeaderElectionRecord {
                holder_identity: Some(holder.to_owned()).filter(|h| !h.is_empty()),
                lease_duration_seconds: 15,
                ..LeaderElectionRecord::default()
            },
            resource_version: version.into(),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn the_lease_expires_a_lease_duration_after_it_was_last_seen_to_change() {
        let mut observed = Observed::default();
        assert!(!observed.valid_at(Instant::now()));
        observed.observe(held_by("a", "1"));
        let seen = Instant::now();
        tokio::time::sleep(Duration::from_secs(10)).await;
        // The same record again: the clock does not restart.
        observed.observe(held_by("a", "1"));
        assert!(observed.valid_at(seen + Duration::from_millis(14_999)));
        assert!(!observed.valid_at(seen + Duration::from_secs(15)));
        // The same holder at a new resourceVersion is a renewal: it restarts.
        observed.observe(held_by("a", "2"));
        assert!(observed.valid_at(seen + Duration::from_secs(24)));
        assert!(!observed.valid_at(seen + Duration::from_secs(25)));
    }

    #[test]
    fn holders_are_reported_once_each_change_and_an_empty_lease_not_at_first() {
        let mut observed = Observed::default();
        assert_eq!(observed.take_new_holder(), None);
        observed.observe(held_by("", "1"));
        assert_eq!(observed.holder(), None);
        assert_eq!(observed.take_new_holder(), None);
        observed.observe(held_by("a", "2"));
        assert_eq!(
            observed.take_new_holder(),
            Some(HolderChange(Some("a".into())))
        );
        observed.observe(held_by("a", "3"));
        assert_eq!(observed.take_new_holder(), None);
        observed.observe(held_by("", "4"));
        assert_eq!(observed.take_new_holder(), Some(HolderChange(None)));
    }
}
