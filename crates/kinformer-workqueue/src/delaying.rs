//! [`DelayingQueue`]: a work queue that can hold items back for a while.

use std::fmt;
use std::ops::Deref;
use std::time::Duration;

use tokio::time::Instant;

use super::QueueItem;
use super::queue::{Queue, QueueConfig};

/// The longest delay [`DelayingQueue::add_after`] honours; longer delays are shortened to it.
pub const MAX_DELAY: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// A [`Queue`] with [`add_after`](Self::add_after): the item is added once the delay has passed.
///
/// If the item is already held back, the earlier ready time wins: a later `add_after` never
/// postpones it. Held-back items are dropped on shutdown. Every [`Queue`] method is available
/// through `Deref`.
///
/// Held-back items become ready lazily, whenever the queue is read (`get`, `len`); a waiting
/// `get` sleeps exactly until the earliest ready time, so no background task is needed.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use kinformer_workqueue::DelayingQueue;
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap().block_on(async {
/// let queue = DelayingQueue::new();
/// queue.add_after("default/web", Duration::from_secs(5));
/// assert_eq!(queue.len(), 0);
/// let start = tokio::time::Instant::now();
/// assert_eq!(queue.get().await, Some("default/web"));
/// assert_eq!(start.elapsed(), Duration::from_secs(5));
/// # });
/// ```
pub struct DelayingQueue<T> {
    queue: Queue<T>,
}

impl<T: QueueItem> DelayingQueue<T> {
    /// An anonymous delaying queue without metrics.
    pub fn new() -> Self {
        Self::with_config(QueueConfig::default())
    }

    /// A delaying queue with the given name and metrics.
    pub fn with_config(config: QueueConfig) -> Self {
        Self {
            queue: Queue::with_config(config),
        }
    }

    /// Adds `item` after `delay` (at once when `delay` is zero). Ignored after shutdown.
    /// Counts as a retry in the metrics.
    pub fn add_after(&self, item: T, delay: Duration) {
        // Capped so the ready time never overflows; a year is "never" for a work queue.
        let ready_at = Instant::now() + delay.min(MAX_DELAY);
        self.queue.add_at(item, ready_at);
    }

    /// How many items are held back, not yet ready.
    pub fn waiting_len(&self) -> usize {
        self.queue.waiting_len()
    }
}

impl<T: QueueItem> Default for DelayingQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Clone for DelayingQueue<T> {
    fn clone(&self) -> Self {
        Self {
            queue: self.queue.clone(),
        }
    }
}

impl<T> fmt::Debug for DelayingQueue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DelayingQueue")
            .field("queue", &self.queue)
            .finish()
    }
}

impl<T> Deref for DelayingQueue<T> {
    type Target = Queue<T>;

    fn deref(&self) -> &Queue<T> {
        &self.queue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn settle() {
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test(start_paused = true)]
    async fn item_becomes_ready_after_its_delay() {
        let queue = DelayingQueue::new();
        queue.add_after("a", Duration::from_millis(50));
        assert_eq!(queue.len(), 0);
        assert_eq!(queue.waiting_len(), 1);
        tokio::time::sleep(Duration::from_millis(49)).await;
        assert_eq!(queue.len(), 0);
        tokio::time::sleep(Duration::from_millis(1)).await;
        assert_eq!(queue.len(), 1);
        assert_eq!(queue.waiting_len(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn zero_delay_adds_at_once() {
        let queue = DelayingQueue::new();
        queue.add_after(1, Duration::ZERO);
        assert_eq!(queue.len(), 1);
        assert_eq!(queue.waiting_len(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn earlier_time_wins() {
        let queue = DelayingQueue::new();
        let start = Instant::now();
        queue.add_after("a", Duration::from_secs(10));
        queue.add_after("a", Duration::from_secs(2));
        queue.add_after("a", Duration::from_secs(30));
        assert_eq!(queue.waiting_len(), 1);
        assert_eq!(queue.get().await, Some("a"));
        assert_eq!(start.elapsed(), Duration::from_secs(2));
        queue.done(&"a");
        tokio::time::sleep(Duration::from_secs(60)).await;
        assert_eq!(queue.len(), 0, "the later times were dropped, not kept");
    }

    #[tokio::test(start_paused = true)]
    async fn items_come_out_in_ready_time_order() {
        let queue = DelayingQueue::new();
        queue.add_after("slow", Duration::from_secs(3));
        queue.add_after("fast", Duration::from_secs(1));
        queue.add_after("mid", Duration::from_secs(2));
        let mut order = Vec::new();
        for _ in 0..3 {
            let item = queue.get().await.unwrap();
            queue.done(&item);
            order.push(item);
        }
        assert_eq!(order, ["fast", "mid", "slow"]);
    }

    #[tokio::test(start_paused = true)]
    async fn waiting_get_wakes_for_an_earlier_item() {
        let queue = DelayingQueue::new();
        queue.add_after("late", Duration::from_secs(100));
        let start = Instant::now();
        let getter = tokio::spawn({
            let queue = queue.clone();
            async move { queue.get().await }
        });
        settle().await;
        queue.add_after("early", Duration::from_secs(1));
        assert_eq!(getter.await.unwrap(), Some("early"));
        assert_eq!(start.elapsed(), Duration::from_secs(1));
    }

    #[tokio::test(start_paused = true)]
    async fn shutdown_drops_held_back_items() {
        let queue = DelayingQueue::new();
        queue.add_after(1, Duration::from_secs(1));
        queue.shutdown();
        queue.add_after(2, Duration::ZERO);
        assert_eq!(queue.waiting_len(), 0);
        assert_eq!(queue.get().await, None);
    }

    #[tokio::test(start_paused = true)]
    async fn huge_delay_does_not_overflow() {
        let queue = DelayingQueue::new();
        queue.add_after(1, Duration::MAX);
        assert_eq!(queue.waiting_len(), 1);
        assert_eq!(queue.len(), 0);
    }
}
