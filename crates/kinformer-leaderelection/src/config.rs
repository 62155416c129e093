//! [`Config`]: the three durations of an election and what to do on shutdown.

use std::time::Duration;

use kinformer_core::Backoff;

use crate::error::{Error, Result};

/// client-go's `JitterFactor`: a candidate waits between `retry_period` and
/// `retry_period * (1 + JITTER_FACTOR)` between attempts to acquire: the jitter of
/// [`Backoff::LEADER_ELECTION`].
pub const JITTER_FACTOR: f64 = Backoff::LEADER_ELECTION.jitter();

/// The largest lease duration: `leaseDurationSeconds` is an `int32`.
const MAX_LEASE_DURATION: Duration = Duration::from_secs(i32::MAX as u64);

/// The timing of an election (client-go `LeaderElectionConfig` without the lock and callbacks).
///
/// The defaults are client-go's and kube-controller-manager's: a 15 s lease, a 10 s renew
/// deadline, a 2 s retry period, no release on cancel. Each setting has a `with_` setter and a
/// getter of the same name.
///
/// The three durations are checked against each other as client-go's `NewLeaderElector` does:
/// `lease_duration > renew_deadline > retry_period * JITTER_FACTOR`, each positive, and the
/// lease duration between one second and `i32::MAX` seconds (it is written to the lease in whole
/// seconds; client-go would write 0, which the API server rejects). A setter checks its
/// duration against the other two and refuses, with [`Error::InvalidConfig`] naming the rule, a
/// value that breaks one, so a `Config` always holds a valid election. To change several
/// durations at once, whatever their order, start from [`Config::new`].
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use kinformer_leaderelection::{Config, Error};
///
/// let config = Config::default()
///     .with_lease_duration(Duration::from_secs(30))?
///     .with_renew_deadline(Duration::from_secs(20))?
///     .with_release_on_cancel(true);
/// assert_eq!(config.lease_duration(), Duration::from_secs(30));
/// // The renew deadline must stay below the lease duration.
/// let Err(Error::InvalidConfig(rule)) = config.with_renew_deadline(Duration::from_secs(30)) else {
///     panic!()
/// };
/// assert_eq!(rule, "lease_duration must be greater than renew_deadline");
/// # Ok::<_, Error>(())
/// ```
#[doc(alias = "LeaderElectionConfig")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    lease_duration: Duration,
    renew_deadline: Duration,
    retry_period: Duration,
    release_on_cancel: bool,
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
    /// An election with the three durations given together (and no release on cancel), for
    /// changing several at once: one setter at a time may have to pass through a state that
    /// breaks a rule.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] naming the first rule (see [`Config`]) the durations break.
    ///
    /// # Examples
    /// ```
    /// use std::time::Duration;
    /// use kinformer_leaderelection::{Config, Error};
    ///
    /// let secs = Duration::from_secs;
    /// // Shorter than the default renew deadline (10 s): no single setter could start here.
    /// let config = Config::new(secs(8), secs(6), secs(1))?;
    /// assert_eq!(config.renew_deadline(), secs(6));
    /// let Err(Error::InvalidConfig(rule)) = Config::new(secs(15), secs(10), secs(9)) else {
    ///     panic!()
    /// };
    /// assert_eq!(rule, "renew_deadline must be greater than retry_period * 1.2");
    /// # Ok::<_, Error>(())
    /// ```
    pub fn new(
        lease_duration: Duration,
        renew_deadline: Duration,
        retry_period: Duration,
    ) -> Result<Self> {
        let config = Self {
            lease_duration,
            renew_deadline,
            retry_period,
            release_on_cancel: false,
        };
        config.check()?;
        Ok(config)
    }

    /// Sets how long a non-leader waits before it may take the lease.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] when `lease_duration` breaks a rule with the other durations.
    pub fn with_lease_duration(self, lease_duration: Duration) -> Result<Self> {
        Self::new(lease_duration, self.renew_deadline, self.retry_period)
            .map(|config| config.with_release_on_cancel(self.release_on_cancel))
    }

    /// How long a non-leader waits, from the moment it last saw the lease change (by its own
    /// clock), before it may take the lease. Written to the lease as whole seconds
    /// (`leaseDurationSeconds`). Default 15 s.
    pub fn lease_duration(&self) -> Duration {
        self.lease_duration
    }

    /// Sets how long the leader keeps retrying to renew before it stops leading.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] when `renew_deadline` breaks a rule with the other durations.
    pub fn with_renew_deadline(self, renew_deadline: Duration) -> Result<Self> {
        Self::new(self.lease_duration, renew_deadline, self.retry_period)
            .map(|config| config.with_release_on_cancel(self.release_on_cancel))
    }

    /// How long the leader keeps retrying to renew before it stops leading. Default 10 s.
    pub fn renew_deadline(&self) -> Duration {
        self.renew_deadline
    }

    /// Sets the wait between attempts.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] when `retry_period` breaks a rule with the other durations.
    pub fn with_retry_period(self, retry_period: Duration) -> Result<Self> {
        Self::new(self.lease_duration, self.renew_deadline, retry_period)
            .map(|config| config.with_release_on_cancel(self.release_on_cancel))
    }

    /// The wait between attempts: between renewals, and (jittered by [`JITTER_FACTOR`])
    /// between attempts to acquire. Default 2 s.
    pub fn retry_period(&self) -> Duration {
        self.retry_period
    }

    /// Sets whether the lease is released when `run`'s token is cancelled.
    #[must_use]
    pub fn with_release_on_cancel(mut self, release_on_cancel: bool) -> Self {
        self.release_on_cancel = release_on_cancel;
        self
    }

    /// Whether the lease is released when `run`'s token is cancelled (client-go
    /// `ReleaseOnCancel`): the holder is emptied and `leaseDurationSeconds` set to 1, so another
    /// candidate takes over at its next attempt instead of a lease duration later. Default
    /// `false`.
    pub fn release_on_cancel(&self) -> bool {
        self.release_on_cancel
    }

    /// The rules of [`Config`], in client-go's order, then what the lease can hold.
    fn check(&self) -> Result<()> {
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

    /// The lease duration as the lease stores it (whole seconds; the setters keep it in range).
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

    fn millis(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    #[test]
    fn defaults_are_client_go_and_valid() {
        let c = Config::default();
        assert_eq!(
            (c.lease_duration(), c.renew_deadline(), c.retry_period()),
            (secs(15), secs(10), secs(2))
        );
        assert!(!c.release_on_cancel());
        c.check().unwrap();
        assert_eq!(c.lease_duration_seconds(), 15);
    }

    #[test]
    fn setters_refuse_what_client_go_refuses_and_what_a_lease_cannot_hold() {
        let d = Config::default();
        let cases = [
            (
                d.clone().with_lease_duration(secs(10)),
                "lease_duration must be greater than renew_deadline",
            ),
            (
                d.clone().with_renew_deadline(secs(15)),
                "lease_duration must be greater than renew_deadline",
            ),
            (
                d.clone().with_retry_period(millis(8_334)),
                "renew_deadline must be greater than retry_period * 1.2",
            ),
            (
                d.clone().with_retry_period(Duration::MAX),
                "renew_deadline must be greater than retry_period * 1.2",
            ),
            (
                Config::new(millis(900), millis(800), millis(100)),
                "lease_duration must be at least one second",
            ),
            (
                d.clone().with_lease_duration(Duration::MAX),
                "lease_duration must be at most i32::MAX seconds",
            ),
            (
                d.with_retry_period(Duration::ZERO),
                "retry_period must be greater than zero",
            ),
        ];
        for (refused, rule) in cases {
            match refused {
                Err(Error::InvalidConfig(r)) => assert_eq!(r, rule),
                other => panic!("{rule}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_refused_value_leaves_nothing_behind_and_release_on_cancel_is_kept() {
        let config = Config::default().with_release_on_cancel(true);
        assert!(config.clone().with_lease_duration(secs(5)).is_err());
        let changed = config.with_retry_period(secs(1)).unwrap();
        assert_eq!(changed.retry_period(), secs(1));
        assert!(
            changed.release_on_cancel(),
            "a duration setter keeps the other settings"
        );
    }

    #[test]
    fn setters_accept_what_client_go_accepts() {
        // A lease barely longer than the renew deadline, a retry period just under the bound.
        let tight = Config::default()
            .with_lease_duration(millis(10_001))
            .and_then(|c| c.with_retry_period(millis(8_333)))
            .unwrap();
        assert_eq!(
            (tight.lease_duration(), tight.retry_period()),
            (millis(10_001), millis(8_333))
        );
        let long = Config::default()
            .with_lease_duration(secs(137))
            .and_then(|c| c.with_renew_deadline(secs(107)))
            .and_then(|c| c.with_retry_period(secs(26)))
            .unwrap();
        assert_eq!(long, Config::new(secs(137), secs(107), secs(26)).unwrap());
    }
}
