//! [`RateLimiter`]: how long an item waits before it is retried, and client-go's limiters.

mod bucket;
mod exponential;
mod fast_slow;
mod max_of;
mod max_wait;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

pub use bucket::BucketRateLimiter;
pub use exponential::ItemExponentialRateLimiter;
pub use fast_slow::ItemFastSlowRateLimiter;
pub use max_of::MaxOfRateLimiter;
pub use max_wait::MaxWaitRateLimiter;

/// Decides how long an item waits before it is retried.
///
/// Object safe, so limiters combine as `Box<dyn RateLimiter<T>>`.
///
/// ```
/// use kinformer_workqueue::RateLimiter;
///
/// fn _object_safe(_: &dyn RateLimiter<String>) {}
/// ```
pub trait RateLimiter<T>: fmt::Debug + Send + Sync {
    /// How long `item` should wait now; counts as one more failure of the item.
    fn when(&self, item: &T) -> Duration;

    /// Forgets `item`'s failures (it succeeded, or was given up on).
    fn forget(&self, item: &T);

    /// How many times `item` failed since it was last forgotten.
    fn num_requeues(&self, item: &T) -> usize;
}

/// client-go's `DefaultControllerRateLimiter`: the larger of a per-item exponential backoff
/// (5 ms doubling up to 1000 s) and a shared token bucket (10 per second, burst 100).
///
/// ```
/// use std::time::Duration;
/// use kinformer_workqueue::{RateLimiter, default_controller_rate_limiter};
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap().block_on(async {
/// let limiter = default_controller_rate_limiter::<&str>();
/// assert_eq!(limiter.when(&"a"), Duration::from_millis(5));
/// assert_eq!(limiter.when(&"a"), Duration::from_millis(10));
/// assert_eq!(limiter.num_requeues(&"a"), 2);
/// # });
/// ```
pub fn default_controller_rate_limiter<T>() -> MaxOfRateLimiter<T>
where
    T: Clone + Eq + std::hash::Hash + Send + Sync + 'static,
{
    MaxOfRateLimiter::new(vec![
        Box::new(ItemExponentialRateLimiter::new(
            Duration::from_millis(5),
            Duration::from_secs(1000),
        )),
        Box::new(BucketRateLimiter::new(10.0, 100)),
    ])
}

macro_rules! forward_rate_limiter {
    ($($ptr:ty),*) => {$(
        impl<T, R: RateLimiter<T> + ?Sized> RateLimiter<T> for $ptr {
            fn when(&self, item: &T) -> Duration { (**self).when(item) }
            fn forget(&self, item: &T) { (**self).forget(item) }
            fn num_requeues(&self, item: &T) -> usize { (**self).num_requeues(item) }
        }
    )*};
}

forward_rate_limiter!(&R, Box<R>, Arc<R>);

/// Per-item failure counts, shared by the per-item limiters.
struct Failures<T> {
    counts: std::sync::Mutex<std::collections::HashMap<T, usize>>,
}

impl<T: Clone + Eq + std::hash::Hash> Failures<T> {
    fn new() -> Self {
        Self {
            counts: std::sync::Mutex::new(std::collections::HashMap::new()),
        }
    }

    /// Counts one more failure and returns the count before it.
    fn bump(&self, item: &T) -> usize {
        let mut counts = self.lock();
        let count = counts.entry(item.clone()).or_insert(0);
        let before = *count;
        *count = count.saturating_add(1);
        before
    }

    fn get(&self, item: &T) -> usize {
        self.lock().get(item).copied().unwrap_or(0)
    }

    fn forget(&self, item: &T) {
        self.lock().remove(item);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<T, usize>> {
        // Only counters live here, always consistent between statements.
        self.counts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl<T> fmt::Debug for Failures<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tracked = self
            .counts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len();
        f.debug_struct("Failures")
            .field("tracked", &tracked)
            .finish()
    }
}
