//! One attempt to acquire or renew the lease, and its release (client-go `tryAcquireOrRenew`
//! and `release`).

use tokio::time::{Instant, timeout_at};

use crate::elector::LeaderElector;
use crate::error::Error;
use crate::lock::{LeaseLock, VersionedRecord};
use crate::record::{LeaderElectionRecord, renew_time_after, wall_now};

impl<L: LeaseLock> LeaderElector<L> {
    /// One attempt: the local time the successful write was sent, or `None`.
    pub(crate) async fn try_acquire_or_renew(&self) -> Option<Instant> {
        let lock = &self.inner.lock;
        let now = Instant::now();

        // 1. The leader's fast path: update based on the version it wrote last.
        let fast = {
            let observed = self.observed();
            (observed.holder() == Some(self.inner.identity.as_str()) && observed.valid_at(now))
                .then(|| observed.current().cloned())
                .flatten()
        };
        if let Some(mine) = fast {
            match self.write_over(&mine, true).await {
                Ok(sent) => return Some(sent),
                Err(e) => {
                    tracing::debug!(lease = %lock.describe(), error = %e, "optimistic renewal failed; reading the lease")
                }
            }
        }

        // 2. Read the lease, creating it if absent.
        let current = match lock.get().await {
            Ok(Some(current)) => current,
            Ok(None) => {
                let record = self.record_over(None, false);
                let sent = Instant::now();
                return match lock.create(&record).await {
                    Ok(created) => {
                        self.observed().observe(created);
                        Some(sent)
                    }
                    Err(e) => {
                        tracing::debug!(lease = %lock.describe(), error = %e, "cannot create the lease");
                        None
                    }
                };
            }
            Err(e) => {
                tracing::debug!(lease = %lock.describe(), error = %e, "cannot read the lease");
                return None;
            }
        };

        // 3. A lease held by another that has not expired by our clock is left alone.
        let renewing = {
            let mut observed = self.observed();
            observed.observe(current.clone());
            let mine = observed.holder() == Some(self.inner.identity.as_str());
            if current.record.holder_identity.is_some() && observed.valid_at(now) && !mine {
                return None;
            }
            mine
        };

        // 4. Take or keep it, based on the version just read.
        match self.write_over(&current, renewing).await {
            Ok(sent) => Some(sent),
            Err(e) => {
                tracing::debug!(lease = %lock.describe(), error = %e, "cannot update the lease");
                None
            }
        }
    }

    /// Writes this candidate's record over `base`; the local time the write was sent.
    async fn write_over(&self, base: &VersionedRecord, renewing: bool) -> Result<Instant, Error> {
        let record = self.record_over(Some(&base.record), renewing);
        let sent = Instant::now();
        let written = self
            .inner
            .lock
            .update(&record, &base.resource_version)
            .await?;
        self.observed().observe(written);
        Ok(sent)
    }

    /// The record this candidate writes over `previous` (`None`: a new lease). A renewal keeps
    /// the acquire time and the transitions and moves the renew time; a takeover starts a new
    /// term and counts one transition more.
    fn record_over(
        &self,
        previous: Option<&LeaderElectionRecord>,
        renewing: bool,
    ) -> LeaderElectionRecord {
        let (acquire_time, renew_time, leader_transitions) = match previous {
            Some(previous) if renewing => (
                previous.acquire_time,
                renew_time_after(previous.renew_time),
                previous.leader_transitions,
            ),
            Some(previous) => {
                let now = wall_now();
                (
                    Some(now),
                    now,
                    previous.leader_transitions.saturating_add(1),
                )
            }
            None => {
                let now = wall_now();
                (Some(now), now, 0)
            }
        };
        LeaderElectionRecord {
            holder_identity: Some(self.inner.identity.clone()),
            lease_duration_seconds: self.inner.config.lease_duration_seconds(),
            acquire_time,
            renew_time: Some(renew_time),
            leader_transitions,
        }
    }

    /// Empties the holder if this candidate still holds the lease, within a renew deadline:
    /// `leaseDurationSeconds` 1 and the transitions kept, as client-go writes it. A conflict
    /// (a renewal still in flight landed first) is retried, as client-go does.
    pub(crate) async fn release(&self) {
        let lock = &self.inner.lock;
        let release = async {
            loop {
                let current = lock.get().await.ok().flatten()?;
                if current.record.holder_identity.as_deref() != Some(self.inner.identity.as_str()) {
                    // Taken over or released already: nothing of ours to give up.
                    return None;
                }
                let now = Some(wall_now());
                let released = LeaderElectionRecord {
                    holder_identity: None,
                    lease_duration_seconds: 1,
                    acquire_time: now,
                    renew_time: now,
                    leader_transitions: current.record.leader_transitions,
                };
                match lock.update(&released, &current.resource_version).await {
                    Ok(written) => return Some(written),
                    Err(Error::Conflict) => {}
                    Err(e) => {
                        tracing::debug!(lease = %lock.describe(), error = %e, "cannot release the lease");
                        return None;
                    }
                }
            }
        };
        let deadline = Instant::now() + self.inner.config.renew_deadline();
        match timeout_at(deadline, release).await {
            Ok(Some(written)) => {
                self.observed().observe(written);
                tracing::info!(lease = %lock.describe(), identity = %self.inner.identity, "released the lease");
            }
            _ => {
                tracing::info!(lease = %lock.describe(), identity = %self.inner.identity, "did not release the lease");
            }
        }
    }
}
