//! [`ItemExponentialRateLimiter`]: per-item exponential backoff.

use std::fmt;
use std::hash::Hash;
use std::time::Duration;

use super::{Failures, RateLimiter};

/// Waits `base * 2^failures` for an item, capped at `max`; failures are counted per item
/// (client-go's `ItemExponentialFailureRateLimiter`).
///
/// ```
/// use std::time::Duration;
/// use kinformer_workqueue::{ItemExponentialRateLimiter, RateLimiter};
///
/// let limiter = ItemExponentialRateLimiter::new(Duration::from_millis(5), Duration::from_secs(1000));
/// assert_eq!(limiter.when(&"a"), Duration::from_millis(5));
/// assert_eq!(limiter.when(&"a"), Duration::from_millis(10));
/// assert_eq!(limiter.when(&"b"), Duration::from_millis(5));
/// limiter.forget(&"a");
/// assert_eq!(limiter.when(&"a"), Duration::from_millis(5));
/// ```
#[doc(alias = "ItemExponentialFailureRateLimiter")]
pub struct ItemExponentialRateLimiter<T> {
    base: Duration,
    max: Duration,
    failures: Failures<T>,
}

impl<T: Clone + Eq + Hash> ItemExponentialRateLimiter<T> {
    /// A limiter starting at `base` and doubling up to `max`.
    pub fn new(base: Duration, max: Duration) -> Self {
        Self {
            base,
            max,
            failures: Failures::new(),
        }
    }
}

impl<T> fmt::Debug for ItemExponentialRateLimiter<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ItemExponentialRateLimiter")
            .field("base", &self.base)
            .field("max", &self.max)
            .field("failures", &self.failures)
            .finish()
    }
}

impl<T: Clone + Eq + Hash + Send + Sync> RateLimiter<T> for ItemExponentialRateLimiter<T> {
    fn when(&self, item: &T) -> Duration {
        let exp = self.failures.bump(item);
        // Overflow of the factor or of the product means "more than max".
        u32::try_from(exp)
            .ok()
            .and_then(|exp| 2u32.checked_pow(exp))
            .and_then(|factor| self.base.checked_mul(factor))
            .map_or(self.max, |delay| delay.min(self.max))
    }

    fn forget(&self, item: &T) {
        self.failures.forget(item);
    }

    fn num_requeues(&self, item: &T) -> usize {
        self.failures.get(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_per_item_until_the_cap() {
        let limiter =
            ItemExponentialRateLimiter::new(Duration::from_millis(5), Duration::from_secs(1000));
        let delays: Vec<_> = (0..20).map(|_| limiter.when(&"a")).collect();
        assert_eq!(delays[0], Duration::from_millis(5));
        assert_eq!(delays[1], Duration::from_millis(10));
        assert_eq!(delays[10], Duration::from_millis(5 * 1024));
        assert_eq!(delays[18], Duration::from_secs(1000), "capped");
        assert_eq!(limiter.num_requeues(&"a"), 20);
        assert_eq!(limiter.num_requeues(&"b"), 0);
    }

    #[test]
    fn never_overflows() {
        let limiter = ItemExponentialRateLimiter::new(Duration::from_secs(1), Duration::MAX);
        let last = (0..100).map(|_| limiter.when(&1)).last();
        assert_eq!(last, Some(Duration::MAX));
    }

    #[test]
    fn forget_resets_only_that_item() {
        let limiter =
            ItemExponentialRateLimiter::new(Duration::from_millis(1), Duration::from_secs(1));
        limiter.when(&"a");
        limiter.when(&"a");
        limiter.when(&"b");
        limiter.forget(&"a");
        assert_eq!(limiter.num_requeues(&"a"), 0);
        assert_eq!(limiter.num_requeues(&"b"), 1);
        assert_eq!(limiter.when(&"a"), Duration::from_millis(1));
    }
}
