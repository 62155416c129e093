//! [`Queue`]: client-go's basic work queue (dirty and processing sets), async on tokio.

use std::fmt;
use std::pin::pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use super::lanes::{DEFAULT_LOW_PRIORITY_WAIT, Priority};
use super::metrics::{NoQueueMetrics, QueueMetrics};
use super::state::State;
use super::{Error, QueueItem};

/// Options of a work queue: a name (for logs and metrics) and a metrics sink. `Default` is an
/// anonymous queue without metrics; each setting has a `with_` setter and a getter of the same
/// name.
///
/// ```
/// use std::sync::Arc;
/// use kinformer_workqueue::{NoQueueMetrics, Queue, QueueConfig};
///
/// let config = QueueConfig::default()
///     .with_name("configmaps")
///     .with_metrics(Arc::new(NoQueueMetrics));
/// assert_eq!(config.name(), "configmaps");
/// let queue: Queue<String> = Queue::with_config(config);
/// assert_eq!(queue.name(), "configmaps");
/// ```
#[derive(Clone, Debug)]
pub struct QueueConfig {
    name: String,
    metrics: Arc<dyn QueueMetrics>,
    low_priority_wait: Duration,
}

impl Default for QueueConfig {
    fn default() -> Self {
        Self {
            name: String::new(),
            metrics: Arc::new(NoQueueMetrics),
            low_priority_wait: DEFAULT_LOW_PRIORITY_WAIT,
        }
    }
}

impl QueueConfig {
    /// Sets the queue's name.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The queue's name; empty for an anonymous queue.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Sets where measurements go.
    #[must_use]
    pub fn with_metrics(mut self, metrics: Arc<dyn QueueMetrics>) -> Self {
        self.metrics = metrics;
        self
    }

    /// Where measurements go ([`NoQueueMetrics`] by default).
    pub fn metrics(&self) -> &Arc<dyn QueueMetrics> {
        &self.metrics
    }

    /// Sets [`low_priority_wait`](Self::low_priority_wait).
    ///
    /// # Errors
    /// A wait over [`MAX_DELAY`](crate::MAX_DELAY) (a year: "never").
    pub fn with_low_priority_wait(mut self, wait: Duration) -> Result<Self, Error> {
        if wait > crate::MAX_DELAY {
            return Err(Error::LowPriorityWait(wait));
        }
        self.low_priority_wait = wait;
        Ok(self)
    }

    /// How much later than it became ready a [`Priority::Low`] item is handed out: it waits
    /// behind normal items, but never behind one that became ready more than this after it
    /// (default [`DEFAULT_LOW_PRIORITY_WAIT`], 30 s; zero: no priorities).
    pub fn low_priority_wait(&self) -> Duration {
        self.low_priority_wait
    }
}

/// A work queue: items are deduplicated while they wait, and an item is never handed to two
/// workers at once.
///
/// - [`add`](Self::add) marks an item dirty; a dirty item is queued once however often it is added.
/// - [`get`](Self::get) hands out the oldest ready item and marks it processing.
/// - An item added again while processing is handed out again only after [`done`](Self::done).
/// - After [`shutdown`](Self::shutdown), adds are ignored, queued items are still handed out, and
///   `get` returns `None` once the queue is empty.
///
/// Cloning gives another handle to the same queue.
///
/// # Examples
/// ```
/// use kinformer_workqueue::Queue;
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let queue = Queue::new();
/// queue.add("default/web");
/// queue.add("default/web"); // deduplicated
/// assert_eq!(queue.len(), 1);
///
/// let key = queue.get().await.unwrap();
/// // ... reconcile `key` ...
/// queue.done(&key);
///
/// queue.shutdown();
/// assert_eq!(queue.get().await, None);
/// # });
/// ```
#[doc(alias = "Interface")]
pub struct Queue<T> {
    shared: Arc<Shared<T>>,
}

struct Shared<T> {
    name: String,
    state: Mutex<State<T>>,
    /// Wakes one `get` per item that became ready; all of them on shutdown.
    ready: Notify,
    /// Wakes a draining shutdown when processing may have ended.
    drained: Notify,
}

impl<T: QueueItem> Queue<T> {
    /// An anonymous queue without metrics.
    pub fn new() -> Self {
        Self::with_config(QueueConfig::default())
    }

    /// A queue with the given name and metrics.
    pub fn with_config(config: QueueConfig) -> Self {
        Self {
            shared: Arc::new(Shared {
                name: config.name,
                state: Mutex::new(State::new(config.metrics, config.low_priority_wait)),
                ready: Notify::new(),
                drained: Notify::new(),
            }),
        }
    }

    /// The queue's name.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// Marks `item` as needing processing. Ignored after shutdown; a no-op when the item is
    /// already waiting to be processed (at [`Priority::Normal`]; a low-priority one is raised).
    pub fn add(&self, item: T) {
        self.add_with_priority(item, Priority::Normal);
    }

