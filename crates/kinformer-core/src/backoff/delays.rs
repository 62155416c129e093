//! [`Delays`]: the running state of a [`Backoff`].

use std::time::{Duration, Instant};

use super::{Backoff, Random};

/// The successive delays of a [`Backoff`] (client-go's `Backoff.Step`, and the reset of
/// `DelayWithReset`).
///
/// The caller keeps the clock: each call takes the current time, so a caller on tokio's
/// paused clock passes `tokio::time::Instant::now().into_std()` and its tests stay
/// deterministic. The jitter is drawn from the caller's [`Random`].
///
/// # Examples
/// ```
/// use std::time::{Duration, Instant};
/// use kinformer_core::{Backoff, Random};
///
/// let backoff = Backoff::constant(Duration::from_secs(1)).with_factor(2.0)?.with_steps(3)?;
/// let mut delays = backoff.delays();
/// let mut random = Random::seeded(1);
/// let now = Instant::now();
/// // Three attempts in all: two delays between them.
/// assert_eq!(delays.next_retry(now, &mut random), Some(Duration::from_secs(1)));
/// assert_eq!(delays.next_retry(now, &mut random), Some(Duration::from_secs(2)));
/// assert_eq!(delays.next_retry(now, &mut random), None);
/// # Ok::<(), kinformer_core::BackoffError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Delays {
    backoff: Backoff,
    /// The next delay before jitter.
    next: Duration,
    /// client-go's `Steps` as it counts down: the attempts left, the one just made included;
    /// `None`: no bound.
    attempts_left: Option<u32>,
    /// When the last delay was handed out.
    last_at: Option<Instant>,
}

impl Delays {
    /// The delays of `backoff`, from the first.
    pub fn new(backoff: Backoff) -> Self {
        Self {
            backoff,
            next: backoff.initial(),
            attempts_left: backoff.steps(),
            last_at: None,
        }
    }

    /// The backoff these delays follow.
    pub fn backoff(&self) -> &Backoff {
        &self.backoff
    }

    /// The next delay (client-go's `Step`: once the steps are used up it keeps answering,
    /// without growing).
    pub fn next(&mut self, now: Instant, random: &mut Random) -> Duration {
        if self.lapsed(now) {
            self.restart();
        }
        self.last_at = Some(now);
        let delay = self.next;
        match self.attempts_left {
            Some(0) => {}
            left => {
                self.attempts_left = left.map(|left| left - 1);
                self.next = self.grow(delay);
            }
        }
        random.jitter(delay, self.backoff.jitter())
    }

    /// The delay before the next attempt of a retry loop, or `None` when the attempt just
    /// made was the last of [`Backoff::steps`] (client-go's `ExponentialBackoff` loop).
    pub fn next_retry(&mut self, now: Instant, random: &mut Random) -> Option<Duration> {
        if self.lapsed(now) {
            self.restart();
        }
        if self.attempts_left.is_some_and(|left| left <= 1) {
            return None;
        }
        Some(self.next(now, random))
    }

    /// Whether the next delay starts over: more than [`Backoff::reset_after`] has passed
    /// since the last one.
    pub fn lapsed(&self, now: Instant) -> bool {
        match (self.last_at, self.backoff.reset_after()) {
            (Some(last), Some(reset_after)) => now.saturating_duration_since(last) > reset_after,
            _ => false,
        }
    }

    /// Starts over at the first delay, with every step.
    pub fn restart(&mut self) {
        self.next = self.backoff.initial();
        self.attempts_left = self.backoff.steps();
        self.last_at = None;
    }

    /// `delay` times the factor, up to the cap. The factor is at least 1 (its setter sees to
    /// it), and a product too large for a `Duration` is the cap, so no setting can panic here.
    fn grow(&self, delay: Duration) -> Duration {
        let cap = self.backoff.cap().unwrap_or(Duration::MAX);
        Duration::try_from_secs_f64(delay.as_secs_f64() * self.backoff.factor())
            .unwrap_or(cap)
            .min(cap)
    }
}
