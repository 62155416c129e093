//! [`DeltaQueue`]: what the informer needs from the queue between reflector and cache.

use std::future::Future;
use std::sync::Arc;

use kinformer_core::{Delta, Store};

/// What one pop hands out.
#[derive(Debug)]
pub(crate) enum Item<K> {
    /// Changes to one object, oldest first.
    Deltas(Vec<Delta<K>>),
    /// A whole relist to apply in one step; deletions are inferred against the cache.
    ReplacedAll {
        resource_version: String,
        objects: Vec<Arc<K>>,
    },
    /// A resync of everything cached.
    SyncAll,
}

/// A popped item, with whether it belongs to the initial list.
#[derive(Debug)]
pub(crate) struct Popped<K> {
    pub(crate) item: Item<K>,
    /// The queue had not synced yet when this was popped (client-go's `isInInitialList`).
    pub(crate) is_in_initial_list: bool,
}

/// A delta queue: the reflector writes it through [`Store`]; the informer pops from it.
///
/// Implemented by adapters over the queue crates, so the informer's loop does not depend on
/// which queue was chosen. `pop` runs `process` under the queue's lock, so `has_synced` turns
/// true only once the last initial item was fully processed.
pub(crate) trait DeltaQueue<K>: Store<K> + Send + Sync + 'static {
    /// Waits for an item and calls `process` with it; `None` once closed and empty.
    ///
    /// Cancel safe: an item is taken only when `process` runs, within one poll.
    fn pop<R: Send>(
        &self,
        process: impl FnOnce(Popped<K>) -> R + Send,
    ) -> impl Future<Output = Option<R>> + Send;

    /// True once the first full list (or first change) was written and fully popped.
    fn has_synced(&self) -> bool;

    /// Closes the queue: `pop` drains what is left, then returns `None`.
    fn close(&self);
}
