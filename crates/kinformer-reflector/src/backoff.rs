//! [`BackoffConfig`] and the shared retry delay: client-go's `wait.Backoff` with `DelayWithReset`.

use std::time::Duration;

use rand::Rng;
use tokio::time::Instant;

/// Exponential backoff with full jitter, shared by relists and re-watches.
///
/// The base delay starts at `initial` and is multiplied by `factor` after every use, until it
/// would exceed `cap`, from where it stays at `cap`. Each delay is drawn uniformly from
/// `[base, 2 * base)`. When more than `reset_after` passes between two delays, the base starts over.
/// With the defaults the delays are `[0.8, 1.6)`, `[1.6, 3.2)`, ..., `[25.6, 51.2)`, then
/// `[30, 60)` s forever.
///
/// Each setting has a `with_` setter and a getter of the same name. The setters are `const`, so
/// a backoff can be a constant.
///
/// ```
/// use std::time::Duration;
/// use kinformer_reflector::BackoffConfig;
///
/// let backoff = BackoffConfig::default();
/// assert_eq!(backoff.initial(), Duration::from_millis(800));
/// assert_eq!(backoff.cap(), Duration::from_secs(30));
///
/// const FAST: BackoffConfig = BackoffConfig::DEFAULT
///     .with_initial(Duration::from_millis(50))
///     .with_cap(Duration::from_millis(400));
/// assert_eq!(FAST.factor(), 2.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BackoffConfig {
    initial: Duration,
    factor: f64,
    cap: Duration,
    reset_after: Duration,
}

impl Default for BackoffConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl BackoffConfig {
    /// client-go's reflector backoff (`Default` gives the same): 800 ms doubling up to 30 s,
    /// reset after two quiet minutes. A constant, to start a constant backoff from.
    pub const DEFAULT: Self = Self {
        initial: Duration::from_millis(800),
        factor: 2.0,
        cap: Duration::from_secs(30),
        reset_after: Duration::from_secs(120),
    };

    /// Sets the first base delay.
    #[must_use]
    pub const fn with_initial(mut self, initial: Duration) -> Self {
        self.initial = initial;
        self
    }

    /// The first base delay.
    pub const fn initial(&self) -> Duration {
        self.initial
    }

    /// Sets the growth of the base delay per step. A factor below 1, or NaN, is stored as 1:
    /// the base delay never shrinks.
    #[must_use]
    pub const fn with_factor(mut self, factor: f64) -> Self {
        // `!(factor >= 1.0)` also catches NaN.
        self.factor = if factor >= 1.0 { factor } else { 1.0 };
        self
    }

    /// The growth of the base delay per step (at least 1).
    pub const fn factor(&self) -> f64 {
        self.factor
    }

    /// Sets the largest base delay.
    #[must_use]
    pub const fn with_cap(mut self, cap: Duration) -> Self {
        self.cap = cap;
        self
    }

    /// The largest base delay.
    pub const fn cap(&self) -> Duration {
        self.cap
    }

    /// Sets the gap between two delays after which the base delay starts over at `initial`.
    #[must_use]
    pub const fn with_reset_after(mut self, reset_after: Duration) -> Self {
        self.reset_after = reset_after;
        self
    }

    /// A gap longer than this between two delays resets the base delay to `initial`.
    pub const fn reset_after(&self) -> Duration {
        self.reset_after
    }
}

/// The running state of a [`BackoffConfig`].
#[derive(Debug)]
pub(crate) struct Backoff {
    config: BackoffConfig,
    base: Duration,
    last_delay_at: Option<Instant>,
}

impl Backoff {
    pub(crate) fn new(config: BackoffConfig) -> Self {
        Self {
            config,
            base: config.initial,
            last_delay_at: None,
        }
    }

    /// The next delay, drawn with `rng`.
    pub(crate) fn next_delay(&mut self, rng: &mut impl Rng) -> Duration {
        let now = Instant::now();
        if self
            .last_delay_at
            .is_some_and(|last| now.duration_since(last) > self.config.reset_after)
        {
            self.base = self.config.initial;
        }
        self.last_delay_at = Some(now);
        let base = self.base;
        // The factor is at least 1 (its setter sees to it), and a product too large for a
        // `Duration` is the cap, so no setting can panic here.
        let grown = Duration::try_from_secs_f64(base.as_secs_f64() * self.config.factor)
            .unwrap_or(self.config.cap);
        self.base = grown.min(self.config.cap);
        base.saturating_add(base.mul_f64(rng.random_range(0.0..1.0)))
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn delays_double_with_full_jitter_up_to_the_cap() {
        let mut rng = StdRng::seed_from_u64(1);
        let mut backoff = Backoff::new(BackoffConfig::default());
        let bases = [0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30.0, 30.0, 30.0, 30.0];
        for base in bases {
            let delay = backoff.next_delay(&mut rng).as_secs_f64();
            assert!(
                delay >= base && delay < 2.0 * base,
                "{delay} not in [{base}, {})",
                2.0 * base
            );
            tokio::time::advance(Duration::from_secs_f64(delay)).await;
        }
    }

    #[tokio::test(start_paused = true)]
    async fn resets_after_two_quiet_minutes() {
        let mut rng = StdRng::seed_from_u64(2);
        let mut backoff = Backoff::new(BackoffConfig::default());
        for _ in 0..5 {
            backoff.next_delay(&mut rng);
        }
        tokio::time::advance(Duration::from_secs(119)).await;
        assert!(backoff.next_delay(&mut rng) >= Duration::from_secs_f64(25.6));
        tokio::time::advance(Duration::from_secs(121)).await;
        assert!(backoff.next_delay(&mut rng) < Duration::from_secs_f64(1.6));
    }

    /// No `BackoffConfig`, however extreme, makes a delay panic, and a factor below 1 (or NaN)
    /// is stored as 1, so the base never shrinks.
    #[tokio::test(start_paused = true)]
    async fn extreme_settings_never_panic() {
        let mut rng = StdRng::seed_from_u64(4);
        let second = Duration::from_secs(1);
        for (factor, cap) in [
            (f64::INFINITY, Duration::MAX),
            (f64::MAX, Duration::MAX),
            (f64::NAN, second),
            (-3.0, second),
            (0.0, Duration::ZERO),
        ] {
            let config = BackoffConfig::default()
                .with_initial(second)
                .with_factor(factor)
                .with_cap(cap)
                .with_reset_after(Duration::MAX);
            if factor.is_nan() || factor < 1.0 {
                assert_eq!(config.factor(), 1.0, "{factor} stored as 1");
            }
            let mut backoff = Backoff::new(config);
            let delays: Vec<Duration> = (0..4).map(|_| backoff.next_delay(&mut rng)).collect();
            assert!(delays[0] >= second && delays[0] < second * 2, "{delays:?}");
            if factor.is_nan() || factor < 1.0 {
                // The base stays put (or drops to a smaller cap): never grows.
                assert!(delays.iter().all(|d| *d < second * 2), "{delays:?}");
            }
        }
    }

    #[test]
    fn same_seed_same_delays() {
        let draw = |seed| {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut backoff = Backoff::new(BackoffConfig::default());
            (0..8)
                .map(|_| backoff.next_delay(&mut rng))
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(9), draw(9));
        assert_ne!(draw(9), draw(10));
    }
}
