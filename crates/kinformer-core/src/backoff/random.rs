//! [`Random`]: the one source of random draws, and client-go's `wait.Jitter`.

use std::hash::{BuildHasher, RandomState};
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Random draws for jitter (and other spreading, never secrets): a small, fast generator,
/// seeded unpredictably by [`Default`] or reproducibly by [`Random::seeded`] for tests.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use kinformer_core::Random;
///
/// let second = Duration::from_secs(1);
/// let jittered = Random::default().jitter(second, 1.0);
/// assert!(jittered >= second && jittered < second * 2);
/// assert_eq!(Random::seeded(7).next_u64(), Random::seeded(7).next_u64());
/// ```
#[derive(Clone, Debug)]
pub struct Random(SmallRng);

impl Default for Random {
    /// A generator seeded from the process's random hasher keys, which differ per process and
    /// per call.
    fn default() -> Self {
        Self::seeded(RandomState::new().hash_one(0_u8))
    }
}

impl Random {
    /// A generator whose draws follow from `seed` alone, for reproducible tests.
    pub fn seeded(seed: u64) -> Self {
        Self(SmallRng::seed_from_u64(seed))
    }

    /// A draw from `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        self.0.random_range(0.0..1.0)
    }

    /// 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.random()
    }

    /// `delay` lengthened by a random fraction of itself drawn from `[0, max_factor)`
    /// (client-go's `wait.Jitter`, except that a factor of 0 means no jitter, where client-go
    /// reads it as 1). A negative or NaN factor also means none; a result too large for a
    /// `Duration` is `Duration::MAX`.
    #[doc(alias = "Jitter")]
    pub fn jitter(&mut self, delay: Duration, max_factor: f64) -> Duration {
        if max_factor.is_nan() || max_factor <= 0.0 {
            return delay;
        }
        jittered(delay, max_factor, self.unit())
    }
}

/// `delay + delay * max_factor * unit`, saturating.
pub(super) fn jittered(delay: Duration, max_factor: f64, unit: f64) -> Duration {
    let extra = Duration::try_from_secs_f64(max_factor * unit * delay.as_secs_f64())
        .unwrap_or(Duration::MAX);
    delay.saturating_add(extra)
}
