//! [`LeaderElector`]: client-go's acquire and renew loops over a [`LeaseLock`].

use std::fmt;
use std::pin::pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use kinformer_core::Random;
use tokio::time::{Instant, sleep, sleep_until, timeout_at};
use tokio_util::sync::CancellationToken;

use crate::callbacks::Callbacks;
use crate::config::{Config, JITTER_FACTOR};
use crate::error::{Error, Result};
use crate::lock::LeaseLock;
use crate::observed::{HolderChange, Observed};

/// One candidate in an election over a lease (client-go `LeaderElector`).
///
/// [`run`](Self::run) tries to acquire the lease every retry period (jittered up to
/// [`JITTER_FACTOR`] more); once it holds it, it calls `on_started_leading` and renews every
/// retry period. If no renewal succeeds before the renew deadline, the leader's token fires
/// and `run` returns, before the lease can expire for any other candidate: they count a lease
/// duration from when they saw the last renewal, which is later than when this candidate sent
/// it. Like client-go's `Run`, `run` returns once leadership is lost; call it again to stand
/// again. Clones share the candidate's state; runs of one elector take turns.
///
/// # Examples
/// Two candidates over one lease; the first leads, steps down when its token is cancelled
/// (releasing the lease), and the second takes over at its next attempt.
/// ```
/// use std::time::Duration;
/// use kinformer_leaderelection::{Callbacks, Config, LeaderElector, MemoryLeaseLock};
/// use tokio_util::sync::CancellationToken;
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)] async fn main() {
/// let lock = MemoryLeaseLock::new("default/example");
/// let config = Config::default().with_release_on_cancel(true);
/// let candidate = |id: &str| {
///     let callbacks = Callbacks::new(|token: CancellationToken| async move {
///         token.cancelled().await; // the leader's work, until leadership ends
///     });
///     LeaderElector::new(lock.clone(), id, config.clone(), callbacks).unwrap()
/// };
/// let (a, b) = (candidate("a"), candidate("b"));
/// let stop_a = CancellationToken::new();
/// let run_a = tokio::spawn({
///     let (a, stop) = (a.clone(), stop_a.clone());
///     async move { a.run(stop).await }
/// });
/// tokio::time::sleep(Duration::from_millis(1)).await;
/// assert!(a.is_leader());
///
/// let run_b = tokio::spawn({
///     let b = b.clone();
///     async move { b.run(CancellationToken::new()).await }
/// });
/// tokio::time::sleep(Duration::from_secs(30)).await;
/// assert!(a.is_leader() && !b.is_leader());
/// assert_eq!(b.leader().as_deref(), Some("a"));
///
/// stop_a.cancel();
/// run_a.await.unwrap();
/// tokio::time::sleep(Duration::from_secs(5)).await;
/// assert!(b.is_leader());
/// assert_eq!(lock.current().unwrap().record.leader_transitions, 1);
/// run_b.abort();
/// # }
/// ```
pub struct LeaderElector<L> {
    pub(crate) inner: Arc<Inner<L>>,
}

pub(crate) struct Inner<L> {
    pub(crate) lock: L,
    pub(crate) identity: String,
    pub(crate) config: Config,
    callbacks: Callbacks,
    /// The longest a leader may believe it leads after sending a renewal that succeeded.
    longest_lead: Duration,
    observed: Mutex<Observed>,
    /// Draws the jitter of the acquire retries.
    random: Mutex<Random>,
    runs: tokio::sync::Mutex<()>,
}

/// Calls `on_stopped_leading` when a run ends, also when its future is dropped.
struct StoppedGuard<'a>(&'a Callbacks);

