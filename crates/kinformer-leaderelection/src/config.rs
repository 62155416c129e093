//! [`Config`]: the three durations of an election and what to do on shutdown.

use std::time::Duration;

use crate::error::{Error, Result};

/// client-go's `JitterFactor`: a candidate waits between `retry_period` and
/// `retry_period * (1 + JITTER_FACTOR)` between attempts to acquire.
pub const JITTER_FACTOR: f64 = 1.2;

/// The largest lease duration: `leaseDurationSeconds` is an `int32`.
const MAX_LEASE_DURATION: Duration = Duration::from_secs(i32::MAX as u64);

/// The timing of an election (client-go `LeaderElectionConfig` without the lock and callbacks).
///
/// The defaults are client-go's and kube-controller-manager's: a 15 s lease, a 10 s renew
/// deadline, a 2 s retry period, no release on cancel. Set fields directly or chain the
/// setters; [`validate`](Self::validate) (called by
/// [`LeaderElector::new`](crate::LeaderElector::new)) checks them together as client-go's
/// `NewLeaderElector` does.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use kinformer_leaderelection::Config;
///
/// let config = Config::default()
///     .lease_duration(Duration::from_secs(30))
///     .renew_deadline(Duration::from_secs(20))
///     .release_on_cancel(true);
/// assert_eq!(config.lease_duration, Duration::from_secs(30));
/// assert!(config.validate().is_ok());
/// // The renew deadline must stay below the lease duration.
/// assert!(config.renew_deadline(Duration::from_secs(30)).validate().is_err());
/// ```
#[doc(alias = "LeaderElectionConfig")]
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// How long a non-leader waits, from the moment it last saw the lease change (by its own
    /// clock), before it may take the lease. Written to the lease as whole seconds
    /// (`leaseDurationSeconds`). Default 15 s.
    pub lease_duration: Duration,
    /// How long the leader keeps retrying to renew before it stops leading. Default 10 s.
    pub renew_deadline: Duration,
    /// The wait between attempts: between renewals, and (jittered by [`JITTER_FACTOR`])
    /// between attempts to acquire. Default 2 s.
    pub retry_period: Duration,
    /// Release the lease when `run`'s token is cancelled (client-go `ReleaseOnCancel`): the
    /// holder is emptied and `leaseDurationSeconds` set to 1, so another candidate takes over
    /// at its next attempt instead of a lease duration later. Default `false`.
    pub release_on_cancel: bool,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
            release_on_cancel: false,
        }
    }
}

impl Config {
    /// Sets [`lease_duration`](Self::lease_duration).
    #[must_use]
    pub fn lease_duration(mut self, lease_duration: Duration) -> Self {
        self.lease_duration = lease_duration;
        self
    }

    /// Sets [`renew_deadline`](Self::renew_deadline).
    #[must_use]
    pub fn renew_deadline(mut self, renew_deadline: Duration) -> Self {
        self.renew_deadline = renew_deadline;
        self
    }

    /// Sets [`retry_period`](Self::retry_period).
    #[must_use]
    pub fn retry_period(mut self, retry_period: Duration) -> Self {
        self.retry_period = retry_period;
        self
    }

    /// Sets [`release_on_cancel`](Self::release_on_cancel).
    #[must_use]
    pub fn release_on_cancel(mut self, release_on_cancel: bool) -> Self {
        self.release_on_cancel = release_on_cancel;
        self
    }

    /// Checks the durations against each other as client-go's `NewLeaderElector` does:
    /// `lease_duration > renew_deadline > retry_period * JITTER_FACTOR`, each positive. Two
    /// checks more, for what the lease can hold: the lease duration is at least one second
    /// (it is written in whole seconds; client-go would write 0, which the API server
    /// rejects) and at most `i32::MAX` seconds.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] naming the first rule broken.
    ///
    /// # Examples
    /// ```
    /// use std::time::Duration;
    /// use kinformer_leaderelection::{Config, Error};
    ///
    /// let config = Config::default().retry_period(Duration::from_secs(9));
    /// let Err(Error::InvalidConfig(rule)) = config.validate() else { panic!() };
    /// assert_eq!(rule, "renew_deadline must be greater than retry_period * 1.2");
    /// ```
    pub fn validate(&self) -> Result<()> {
        let invalid = |rule| Err(Error::InvalidConfig(rule));
        if self.lease_duration <= self.renew_deadline {
            return invalid("lease_duration must be greater than renew_deadline");
        }
        let jittered = Duration::try_from_secs_f64(self.retry_period.as_secs_f64() * JITTER_FACTOR)
            .unwrap_or(Duration::MAX);
        if self.renew_deadline <= jittered {
            return invalid("renew_deadline must be greater than retry_period * 1.2");
        }
        if self.lease_duration < Duration::from_secs(1) {
            return invalid("lease_duration must be at least one second");
        }
        if self.lease_duration > MAX_LEASE_DURATION {
            return invalid("lease_duration must be at most i32::MAX seconds");
        }
        if self.renew_deadline.is_zero() {
            return invalid("renew_deadline must be greater than zero");
        }
        if self.retry_period.is_zero() {
            return invalid("retry_period must be greater than zero");
        }
        Ok(())
    }

    /// The lease duration as the lease stores it (whole seconds; `validate` keeps it in range).
    pub(crate) fn lease_duration_seconds(&self) -> i32 {
        i32::try_from(self.lease_duration.as_secs()).unwrap_or(i32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn defaults_are_client_go_and_valid() {
        let c = Config::default();
        assert_eq!(
            (c.lease_duration, c.renew_deadline, c.retry_period),
            (secs(15), secs(10), secs(2))
        );
        assert!(!c.release_on_cancel);
        c.validate().unwrap();
        assert_eq!(c.lease_duration_seconds(), 15);
    }

    #[test]
    fn validate_rejects_what_client_go_rejects_and_what_a_lease_cannot_hold() {
        let cases = [
            (
                Config::default().lease_duration(secs(10)),
                "lease_duration must be greater than renew_deadline",
            ),
            (
                Config::default().retry_period(Duration::from_millis(8_334)),
                "renew_deadline must be greater than retry_period * 1.2",
            ),
            (
                Config::default().retry_period(Duration::MAX),
                "renew_deadline must be greater than retry_period * 1.2",
            ),
            (
                Config::default()
                    .lease_duration(Duration::from_millis(900))
                    .renew_deadline(Duration::from_millis(800))
                    .retry_period(Duration::from_millis(100)),
                "lease_duration must be at least one second",
            ),
            (
                Config::default().lease_duration(Duration::MAX),
                "lease_duration must be at most i32::MAX seconds",
            ),
            (
                Config::default().retry_period(Duration::ZERO),
                "retry_period must be greater than zero",
            ),
        ];
        for (config, rule) in cases {
            match config.validate() {
                Err(Error::InvalidConfig(r)) => assert_eq!(r, rule, "{config:?}"),
                other => panic!("{config:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn validate_accepts_what_client_go_accepts() {
        // A lease barely longer than the renew deadline, a retry period just under the bound.
        let tight = Config::default()
            .lease_duration(Duration::from_millis(10_001))
            .retry_period(Duration::from_millis(8_333));
        tight.validate().unwrap();
        let long = Config::default()
            .lease_duration(secs(137))
            .renew_deadline(secs(107))
            .retry_period(secs(26));
        long.validate().unwrap();
    }
}
