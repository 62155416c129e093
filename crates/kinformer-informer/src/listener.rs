//! A listener: one handler's unbounded ordered buffer and the task that drains it
//! (client-go's `processorListener`).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use kinformer_core::Cached;
use tokio::runtime::{Handle, RuntimeFlavor};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::handler::EventHandler;
use super::metrics::Metrics;
use super::notification::Notification;
use super::registration::ListenerShared;
use super::spent::Spent;

/// Where a handler task returns each notification it has delivered, to be dropped on the
/// informer's task (see [`Spent`]).
pub(crate) type SpentSender<K> = Arc<Spent<K>>;

/// What a listener's buffer holds: one notification, or an add of each of many objects.
///
/// A list stored into an empty cache (the initial list) and a late handler's initial list are
/// one entry each: one per object would hold a channel slot for each until the handler caught
/// up, memory that is freed again just as the sync ends and that nothing reuses.
enum Buffered<K> {
    One(Notification<K>),
    Listed {
        objects: Arc<Vec<Cached<K>>>,
        initial: bool,
    },
}

/// A listener's buffer and handler, kept until its task is spawned.
type Unstarted<K> = (
    mpsc::UnboundedReceiver<Buffered<K>>,
    Arc<dyn EventHandler<K>>,
);

/// The processor's record of one handler.
pub(crate) struct Listener<K> {
    pub(crate) shared: Arc<ListenerShared>,
    tx: mpsc::UnboundedSender<Buffered<K>>,
    /// The receiver and handler until the task is spawned (the processor has not started yet).
    unstarted: Option<Unstarted<K>>,
    task: Option<JoinHandle<()>>,
    /// The resync period the handler asked for (after the 1 s minimum).
    pub(crate) requested_resync: Duration,
    /// The period in effect, given the informer's resync check period.
    pub(crate) resync: Duration,
    next_resync: Instant,
    /// Due for resync in the current round: receives updates whose resourceVersion is unchanged.
    pub(crate) syncing: bool,
}

impl<K: Send + Sync + 'static> Listener<K> {
    pub(crate) fn new(
        shared: Arc<ListenerShared>,
        handler: Arc<dyn EventHandler<K>>,
        requested_resync: Duration,
        resync: Duration,
    ) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        Self {
            shared,
            tx,
            unstarted: Some((rx, handler)),
            task: None,
            requested_resync,
            resync,
            next_resync: Instant::now() + resync,
            syncing: false,
        }
    }

    /// Puts a notification in the buffer; never blocks.
    pub(crate) fn push(&self, notification: Notification<K>) {
        let initial = notification.is_initial_add();
        self.buffer(Buffered::One(notification), initial, 1);
    }

    /// Puts an add of each of `objects`, in order, in the buffer as one entry; never blocks.
    pub(crate) fn push_listed(&self, objects: Arc<Vec<Cached<K>>>, initial: bool) {
        let calls = objects.len();
        if calls > 0 {
            self.buffer(Buffered::Listed { objects, initial }, initial, calls);
        }
    }

    fn buffer(&self, buffered: Buffered<K>, initial: bool, calls: usize) {
        self.shared.enqueued(initial, calls);
        if self.tx.send(buffered).is_err() {
            // The task is gone (removed listener): nothing will handle it.
            self.shared.handled(initial, calls);
        }
    }

    /// Spawns the handler task on `runtime`, once; it sends delivered notifications to
    /// `spent` if given, and counts notifications it could not deliver in `metrics`.
    pub(crate) fn start(
        &mut self,
        runtime: &Handle,
        spent: Option<SpentSender<K>>,
        metrics: Option<Arc<dyn Metrics>>,
    ) {
        if let Some((rx, handler)) = self.unstarted.take() {
            let out = Outlets {
                shared: Arc::clone(&self.shared),
                spent,
                metrics,
            };
            self.task = Some(runtime.spawn(run(rx, handler, out)));
        }
    }

    /// Marks this listener due for resync if its time has come, and schedules the next round.
    pub(crate) fn check_resync(&mut self, now: Instant) -> bool {
        self.syncing = !self.resync.is_zero() && now >= self.next_resync;
        if self.syncing {
            self.next_resync = now + self.resync;
        }
        self.syncing
    }

    /// Stops delivering: buffered notifications are dropped; returns the task to await, if any.
    pub(crate) fn stop(self) -> Option<JoinHandle<()>> {
        self.shared.mark_removed();
        drop(self.tx);
        self.task
    }
}

/// A handler call this long, with more than [`SLOW_HANDLER_BACKLOG`] notifications waiting, is
/// logged (client-go's thresholds).
const SLOW_HANDLER: Duration = Duration::from_millis(100);
const SLOW_HANDLER_BACKLOG: usize = 1024;

/// A handler call this long marks the handler as blocking: its later calls run where blocking
/// is allowed, so it cannot hold up a runtime worker and the tasks queued behind it.
const BLOCKING_HANDLER: Duration = Duration::from_millis(5);
/// Notifications taken from the buffer at once.
pub(crate) const BATCH: usize = 64;

