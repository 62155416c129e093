//! [`RateLimitingQueue`]: a delaying queue whose retries are spaced by a [`RateLimiter`].

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use super::QueueItem;
use super::delaying::DelayingQueue;
use super::queue::QueueConfig;
use super::rate_limiter::{RateLimiter, default_controller_rate_limiter};

/// A [`DelayingQueue`] with rate-limited retries: the usual controller queue.
///
/// [`add_rate_limited`](Self::add_rate_limited) re-adds an item after the limiter's delay (one
/// more failure); [`forget`](Self::forget) clears its failures once it succeeded. Every
/// [`DelayingQueue`] and [`Queue`](super::Queue) method is available through `Deref`.
///
/// # Examples
/// ```
/// use kinformer_workqueue::RateLimitingQueue;
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap().block_on(async {
/// let queue = RateLimitingQueue::new();
/// queue.add("default/web".to_string());
/// while let Some(key) = queue.get().await {
///     let failed = queue.num_requeues(&key) < 2; // pretend the first two attempts fail
///     if failed {
///         queue.add_rate_limited(key.clone());
///     } else {
///         queue.forget(&key);
///         queue.shutdown();
///     }
///     queue.done(&key);
/// }
/// # });
/// ```
#[doc(alias = "RateLimitingInterface")]
pub struct RateLimitingQueue<T> {
    queue: DelayingQueue<T>,
    limiter: Arc<dyn RateLimiter<T>>,
}

impl<T: QueueItem> RateLimitingQueue<T> {
    /// An anonymous queue with client-go's default controller rate limiter
    /// ([`default_controller_rate_limiter`]).
    pub fn new() -> Self {
        Self::with_rate_limiter(default_controller_rate_limiter(), QueueConfig::default())
    }

    /// A queue with the given limiter, name and metrics.
    pub fn with_rate_limiter(limiter: impl RateLimiter<T> + 'static, config: QueueConfig) -> Self {
        Self {
            queue: DelayingQueue::with_config(config),
            limiter: Arc::new(limiter),
        }
    }

    /// Re-adds `item` after the delay its rate limiter decides (counting one more failure).
    pub fn add_rate_limited(&self, item: T) {
        let delay = self.limiter.when(&item);
        self.queue.add_after(item, delay);
    }

    /// Clears `item`'s failure history; call it when the item was processed successfully.
    /// Does not remove the item from the queue.
    pub fn forget(&self, item: &T) {
        self.limiter.forget(item);
    }

    /// How many times `item` was re-added with [`add_rate_limited`](Self::add_rate_limited)
    /// since it was last forgotten.
    pub fn num_requeues(&self, item: &T) -> usize {
        self.limiter.num_requeues(item)
    }
}

impl<T: QueueItem> Default for RateLimitingQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Clone for RateLimitingQueue<T> {
    fn clone(&self) -> Self {
        Self {
            queue: self.queue.clone(),
            limiter: Arc::clone(&self.limiter),
        }
    }
}

impl<T> Deref for RateLimitingQueue<T> {
    type Target = DelayingQueue<T>;

    fn deref(&self) -> &DelayingQueue<T> {
        &self.queue
    }
}

impl<T> fmt::Debug for RateLimitingQueue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RateLimitingQueue")
            .field("queue", &self.queue)
            .field("limiter", &self.limiter)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::time::Instant;

    use super::super::ItemExponentialRateLimiter;
    use super::*;

    fn exponential_queue() -> RateLimitingQueue<&'static str> {
        RateLimitingQueue::with_rate_limiter(
            ItemExponentialRateLimiter::new(Duration::from_millis(5), Duration::from_secs(1000)),
            QueueConfig::default(),
        )
    }

    #[tokio::test(start_paused = true)]
    async fn retries_back_off_and_forget_resets() {
        let queue = exponential_queue();
        let start = Instant::now();
        queue.add_rate_limited("a");
        assert_eq!(queue.len(), 0);
        assert_eq!(queue.get().await, Some("a"));
        assert_eq!(start.elapsed(), Duration::from_millis(5));
        queue.done(&"a");
        queue.add_rate_limited("a");
        assert_eq!(queue.get().await, Some("a"));
        assert_eq!(start.elapsed(), Duration::from_millis(15));
        assert_eq!(queue.num_requeues(&"a"), 2);
        queue.forget(&"a");
        assert_eq!(queue.num_requeues(&"a"), 0);
        queue.done(&"a");
    }

    #[tokio::test(start_paused = true)]
    async fn rate_limited_add_while_processing_waits_for_done() {
        let queue = exponential_queue();
        queue.add("a");
        let a = queue.get().await.unwrap();
        queue.add_rate_limited("a");
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert_eq!(queue.len(), 0, "ready but still processing");
        queue.done(&a);
        assert_eq!(queue.len(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn default_queue_uses_the_controller_limiter() {
        let queue: RateLimitingQueue<u32> = RateLimitingQueue::default();
        queue.add_rate_limited(1);
        assert_eq!(queue.waiting_len(), 1);
        tokio::time::sleep(Duration::from_millis(5)).await;
        assert_eq!(queue.len(), 1);
        assert_eq!(queue.num_requeues(&1), 1);
        assert!(format!("{queue:?}").contains("RateLimitingQueue"));
    }
}
