//! The informer's main loop: pop from the queue, update the cache, notify (client-go's
//! `controller.processLoop` with `sharedIndexInformer.HandleDeltas`).

use kinformer_indexer::IndexRead;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use kinformer_core::{Object, StoreRead};
use tokio::runtime::Handle;
use tokio::sync::{Notify, watch};

use super::metrics::Metrics;
use super::process::process_item;
use super::spent::Spent;
use kinformer_deltafifo::{DeltaQueue, Popped};

use super::inner::Inner;

/// Stops the handlers if the loop is dropped mid-way (the run future was cancelled).
struct CloseOnDrop<'a, K: Send + Sync + 'static> {
    inner: &'a Inner<K>,
    armed: bool,
}

impl<K: Send + Sync + 'static> Drop for CloseOnDrop<'_, K> {
    fn drop(&mut self) {
        if self.armed {
            drop(self.inner.processor.close());
            self.inner.synced.mark_stopped();
        }
    }
}

/// The reflector's future, boxed by the caller: held by value, it would sit in this loop's
/// state and in every future that awaits it, several KB per informer for its whole life.
pub(crate) type ReflectorFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// Closes the returns of delivered notifications when dropped.
struct ClosesSpent<K>(Arc<Spent<K>>);

impl<K> Drop for ClosesSpent<K> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Runs until `stop` turns true (or its sender is gone) or the queue closes: the reflector
/// future feeds `queue`; this loop pops, applies, distributes.
///
/// The reflector runs in this task rather than its own, and handler tasks send delivered
/// notifications back here to be dropped: objects are then allocated and freed on one thread
/// (see `SpentSender`). Running the cache update beside the decode bought little: it is about
/// 5% of an event's instructions, the decode over 80%.
///
/// `written` is notified after every write to the queue, so an initial list that leaves
/// nothing to pop (an empty list) still marks the informer synced, without polling.
pub(crate) async fn run_loop<K, Q>(
    inner: Arc<Inner<K>>,
    queue: Arc<Q>,
    written: Arc<Notify>,
    mut reflector: ReflectorFuture,
    mut stop: watch::Receiver<bool>,
    metrics: Option<Arc<dyn Metrics>>,
) where
    K: Object,
    Q: DeltaQueue<K> + Send + Sync + 'static,
{
    let mut guard = CloseOnDrop {
        inner: &inner,
        armed: true,
    };
    let spent = Arc::new(Spent::new());
    inner.processor.return_spent_to(Arc::clone(&spent));
    // Closed however the loop ends, cancelled included: handler tasks then drop what they
    // deliver instead of queueing it for nobody.
    let spent = ClosesSpent(spent);
    if let Some(metrics) = &metrics {
        inner.processor.report_to(Arc::clone(metrics));
    }
    inner.processor.start(Handle::current());
    let mut reflector_running = true;
    let mut synced = false;
    loop {
        tokio::select! {
            biased;
            _ = stop.wait_for(|stop| *stop) => break,
            () = written.notified(), if !synced => {}
            popped = queue.pop(|popped| handle(&inner, popped)) => {
                // The only error is "closed and empty".
                let Ok(latency) = popped else { break };
                if let Some(metrics) = &metrics {
                    // After the pop: the queue's lock is released, so it can be asked.
                    let rv = inner.indexer.last_sync_resource_version();
                    metrics.processed(latency, queue.queued(), inner.indexer.len(), &rv);
                }
            }
            // Each batch's vector goes with it: an idle informer holds no buffer.
            returned = spent.0.take() => drop(returned),
            () = &mut reflector, if reflector_running => reflector_running = false,
        }
        // Checked between items only, so every popped initial item is fully handled.
        if !synced && queue.has_synced() {
            synced = true;
            inner.synced.mark_synced();
        }
    }
    queue.close();
    drop(spent);
    drop(reflector);
    guard.armed = false;
    inner.processor.stop().await;
    inner.synced.mark_stopped();
}

/// Applies one popped item; returns how long that took.
fn handle<K: Object>(inner: &Inner<K>, popped: Popped<K>) -> Duration {
    let started = std::time::Instant::now();
    let _exclusive = inner.lock_deltas();
    if let Err(error) = process_item(popped, &inner.indexer, &inner.processor) {
        // As in client-go: the item is dropped, the loop goes on; a relist repairs the cache.
        tracing::error!(
            error = &error as &dyn std::error::Error,
            "cache update failed"
        );
    }
    started.elapsed()
}

#[cfg(test)]
mod tests;