    /// [`add`](Self::add) at `priority`: an item already waiting keeps the higher of its
    /// priorities. See [`Priority`] for the order items are handed out in.
    ///
    /// ```
    /// use kinformer_workqueue::{Priority, Queue};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let queue = Queue::new();
    /// queue.add_with_priority("listed", Priority::Low);
    /// queue.add("edited");
    /// assert_eq!(queue.get().await, Some("edited"));
    /// assert_eq!(queue.get().await, Some("listed"));
    /// # });
    /// ```
    pub fn add_with_priority(&self, item: T, priority: Priority) {
        let became_ready = self.lock().add(item, priority, Instant::now());
        if became_ready {
            self.shared.ready.notify_one();
        }
    }

    /// How many items are ready to be handed out (items being processed are not counted).
    pub fn len(&self) -> usize {
        let mut state = self.lock();
        state.promote(Instant::now());
        state.len()
    }

    /// True when no item is ready.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Waits for the next item and marks it processing; `None` once the queue is shut down and
    /// empty. The caller must call [`done`](Self::done) with the item when finished.
    ///
    /// # Cancel safety
    /// Cancel safe: an item is taken from the queue only in the same poll that returns it.
    pub async fn get(&self) -> Option<T> {
        loop {
            let mut notified = pin!(self.shared.ready.notified());
            // Registered before the state is read, so an add in between is not missed.
            notified.as_mut().enable();
            let next_ready_at = {
                let mut state = self.lock();
                let now = Instant::now();
                state.promote(now);
                if let Some(item) = state.take(now) {
                    return Some(item);
                }
                if state.is_shutting_down() {
                    return None;
                }
                state.next_ready_at()
            };
            match next_ready_at {
                // The deadline passing is as good as a wake-up: the loop promotes and re-checks.
                Some(at) => drop(tokio::time::timeout_at(at, notified).await),
                None => notified.await,
            }
        }
    }

    /// Marks `item` finished. If it was added again while processing, it is queued again (also
    /// during shutdown).
    pub fn done(&self, item: &T) {
        let (requeued, drained) = {
            let mut state = self.lock();
            let requeued = state.done(item, Instant::now());
            (requeued, state.is_drained())
        };
        if requeued {
            self.shared.ready.notify_one();
        }
        if drained {
            self.shared.drained.notify_waiters();
        }
    }

    /// Stops accepting items and wakes every waiting [`get`](Self::get); returns at once.
    /// Overrides a pending [`shutdown_with_drain`](Self::shutdown_with_drain).
    pub fn shutdown(&self) {
        self.lock().shut_down(false);
        self.shared.ready.notify_waiters();
        self.shared.drained.notify_waiters();
    }

    /// Stops accepting items, then waits until no item is processing (every handed-out item
    /// was reported [`done`](Self::done)), or until [`shutdown`](Self::shutdown) is called.
    ///
    /// Like client-go, it waits for items being processed, not for items still queued: workers
    /// keep receiving those until the queue is empty.
    ///
    /// # Cancel safety
    /// Cancel safe: the queue is shut down on the first poll; dropping only stops the waiting.
    pub async fn shutdown_with_drain(&self) {
        self.lock().shut_down(true);
        self.shared.ready.notify_waiters();
        loop {
            let mut notified = pin!(self.shared.drained.notified());
            notified.as_mut().enable();
            if self.lock().is_drained() {
                return;
            }
            notified.await;
        }
    }

    /// True once [`shutdown`](Self::shutdown) or [`shutdown_with_drain`](Self::shutdown_with_drain)
    /// was called.
    pub fn is_shutting_down(&self) -> bool {
        self.lock().is_shutting_down()
    }

    /// How long the items now processing have been held, summed, and the longest of them
    /// (client-go's `unfinished_work_seconds` and `longest_running_processor_seconds`).
    pub fn unfinished_work(&self) -> (Duration, Duration) {
        self.lock().unfinished_work(Instant::now())
    }

    /// Holds `item` back until `ready_at` (the delaying queue's entry point).
    pub(super) fn add_at(&self, item: T, ready_at: Instant) {
        let wake = self.lock().add_at(item, ready_at, Instant::now());
        if wake {
            self.shared.ready.notify_one();
        }
    }

    /// How many items are held back by [`add_at`](Self::add_at).
    pub(super) fn waiting_len(&self) -> usize {
        self.lock().waiting_len()
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // The state is only changed by short non-panicking sections (metrics hooks aside), so a
        // poisoned lock still guards consistent data.
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T: QueueItem> Default for Queue<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Clone for Queue<T> {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<T> fmt::Debug for Queue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Queue")
            .field("name", &self.shared.name)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests;
