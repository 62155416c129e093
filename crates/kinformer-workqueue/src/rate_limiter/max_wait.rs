//! [`MaxWaitRateLimiter`]: caps another limiter's wait.

use std::time::Duration;

use super::RateLimiter;

/// Waits what the inner limiter says, but never longer than `max_wait` (client-go's
/// `WithMaxWaitRateLimiter`).
///
/// ```
/// use std::time::Duration;
/// use kinformer_workqueue::{ItemExponentialRateLimiter, MaxWaitRateLimiter, RateLimiter};
///
/// let limiter = MaxWaitRateLimiter::new(
///     ItemExponentialRateLimiter::new(Duration::from_secs(1), Duration::from_secs(1000)),
///     Duration::from_secs(3),
/// );
/// assert_eq!(limiter.when(&"a"), Duration::from_secs(1));
/// assert_eq!(limiter.when(&"a"), Duration::from_secs(2));
/// assert_eq!(limiter.when(&"a"), Duration::from_secs(3));
/// assert_eq!(limiter.num_requeues(&"a"), 3);
/// ```
#[doc(alias = "WithMaxWaitRateLimiter")]
#[derive(Debug)]
pub struct MaxWaitRateLimiter<R> {
    inner: R,
    max_wait: Duration,
}

impl<R> MaxWaitRateLimiter<R> {
    /// Caps `inner` at `max_wait`.
    pub fn new(inner: R, max_wait: Duration) -> Self {
        Self { inner, max_wait }
    }
}

impl<T, R: RateLimiter<T>> RateLimiter<T> for MaxWaitRateLimiter<R> {
    fn when(&self, item: &T) -> Duration {
        self.inner.when(item).min(self.max_wait)
    }

    fn forget(&self, item: &T) {
        self.inner.forget(item);
    }

    fn num_requeues(&self, item: &T) -> usize {
        self.inner.num_requeues(item)
    }
}
