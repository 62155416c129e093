//! [`Backoff`]: client-go's `wait.Backoff` settings, the named backoffs client-go uses, the
//! successive delays ([`Delays`]), the one jitter rule and the one source of randomness
//! ([`Random`]) that every retry loop in kinformer draws from.

mod delays;
mod random;
#[cfg(test)]
mod tests;

use std::time::Duration;

pub use delays::Delays;
pub use random::Random;

/// How a retry loop waits between attempts (client-go `wait.Backoff`, with the reset of
/// `DelayWithReset`).
///
/// The first delay is [`initial`](Self::initial); each next one is the previous times
/// [`factor`](Self::factor), up to [`cap`](Self::cap). Each delay is lengthened at random by up
/// to [`jitter`](Self::jitter) times itself (client-go's `wait.Jitter`): a jitter of 1 draws
/// from `[d, 2d)`. [`steps`](Self::steps) bounds the attempts of a retry loop, and a gap longer
/// than [`reset_after`](Self::reset_after) between two delays starts the delays over. The
/// delays themselves come from [`Delays`], made by [`Backoff::delays`].
///
/// Each setting has a `with_` setter and a getter of the same name. The setters are `const`,
/// so a backoff can be a constant; the two that can be given a value no backoff can use
/// (a factor below 1 or NaN, a negative or NaN jitter, zero steps) return a [`BackoffError`].
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use kinformer_core::{Backoff, BackoffError};
///
/// assert_eq!(Backoff::REFLECTOR.initial(), Duration::from_millis(800));
/// assert_eq!(Backoff::REFLECTOR.cap(), Some(Duration::from_secs(30)));
///
/// const FAST: Backoff = Backoff::REFLECTOR
///     .with_initial(Duration::from_millis(50))
///     .with_cap(Duration::from_millis(400));
/// assert_eq!(FAST.factor(), 2.0);
///
/// let refused = Backoff::constant(Duration::from_secs(1)).with_factor(0.5);
/// assert_eq!(refused, Err(BackoffError::Factor));
/// ```
#[doc(alias = "wait.Backoff")]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backoff {
    initial: Duration,
    factor: f64,
    jitter: f64,
    cap: Option<Duration>,
    steps: Option<u32>,
    reset_after: Option<Duration>,
}

/// A [`Backoff`] setting that no backoff can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BackoffError {
    /// The factor is below 1 or NaN: the delays would shrink, or be undefined.
    #[error("backoff factor must be at least 1")]
    Factor,
    /// The jitter is negative, infinite or NaN.
    #[error("backoff jitter must be a finite number, at least 0")]
    Jitter,
    /// Zero steps: a retry loop would not even make its first attempt.
    #[error("backoff steps must be at least 1")]
    Steps,
}

impl Backoff {
    /// client-go's reflector backoff: 800 ms doubling up to 30 s, each delay drawn from
    /// `[d, 2d)`, starting over after two quiet minutes. The delays are `[0.8, 1.6)`,
    /// `[1.6, 3.2)`, ..., `[25.6, 51.2)`, then `[30, 60)` s forever.
    pub const REFLECTOR: Self = Self::constant(Duration::from_millis(800))
        .grown(2.0)
        .with_cap(Duration::from_secs(30))
        .jittered(1.0)
        .with_reset_after(Duration::from_secs(120));

    /// client-go's `retry.DefaultRetry`: 5 attempts, 10 ms apart, each wait up to 10% longer.
    #[doc(alias = "DefaultRetry")]
    pub const DEFAULT_RETRY: Self = Self::constant(Duration::from_millis(10))
        .jittered(0.1)
        .stepped(5);

    /// client-go's `retry.DefaultBackoff`: 4 attempts, 10 ms, then 50 ms, then 250 ms apart,
    /// each wait up to 10% longer.
    #[doc(alias = "DefaultBackoff")]
    pub const DEFAULT_BACKOFF: Self = Self::constant(Duration::from_millis(10))
        .grown(5.0)
        .jittered(0.1)
        .stepped(4);

    /// client-go's event recorder (`tools/events`): 12 attempts, 10 s apart, each wait up to
    /// 25% longer.
    pub const EVENT_RECORDING: Self = Self::constant(Duration::from_secs(10))
        .jittered(0.25)
        .stepped(12);

