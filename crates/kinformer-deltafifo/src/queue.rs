//! [`DeltaQueue`]: what an informer needs from a delta queue, so it can choose between
//! [`DeltaFifo`](crate::DeltaFifo) and [`RealFifo`](crate::RealFifo).

use std::future::Future;
use std::pin::pin;
use std::sync::{Mutex, MutexGuard, PoisonError};

use kinformer_core::{Cached, Delta, Store};
use tokio::sync::Notify;

use crate::Error;

/// What one `pop` hands out.
///
/// Exhaustive on purpose: a consumer must handle every kind of item, so a new kind is a
/// breaking change that the compiler points out, never an item silently dropped.
#[derive(Debug)]
pub enum PoppedItem<K> {
    /// Changes to one object, oldest first: every pending delta of the key from a
    /// [`DeltaFifo`](crate::DeltaFifo), exactly one from a [`RealFifo`](crate::RealFifo).
    Deltas {
        /// The object's key.
        key: String,
        /// The deltas, never empty.
        deltas: Vec<Delta<K>>,
    },
    /// A whole relist, applied in one step (the atomic [`RealFifo`](crate::RealFifo) only): the
    /// consumer replaces its store with `objects` and infers deletions itself.
    ReplacedAll {
        /// The resourceVersion of the list.
        resource_version: String,
        /// Every listed object (as the store it was admitted to holds it: packed,
        /// for a packing cache).
        objects: Vec<Cached<K>>,
    },
    /// A periodic resync of the whole store (the atomic [`RealFifo`](crate::RealFifo) only): the
    /// consumer re-delivers what its store holds.
    SyncAll,
}

/// A popped item, with whether it belongs to the initial list.
#[derive(Debug)]
#[non_exhaustive]
pub struct Popped<K> {
    /// The item.
    pub item: PoppedItem<K>,
    /// True when the queue had not synced yet at pop time (client-go's `isInInitialList`).
    pub is_in_initial_list: bool,
}

impl<K> Popped<K> {
    /// A popped item; for queues outside this crate (a test double, say).
    pub fn new(item: PoppedItem<K>, is_in_initial_list: bool) -> Self {
        Self {
            item,
            is_in_initial_list,
        }
    }
}

/// A delta queue: the reflector writes into it through [`Store`], one consumer pops.
///
/// `pop` runs its `process` callback while holding the queue's lock, as client-go does: a
/// relist then always sees the consumer's store and the queue in step (no object can be popped
/// but not yet stored while a relist computes its deletions), and [`has_synced`](Self::has_synced)
/// turns true only after the last item of the initial list was processed. `process` should
/// therefore be quick (store the object, hand it to buffered handlers); the writer waits for
/// no more than that.
///
/// # Examples
/// A consumer generic over the queue:
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_core::Store;
/// use kinformer_deltafifo::{DeltaFifo, Error, DeltaQueue, PoppedItem};
///
/// async fn drain<Q: DeltaQueue<ConfigMap>>(queue: &Q) -> usize {
///     let mut deltas = 0;
///     while let Ok(n) = queue
///         .pop(|popped| match popped.item {
///             PoppedItem::Deltas { deltas, .. } => deltas.len(),
///             _ => 0,
///         })
///         .await
///     {
///         deltas += n;
///     }
///     deltas
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let fifo: DeltaFifo<ConfigMap> = DeltaFifo::default();
/// fifo.add(Arc::new(ConfigMap::default()))?;
/// fifo.close();
/// assert_eq!(drain(&fifo).await, 1);
/// assert_eq!(fifo.pop(|_| ()).await, Err(Error::Closed));
/// # Ok::<(), kinformer_core::StoreError>(())
/// # }).unwrap();
/// ```
pub trait DeltaQueue<K>: Store<K> {
    /// Waits for an item, then calls `process` with it under the queue lock and returns its
    /// result.
    ///
    /// # Errors
    /// [`Error::Closed`] once the queue is closed and empty; items queued before `close` are
    /// still handed out.
    ///
    /// `process` must not call back into the same queue: its lock is held (the call would
    /// deadlock).
    ///
    /// # Cancel safety
    /// Cancel safe: an item is taken only when `process` runs, within the same poll.
    fn pop<R, F>(&self, process: F) -> impl Future<Output = Result<R, Error>> + Send
    where
        F: FnOnce(Popped<K>) -> R + Send,
        R: Send;

    /// True once the first relist (or the first add, update or delete) has been fully popped.
    fn has_synced(&self) -> bool;

    /// Resolves once [`has_synced`](Self::has_synced) is true (client-go's
    /// `HasSyncedChecker` done channel).
    ///
    /// # Cancel safety
    /// Cancel safe: it only observes.
    fn synced(&self) -> impl Future<Output = ()> + Send;

    /// Closes the queue: blocked and later `pop`s fail once it is empty.
    fn close(&self);

    /// True after [`close`](Self::close).
    fn is_closed(&self) -> bool;

    /// How many items `pop` would hand out now.
    fn queued(&self) -> usize;
}

/// The lock and wake-up machinery both queues share.
#[derive(Debug)]
pub(crate) struct Shared<S> {
    state: Mutex<S>,
    /// Wakes `pop`s: something was queued, or the queue closed.
    notify: Notify,
    /// Wakes `synced` waiters: an item was processed or the queue became populated.
    progress: Notify,
}

/// A queue state that can hand out its head.
pub(crate) trait TakeHead<K> {
    /// The head item, if any.
    fn take_head(&mut self) -> Option<Popped<K>>;
    /// True once closed.
    fn closed(&self) -> bool;
    /// True once the initial population was processed.
    fn has_synced(&self) -> bool;
}

impl<S> Shared<S> {
    pub(crate) fn new(state: S) -> Self {
        Self {
            state: Mutex::new(state),
            notify: Notify::new(),
            progress: Notify::new(),
        }
    }

    // User code (`process`) never runs between two parts of a state change, so a
    // panic cannot leave the state half-updated and the poison flag can be ignored.
    pub(crate) fn lock(&self) -> MutexGuard<'_, S> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Wakes every waiting `pop` (after an enqueue or a close).
    pub(crate) fn wake(&self) {
        self.notify.notify_waiters();
        self.progress.notify_waiters();
    }

    pub(crate) fn has_synced<K>(&self) -> bool
    where
        S: TakeHead<K>,
    {
        self.lock().has_synced()
    }

    pub(crate) async fn synced<K>(&self)
    where
        S: TakeHead<K>,
    {
        loop {
            let mut progressed = pin!(self.progress.notified());
            progressed.as_mut().enable();
            if self.has_synced() {
                return;
            }
            progressed.await;
        }
    }

    pub(crate) async fn pop<K, R>(&self, process: impl FnOnce(Popped<K>) -> R) -> Result<R, Error>
    where
        S: TakeHead<K>,
    {
        loop {
            // Registered before checking, so a wake between the check and the await is kept.
            let mut notified = pin!(self.notify.notified());
            notified.as_mut().enable();
            {
                let mut state = self.lock();
                if let Some(popped) = state.take_head() {
                    let result = process(popped);
                    drop(state);
                    self.progress.notify_waiters();
                    return Ok(result);
                }
                if state.closed() {
                    return Err(Error::Closed);
                }
            }
            notified.await;
        }
    }
}