impl<L: LeaseLock> LeaderElector<L> {
    /// A candidate named `identity` for the lease behind `lock`.
    ///
    /// # Errors
    /// [`Error::EmptyIdentity`] for an empty identity.
    ///
    /// # Examples
    /// ```
    /// use kinformer_leaderelection::{Callbacks, Config, Error, LeaderElector, MemoryLeaseLock};
    ///
    /// let callbacks = || Callbacks::new(|_token| async {});
    /// let lock = MemoryLeaseLock::new("default/example");
    /// let elector = LeaderElector::new(lock.clone(), "pod-a", Config::default(), callbacks())?;
    /// assert_eq!(elector.identity(), "pod-a");
    /// let refused = LeaderElector::new(lock, "", Config::default(), callbacks());
    /// assert!(matches!(refused, Err(Error::EmptyIdentity)));
    /// # Ok::<_, Error>(())
    /// ```
    pub fn new(
        lock: L,
        identity: impl Into<String>,
        config: Config,
        callbacks: Callbacks,
    ) -> Result<Self> {
        let identity = identity.into();
        if identity.is_empty() {
            return Err(Error::EmptyIdentity);
        }
        // client-go's leader gives up a renew deadline after a renew round began, a retry
        // period after its last success returned. Counting from when that renewal was sent
        // keeps a slow answer from stretching leadership; the lease duration caps it, so
        // that a leader stops before others (who count from a later instant) may take over,
        // also when the durations leave no margin.
        let lease_duration = Duration::from_secs(config.lease_duration().as_secs());
        let longest_lead = (config.renew_deadline() + config.retry_period()).min(lease_duration);
        Ok(Self {
            inner: Arc::new(Inner {
                lock,
                identity,
                config,
                callbacks,
                longest_lead,
                observed: Mutex::default(),
                random: Mutex::default(),
                runs: tokio::sync::Mutex::new(()),
            }),
        })
    }

    /// Seeds the jitter of the acquire retries, for reproducible schedules in tests.
    #[must_use]
    pub fn with_jitter_seed(self, seed: u64) -> Self {
        *self
            .inner
            .random
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Random::seeded(seed);
        self
    }

    /// This candidate's identity.
    pub fn identity(&self) -> &str {
        &self.inner.identity
    }

    /// The election's timing.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// Whether the last observed record names this candidate (client-go `IsLeader`).
    ///
    /// Informational, as in client-go: it turns true when this candidate's write lands and
    /// stays true after a missed renew deadline until another record is observed. Gate the
    /// leader's work on the token `on_started_leading` gets, never on this.
    #[doc(alias = "IsLeader")]
    pub fn is_leader(&self) -> bool {
        self.observed().holder() == Some(self.inner.identity.as_str())
    }

    /// The holder in the last observed record (client-go `GetLeader`), `None` before the
    /// first observation or after a release.
    #[doc(alias = "GetLeader")]
    pub fn leader(&self) -> Option<String> {
        self.observed().holder().map(str::to_owned)
    }

    /// Stands for election until leadership is lost or `cancel` fires; see the type's docs.
    /// With [`Config::release_on_cancel`] the lease is released once the leader's work has
    /// returned. Dropping the future stops it too (the leader's token fires, nothing is
    /// released).
    #[doc(alias = "Run")]
    #[doc(alias = "RunOrDie")]
    pub async fn run(&self, cancel: CancellationToken) {
        let _turn = self.inner.runs.lock().await;
        let _stopped = StoppedGuard(&self.inner.callbacks);
        let Some(sent) = self.acquire(&cancel).await else {
            return;
        };
        tracing::info!(lease = %self.inner.lock.describe(), identity = %self.inner.identity, "acquired the lease");
        let leading = cancel.child_token();
        let _end_leading_on_drop = leading.clone().drop_guard();
        let mut work = (self.inner.callbacks.started)(leading.clone());
        let mut renewing = pin!(self.renew(&cancel, sent));
        let mut work_done = false;
        loop {
            tokio::select! {
                () = &mut renewing => break,
                // client-go keeps renewing after OnStartedLeading returns; so does this.
                () = &mut work, if !work_done => work_done = true,
            }
        }
        leading.cancel();
        if !cancel.is_cancelled() {
            tracing::info!(lease = %self.inner.lock.describe(), identity = %self.inner.identity, "failed to renew the lease in time; stopped leading");
        }
        if !work_done {
            work.await;
        }
        if self.inner.config.release_on_cancel() {
            self.release().await;
        }
    }

