//! [`BucketRateLimiter`]: one token bucket shared by every item.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use super::RateLimiter;

/// A token bucket refilled at `qps` tokens per second, holding at most `burst`; every call takes
/// a token, and waits for it when the bucket is empty (client-go's `BucketRateLimiter`, with
/// golang.org/x/time/rate reservation semantics: waits add up, the bucket goes into debt).
///
/// The bucket starts full. A `qps` that is infinite never waits; one that is zero, negative or
/// NaN serves the burst and then waits [`Duration::MAX`].
///
/// ```
/// use std::time::Duration;
/// use kinformer_workqueue::{BucketRateLimiter, RateLimiter};
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap().block_on(async {
/// let limiter = BucketRateLimiter::new(10.0, 2);
/// assert_eq!(limiter.when(&"a"), Duration::ZERO);
/// assert_eq!(limiter.when(&"b"), Duration::ZERO);
/// assert_eq!(limiter.when(&"c"), Duration::from_millis(100));
/// # });
/// ```
#[derive(Debug)]
pub struct BucketRateLimiter {
    qps: f64,
    burst: f64,
    bucket: Mutex<Bucket>,
}

#[derive(Debug)]
struct Bucket {
    /// Tokens available; negative when waits are already promised.
    tokens: f64,
    /// When `tokens` was last brought up to date; `None` until the first call (full bucket).
    updated: Option<Instant>,
}

impl BucketRateLimiter {
    /// A bucket refilled at `qps` per second holding at most `burst` tokens.
    pub fn new(qps: f64, burst: u32) -> Self {
        Self {
            qps,
            burst: f64::from(burst),
            bucket: Mutex::new(Bucket {
                tokens: f64::from(burst),
                updated: None,
            }),
        }
    }

    fn reserve(&self, now: Instant) -> Duration {
        if self.qps == f64::INFINITY {
            return Duration::ZERO;
        }
        // Plain arithmetic on two floats; the data is consistent between statements.
        let mut bucket = self.bucket.lock().unwrap_or_else(PoisonError::into_inner);
        let refill = bucket.updated.map_or(0.0, |last| {
            now.saturating_duration_since(last).as_secs_f64() * self.qps.max(0.0)
        });
        bucket.tokens = (bucket.tokens + refill).min(self.burst);
        bucket.updated = Some(now);
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Duration::ZERO;
        }
        if self.qps.is_nan() || self.qps <= 0.0 {
            return Duration::MAX;
        }
        bucket.tokens -= 1.0;
        Duration::try_from_secs_f64(-bucket.tokens / self.qps).unwrap_or(Duration::MAX)
    }
}

impl<T> RateLimiter<T> for BucketRateLimiter {
    fn when(&self, _item: &T) -> Duration {
        self.reserve(Instant::now())
    }

    fn forget(&self, _item: &T) {}

    fn num_requeues(&self, _item: &T) -> usize {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn burst_then_one_token_per_interval() {
        let limiter = BucketRateLimiter::new(10.0, 100);
        for i in 0..100 {
            assert_eq!(RateLimiter::<u32>::when(&limiter, &i), Duration::ZERO);
        }
        assert_eq!(limiter.when(&1u32), Duration::from_millis(100));
        assert_eq!(
            limiter.when(&2u32),
            Duration::from_millis(200),
            "waits add up"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(limiter.when(&3u32), Duration::from_millis(100));
        assert_eq!(limiter.num_requeues(&3u32), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn refill_is_capped_at_burst() {
        let limiter = BucketRateLimiter::new(1.0, 2);
        tokio::time::sleep(Duration::from_secs(60)).await;
        assert_eq!(limiter.when(&()), Duration::ZERO);
        assert_eq!(limiter.when(&()), Duration::ZERO);
        assert_eq!(limiter.when(&()), Duration::from_secs(1));
    }

    #[tokio::test(start_paused = true)]
    async fn degenerate_rates() {
        let unlimited = BucketRateLimiter::new(f64::INFINITY, 0);
        assert_eq!(unlimited.when(&()), Duration::ZERO);
        let stopped = BucketRateLimiter::new(0.0, 1);
        assert_eq!(stopped.when(&()), Duration::ZERO);
        assert_eq!(stopped.when(&()), Duration::MAX);
        let nan = BucketRateLimiter::new(f64::NAN, 0);
        assert_eq!(nan.when(&()), Duration::MAX);
    }
}
