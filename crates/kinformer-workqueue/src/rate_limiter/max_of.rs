//! [`MaxOfRateLimiter`]: the strictest of several limiters.

use std::fmt;
use std::time::Duration;

use super::RateLimiter;

/// Asks every limiter and waits the longest; requeues are the largest count; `forget` reaches
/// all (client-go's `MaxOfRateLimiter`).
///
/// ```
/// use std::time::Duration;
/// use kinformer_workqueue::{ItemFastSlowRateLimiter, MaxOfRateLimiter, RateLimiter};
///
/// let limiter = MaxOfRateLimiter::new(vec![
///     Box::new(ItemFastSlowRateLimiter::new(Duration::from_millis(1), Duration::from_secs(1), 1)),
///     Box::new(ItemFastSlowRateLimiter::new(Duration::from_millis(2), Duration::from_secs(1), 3)),
/// ]);
/// assert_eq!(limiter.when(&"a"), Duration::from_millis(2));
/// assert_eq!(limiter.when(&"a"), Duration::from_secs(1));
/// ```
pub struct MaxOfRateLimiter<T> {
    limiters: Vec<Box<dyn RateLimiter<T>>>,
}

impl<T> MaxOfRateLimiter<T> {
    /// The maximum of `limiters` (none: never waits).
    pub fn new(limiters: Vec<Box<dyn RateLimiter<T>>>) -> Self {
        Self { limiters }
    }
}

impl<T> fmt::Debug for MaxOfRateLimiter<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MaxOfRateLimiter")
            .field("limiters", &self.limiters)
            .finish()
    }
}

impl<T> RateLimiter<T> for MaxOfRateLimiter<T> {
    fn when(&self, item: &T) -> Duration {
        // Every limiter is asked, so each one counts the failure.
        self.limiters
            .iter()
            .map(|l| l.when(item))
            .fold(Duration::ZERO, Duration::max)
    }

    fn forget(&self, item: &T) {
        for l in &self.limiters {
            l.forget(item);
        }
    }

    fn num_requeues(&self, item: &T) -> usize {
        self.limiters
            .iter()
            .map(|l| l.num_requeues(item))
            .max()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BucketRateLimiter, ItemExponentialRateLimiter, ItemFastSlowRateLimiter};
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn default_controller_limiter_is_max_of_exponential_and_bucket() {
        let limiter = super::super::default_controller_rate_limiter::<u32>();
        // Item 0 backs off exponentially while the shared bucket still has tokens.
        assert_eq!(limiter.when(&0), Duration::from_millis(5));
        assert_eq!(limiter.when(&0), Duration::from_millis(10));
        // 98 more distinct items drain the bucket's burst of 100 without bucket delay.
        for i in 1..99 {
            assert_eq!(limiter.when(&i), Duration::from_millis(5));
        }
        // The bucket is empty now: its 100 ms wait beats a first failure's 5 ms.
        assert_eq!(limiter.when(&1000), Duration::from_millis(100));
    }

    #[test]
    fn max_of_requeues_and_forget_all() {
        let limiter: MaxOfRateLimiter<&str> = MaxOfRateLimiter::new(vec![
            Box::new(ItemExponentialRateLimiter::new(
                Duration::from_millis(1),
                Duration::from_secs(1),
            )),
            Box::new(ItemFastSlowRateLimiter::new(
                Duration::from_millis(1),
                Duration::from_secs(5),
                1,
            )),
        ]);
        assert_eq!(limiter.when(&"a"), Duration::from_millis(1));
        assert_eq!(limiter.when(&"a"), Duration::from_secs(5));
        assert_eq!(limiter.num_requeues(&"a"), 2);
        limiter.forget(&"a");
        assert_eq!(limiter.num_requeues(&"a"), 0);
        assert_eq!(limiter.when(&"a"), Duration::from_millis(1));
    }

    #[tokio::test(start_paused = true)]
    async fn empty_and_bucket_only() {
        let none: MaxOfRateLimiter<()> = MaxOfRateLimiter::new(Vec::new());
        assert_eq!(none.when(&()), Duration::ZERO);
        assert_eq!(none.num_requeues(&()), 0);
        let bucket: MaxOfRateLimiter<()> =
            MaxOfRateLimiter::new(vec![Box::new(BucketRateLimiter::new(1.0, 1))]);
        assert_eq!(bucket.when(&()), Duration::ZERO);
        assert_eq!(bucket.when(&()), Duration::from_secs(1));
    }
}
