//! The informer's shared state ([`Inner`]) and what its pipeline gets when it runs.

use std::error::Error as StdError;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use kinformer_core::Transform;
use kinformer_indexer::{Indexer, ReadOnlyIndexer};
use tokio::sync::watch;

use super::processor::Processor;
use super::sync::SyncSignal;

/// A callback for list and watch failures (client-go's `WatchErrorHandler`).
pub(crate) type WatchErrorFn = Arc<dyn Fn(&(dyn StdError + 'static)) + Send + Sync>;

/// Builds and runs the reflector and queue of one informer; created with the informer, consumed
/// by [`SharedIndexInformer::run`].
pub(crate) type Pipeline<K> =
    Box<dyn FnOnce(RunParts<K>) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send>;

/// What a pipeline gets when the informer runs.
pub(crate) struct RunParts<K> {
    pub(crate) inner: Arc<Inner<K>>,
    pub(crate) transform: Option<Transform<K>>,
    pub(crate) watch_error_handler: Option<WatchErrorFn>,
    pub(crate) stop: watch::Receiver<bool>,
}

/// The informer's shared state.
pub(crate) struct Inner<K> {
    pub(crate) indexer: Arc<Indexer<K>>,
    /// What [`indexer`](crate::SharedIndexInformer::indexer) hands out.
    pub(crate) reader: ReadOnlyIndexer<K>,
    pub(crate) processor: Processor<K>,
    pub(crate) synced: SyncSignal,
    /// Held while a popped item is applied and distributed, and while a late handler reads the
    /// cache, so a late handler misses no change and sees none twice.
    pub(crate) deltas: Mutex<()>,
    /// The reflector's last synced resourceVersion, once running.
    pub(crate) resource_version: Mutex<Option<Box<dyn Fn() -> String + Send + Sync>>>,
    pub(crate) setup: Mutex<Setup<K>>,
    pub(crate) default_resync: Duration,
    pub(crate) resource: Arc<str>,
    pub(crate) stop: watch::Sender<bool>,
}

pub(crate) struct Setup<K> {
    pub(crate) pipeline: Option<Pipeline<K>>,
    pub(crate) transform: Option<Transform<K>>,
    pub(crate) watch_error_handler: Option<WatchErrorFn>,
    pub(crate) started: bool,
}

impl<K> Inner<K> {
    pub(crate) fn lock_deltas(&self) -> MutexGuard<'_, ()> {
        // Guards no data, only exclusion.
        self.deltas.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Where [`SharedIndexInformer::last_sync_resource_version`] reads from, once running.
    pub(crate) fn set_resource_version_source(
        &self,
        source: Box<dyn Fn() -> String + Send + Sync>,
    ) {
        *self
            .resource_version
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(source);
    }

    pub(crate) fn setup(&self) -> MutexGuard<'_, Setup<K>> {
        // Plain options; each section leaves them consistent.
        self.setup.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Marks the informer stopped however its pipeline ends: returned, cancelled, or panicked
/// before its loop started (the loop marks it itself, but a pipeline may fail before that), so
/// `wait_for_cache_sync` never waits for an informer that is gone.
pub(crate) struct StopOnExit<'a, K: Send + Sync + 'static>(pub(crate) &'a Inner<K>);

impl<K: Send + Sync + 'static> Drop for StopOnExit<'_, K> {
    fn drop(&mut self) {
        drop(self.0.processor.close());
        self.0.synced.mark_stopped();
    }
}