/// Drains the buffer into the handler until the listener is removed or the informer stops.
///
/// Handlers are synchronous. One that blocks (slow I/O, a lock) would stall the runtime worker
/// it runs on, and with it the tasks queued there; once a call took [`BLOCKING_HANDLER`], this
/// handler's batches run under `block_in_place` on a multi-threaded runtime, which hands the
/// worker's queue to another thread first. Fast handlers never pay for that hand-off.
///
/// A listed batch is delivered [`BATCH`] adds at a time, with a chance for other tasks to run
/// between them, as single notifications are.
async fn run<K: 'static>(
    mut rx: mpsc::UnboundedReceiver<Buffered<K>>,
    handler: Arc<dyn EventHandler<K>>,
    out: Outlets<K>,
) {
    let can_block = Handle::current().runtime_flavor() == RuntimeFlavor::MultiThread;
    let mut blocking = false;
    let mut received = Vec::with_capacity(BATCH);
    let mut batch = Vec::with_capacity(BATCH);
    let mut deliver_batch = |batch: &mut Vec<Notification<K>>, spent: bool| {
        let outcome = if blocking && can_block {
            tokio::task::block_in_place(|| deliver(batch, &*handler, &out, spent))
        } else {
            deliver(batch, &*handler, &out, spent)
        };
        blocking |= outcome.slowest >= BLOCKING_HANDLER;
        outcome.removed
    };
    while rx.recv_many(&mut received, BATCH).await > 0 {
        for buffered in received.drain(..) {
            let (objects, initial) = match buffered {
                Buffered::One(notification) => {
                    batch.push(notification);
                    continue;
                }
                Buffered::Listed { objects, initial } => (objects, initial),
            };
            if deliver_batch(&mut batch, true) {
                return;
            }
            for chunk in objects.chunks(BATCH) {
                let adds = chunk.iter().map(|obj| Notification::Add {
                    obj: obj.clone(),
                    initial,
                });
                batch.extend(adds);
                // The adds share the listed objects, which the cache holds: nothing to return.
                if deliver_batch(&mut batch, false) {
                    return;
                }
                tokio::task::consume_budget().await;
            }
        }
        if deliver_batch(&mut batch, true) {
            return;
        }
    }
}

/// Where a handler task reports: its registration's counters, where spent notifications go,
/// and the informer's metrics.
struct Outlets<K> {
    shared: Arc<ListenerShared>,
    spent: Option<SpentSender<K>>,
    metrics: Option<Arc<dyn Metrics>>,
}

/// What delivering a batch found.
struct Delivered {
    removed: bool,
    slowest: Duration,
}

/// Delivers `batch`, returning each delivered notification to the informer's task when
/// `return_spent`.
fn deliver<K: 'static>(
    batch: &mut Vec<Notification<K>>,
    handler: &dyn EventHandler<K>,
    out: &Outlets<K>,
    return_spent: bool,
) -> Delivered {
    let shared = &*out.shared;
    let mut slowest = Duration::ZERO;
    for notification in batch.drain(..) {
        if shared.is_removed() {
            return Delivered {
                removed: true,
                slowest,
            };
        }
        let initial = notification.is_initial_add();
        let started = Instant::now();
        // A panicking handler loses this notification only; the informer and the other
        // handlers go on (client-go's behaviour when crashing on panics is turned off).
        let delivered = catch_unwind(AssertUnwindSafe(|| {
            if let Err(error) = notification.deliver(handler) {
                undeliverable(&error, handler, out);
            }
        }));
        if delivered.is_err() {
            tracing::error!(
                handler = shared.id,
                "event handler panicked; the notification was skipped"
            );
        }
        let took = started.elapsed();
        shared.called(took);
        slowest = slowest.max(took);
        let pending = shared.pending();
        if took > SLOW_HANDLER && pending > SLOW_HANDLER_BACKLOG {
            tracing::warn!(
                handler = shared.id,
                ?took,
                pending,
                "slow event handler: its notifications are piling up"
            );
        }
        shared.handled(initial, 1);
        if let Some(spent) = out.spent.as_ref().filter(|_| return_spent) {
            // Once the informer's task is gone, this task drops it after all.
            spent.send(notification);
        }
    }
    Delivered {
        removed: false,
        slowest,
    }
}

/// A notification whose object failed to decode: logged, counted, and handed to the handler as
/// the error in place of the call (a relist would bring back the same bytes, so nothing else
/// would ever tell it).
fn undeliverable<K: 'static>(
    error: &crate::Error,
    handler: &dyn EventHandler<K>,
    out: &Outlets<K>,
) {
    tracing::error!(
        handler = out.shared.id,
        error = error as &dyn std::error::Error,
        "a notification could not be delivered; the handler gets the error instead"
    );
    if let Some(metrics) = &out.metrics {
        metrics.decode_failed();
    }
    handler.on_decode_error(error);
}
