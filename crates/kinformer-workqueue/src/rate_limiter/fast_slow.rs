//! [`ItemFastSlowRateLimiter`]: a few quick retries, then slow ones.

use std::fmt;
use std::hash::Hash;
use std::time::Duration;

use super::{Failures, RateLimiter};

/// Waits `fast` for an item's first `max_fast` failures, then `slow` (client-go's
/// `ItemFastSlowRateLimiter`).
///
/// ```
/// use std::time::Duration;
/// use kinformer_workqueue::{ItemFastSlowRateLimiter, RateLimiter};
///
/// let limiter = ItemFastSlowRateLimiter::new(Duration::from_millis(5), Duration::from_secs(10), 2);
/// assert_eq!(limiter.when(&"a"), Duration::from_millis(5));
/// assert_eq!(limiter.when(&"a"), Duration::from_millis(5));
/// assert_eq!(limiter.when(&"a"), Duration::from_secs(10));
/// ```
pub struct ItemFastSlowRateLimiter<T> {
    fast: Duration,
    slow: Duration,
    max_fast: usize,
    failures: Failures<T>,
}

impl<T: Clone + Eq + Hash> ItemFastSlowRateLimiter<T> {
    /// A limiter giving `max_fast` retries after `fast`, then retries after `slow`.
    pub fn new(fast: Duration, slow: Duration, max_fast: usize) -> Self {
        Self {
            fast,
            slow,
            max_fast,
            failures: Failures::new(),
        }
    }
}

impl<T> fmt::Debug for ItemFastSlowRateLimiter<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ItemFastSlowRateLimiter")
            .field("fast", &self.fast)
            .field("slow", &self.slow)
            .field("max_fast", &self.max_fast)
            .field("failures", &self.failures)
            .finish()
    }
}

impl<T: Clone + Eq + Hash + Send + Sync> RateLimiter<T> for ItemFastSlowRateLimiter<T> {
    fn when(&self, item: &T) -> Duration {
        if self.failures.bump(item) < self.max_fast {
            self.fast
        } else {
            self.slow
        }
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
    fn switches_to_slow_after_max_fast_per_item() {
        let fast = Duration::from_millis(5);
        let slow = Duration::from_secs(10);
        let limiter = ItemFastSlowRateLimiter::new(fast, slow, 3);
        let a: Vec<_> = (0..5).map(|_| limiter.when(&"a")).collect();
        assert_eq!(a, [fast, fast, fast, slow, slow]);
        assert_eq!(limiter.when(&"b"), fast);
        assert_eq!(limiter.num_requeues(&"a"), 5);
        limiter.forget(&"a");
        assert_eq!(limiter.num_requeues(&"a"), 0);
        assert_eq!(limiter.when(&"a"), fast);
    }
}
