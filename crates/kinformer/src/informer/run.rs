//! The informer's main loop: pop from the queue, update the cache, notify (client-go's
//! `controller.processLoop` with `sharedIndexInformer.HandleDeltas`).

use std::future::Future;
use std::sync::Arc;

use kinformer_core::Object;
use tokio::runtime::Handle;
use tokio::sync::watch;

use super::process::process_deltas;
use super::queue::{DeltaQueue, Popped};
use super::shared::Inner;

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

/// Runs until `stop` turns true (or its sender is gone) or the queue closes: the reflector
/// future runs on its own task and feeds `queue`; this loop pops, applies, distributes.
pub(crate) async fn run_loop<K, Q>(
    inner: Arc<Inner<K>>,
    queue: Arc<Q>,
    reflector: impl Future<Output = ()> + Send + 'static,
    mut stop: watch::Receiver<bool>,
) where
    K: Object,
    Q: DeltaQueue<K>,
{
    let mut guard = CloseOnDrop {
        inner: &inner,
        armed: true,
    };
    inner.processor.start(Handle::current());
    let reflector = tokio::spawn(reflector);
    let mut synced = false;
    loop {
        tokio::select! {
            biased;
            _ = stop.wait_for(|stop| *stop) => break,
            () = queue.synced(), if !synced => {
                // Only reached between items, so every popped initial item is fully handled.
                synced = true;
                inner.synced.mark_synced();
            }
            popped = queue.pop() => {
                let Some(popped) = popped else { break };
                handle(&inner, popped);
                if !synced && queue.has_synced() {
                    synced = true;
                    inner.synced.mark_synced();
                }
            }
        }
    }
    queue.close();
    reflector.abort();
    // Aborted or finished: either way the reflector is gone.
    drop(reflector.await);
    guard.armed = false;
    inner.processor.stop().await;
    inner.synced.mark_stopped();
}

fn handle<K: Object>(inner: &Inner<K>, popped: Popped<K>) {
    let _exclusive = inner.lock_deltas();
    if let Err(error) = process_deltas(
        popped.deltas,
        popped.is_in_initial_list,
        &inner.indexer,
        &inner.processor,
    ) {
        // As in client-go: the item is dropped, the loop goes on; a relist repairs the cache.
        tracing::error!(
            error = &error as &dyn std::error::Error,
            "cache update failed"
        );
    }
}

#[cfg(test)]
mod tests;