    /// Attempts until one succeeds (then the local time its write was sent) or `cancel`.
    async fn acquire(&self, cancel: &CancellationToken) -> Option<Instant> {
        let renew_deadline = self.inner.config.renew_deadline();
        loop {
            // A bound client-go leaves to the HTTP client: an attempt stuck on a stalled
            // server must not keep the candidate from retrying.
            let attempt = timeout_at(Instant::now() + renew_deadline, self.try_acquire_or_renew());
            let acquired = tokio::select! {
                () = cancel.cancelled() => return None,
                result = attempt => result.ok().flatten(),
            };
            self.report_transition();
            if let Some(sent) = acquired
                && Instant::now() < self.leadership_deadline(sent)
            {
                return Some(sent);
            }
            tokio::select! {
                () = cancel.cancelled() => return None,
                () = sleep(self.jittered_retry_period()) => {}
            }
        }
    }

    /// Renews every retry period until a renewal misses its deadline or `cancel` fires.
    async fn renew(&self, cancel: &CancellationToken, mut last_sent: Instant) {
        let config = &self.inner.config;
        loop {
            let deadline =
                (Instant::now() + config.renew_deadline()).min(self.leadership_deadline(last_sent));
            if Instant::now() >= deadline {
                // A renewal that returned late, plus the retry period, used it all up.
                return;
            }
            let renewed = tokio::select! {
                () = cancel.cancelled() => return,
                renewed = self.renew_until(deadline) => renewed,
            };
            let Some(sent) = renewed else { return };
            last_sent = sent;
            let next = (Instant::now() + config.retry_period()).min(self.leadership_deadline(sent));
            tokio::select! {
                () = cancel.cancelled() => return,
                () = sleep_until(next) => {}
            }
        }
    }

    /// Attempts now and every retry period until one succeeds or `deadline` passes
    /// (client-go's `PollUntilContextTimeout` in `renew`).
    async fn renew_until(&self, deadline: Instant) -> Option<Instant> {
        loop {
            let renewed = timeout_at(deadline, self.try_acquire_or_renew())
                .await
                .ok()
                .flatten();
            self.report_transition();
            match renewed {
                Some(sent) if Instant::now() < deadline => return Some(sent),
                Some(_) => return None,
                None => {}
            }
            let next = Instant::now() + self.inner.config.retry_period();
            if next >= deadline {
                sleep_until(deadline).await;
                return None;
            }
            sleep_until(next).await;
        }
    }

    /// The latest instant this candidate may believe it leads after a write sent at `sent`.
    fn leadership_deadline(&self, sent: Instant) -> Instant {
        sent + self.inner.longest_lead
    }

    /// Calls `on_new_leader` when the observed holder differs from the last reported one.
    fn report_transition(&self) {
        let changed = self.observed().take_new_holder();
        if let (Some(HolderChange(holder)), Some(on_new_leader)) =
            (changed, &self.inner.callbacks.new_leader)
        {
            on_new_leader(holder.as_deref());
        }
    }

    /// client-go's `wait.Jitter(RetryPeriod, JitterFactor)`.
    fn jittered_retry_period(&self) -> Duration {
        self.inner
            .random
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .jitter(self.inner.config.retry_period(), JITTER_FACTOR)
    }

    pub(crate) fn observed(&self) -> MutexGuard<'_, Observed> {
        // Observed's methods leave it consistent, so a poisoned lock is usable.
        self.inner
            .observed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl<L> Clone for LeaderElector<L> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }
}

impl<L: LeaseLock> fmt::Debug for LeaderElector<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LeaderElector")
            .field("lease", &self.inner.lock.describe())
            .field("identity", &self.inner.identity)
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

impl Drop for StoppedGuard<'_> {
    fn drop(&mut self) {
        if let Some(stopped) = &self.0.stopped {
            stopped();
        }
    }
}

#[cfg(test)]
#[path = "elector_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "stepdown_tests.rs"]
mod stepdown_tests;