    /// client-go's leader election between attempts to acquire: the 2 s retry period, each
    /// wait up to 120% longer (its `JitterFactor`, 1.2).
    pub const LEADER_ELECTION: Self = Self::constant(Duration::from_secs(2)).jittered(1.2);

    /// `delay` between all attempts: no growth, no jitter, no cap, unbounded steps, no reset.
    ///
    /// ```
    /// use std::time::Duration;
    /// use kinformer_core::Backoff;
    ///
    /// let backoff = Backoff::constant(Duration::from_secs(1));
    /// assert_eq!((backoff.factor(), backoff.jitter(), backoff.steps()), (1.0, 0.0, None));
    /// ```
    pub const fn constant(delay: Duration) -> Self {
        Self {
            initial: delay,
            factor: 1.0,
            jitter: 0.0,
            cap: None,
            steps: None,
            reset_after: None,
        }
    }

    /// Sets [`initial`](Self::initial).
    #[must_use]
    pub const fn with_initial(mut self, initial: Duration) -> Self {
        self.initial = initial;
        self
    }

    /// The first delay.
    pub const fn initial(&self) -> Duration {
        self.initial
    }

    /// Sets [`factor`](Self::factor).
    ///
    /// # Errors
    /// [`BackoffError::Factor`] for a factor below 1 or NaN.
    pub const fn with_factor(mut self, factor: f64) -> Result<Self, BackoffError> {
        if factor.is_nan() || factor < 1.0 {
            return Err(BackoffError::Factor);
        }
        self.factor = factor;
        Ok(self)
    }

    /// Each delay is the previous one times this (at least 1; infinity jumps to the cap).
    pub const fn factor(&self) -> f64 {
        self.factor
    }

    /// Sets [`jitter`](Self::jitter).
    ///
    /// # Errors
    /// [`BackoffError::Jitter`] for a negative, infinite or NaN jitter.
    pub const fn with_jitter(mut self, jitter: f64) -> Result<Self, BackoffError> {
        if !(jitter >= 0.0 && jitter.is_finite()) {
            return Err(BackoffError::Jitter);
        }
        self.jitter = jitter;
        Ok(self)
    }

    /// Each delay is lengthened at random by up to this fraction of itself (client-go's
    /// `wait.Jitter` factor); 0 for none.
    pub const fn jitter(&self) -> f64 {
        self.jitter
    }

    /// Sets [`cap`](Self::cap).
    #[must_use]
    pub const fn with_cap(mut self, cap: Duration) -> Self {
        self.cap = Some(cap);
        self
    }

    /// The largest delay before jitter, once growth reaches it (the first delay is
    /// [`initial`](Self::initial) whatever the cap); `None`: no cap.
    pub const fn cap(&self) -> Option<Duration> {
        self.cap
    }

    /// Sets [`steps`](Self::steps).
    ///
    /// # Errors
    /// [`BackoffError::Steps`] for zero.
    pub const fn with_steps(mut self, steps: u32) -> Result<Self, BackoffError> {
        if steps == 0 {
            return Err(BackoffError::Steps);
        }
        self.steps = Some(steps);
        Ok(self)
    }

    /// How many attempts a retry loop makes in all ([`Delays::next_retry`] gives one delay
    /// fewer); `None`: no bound.
    pub const fn steps(&self) -> Option<u32> {
        self.steps
    }

    /// Sets [`reset_after`](Self::reset_after).
    #[must_use]
    pub const fn with_reset_after(mut self, reset_after: Duration) -> Self {
        self.reset_after = Some(reset_after);
        self
    }

    /// A gap longer than this between two delays starts the delays over at
    /// [`initial`](Self::initial) (client-go's `DelayWithReset`); `None`: never.
    pub const fn reset_after(&self) -> Option<Duration> {
        self.reset_after
    }

    /// The successive delays of this backoff, from the first.
    pub fn delays(self) -> Delays {
        Delays::new(self)
    }

    /// The presets' growth: their factors are at least 1, so no check is needed.
    const fn grown(mut self, factor: f64) -> Self {
        self.factor = factor;
        self
    }

    /// The presets' jitter: finite and positive, so no check is needed.
    const fn jittered(mut self, jitter: f64) -> Self {
        self.jitter = jitter;
        self
    }

    /// The presets' steps: at least 1, so no check is needed.
    const fn stepped(mut self, steps: u32) -> Self {
        self.steps = Some(steps);
        self
    }
}
