//! [`DeltaQueue`]: what the informer needs from the queue between reflector and cache.

use std::future::Future;

use kinformer_core::{Delta, Store};

/// One key's deltas (oldest first), as the queue hands them out.
#[derive(Debug)]
pub(crate) struct Popped<K> {
    pub(crate) deltas: Vec<Delta<K>>,
    /// The queue had not yet handed out its whole first list when this was popped.
    pub(crate) is_in_initial_list: bool,
}

/// A delta queue: the reflector writes it through [`Store`]; the informer pops from it.
///
/// Implemented by adapters over the queue crates, so the informer's loop does not depend on
/// which queue was chosen.
pub(crate) trait DeltaQueue<K>: Store<K> + Send + Sync + 'static {
    /// The next key's deltas; `None` once the queue is closed and empty.
    fn pop(&self) -> impl Future<Output = Option<Popped<K>>> + Send + '_;

    /// True once the first full list was written and every item of it popped.
    fn has_synced(&self) -> bool;

    /// Resolves once [`has_synced`](Self::has_synced) is true.
    fn synced(&self) -> impl Future<Output = ()> + Send + '_;

    /// Closes the queue: `pop` drains what is left, then returns `None`.
    fn close(&self);
}
