//! [`DeltaFifo`]: client-go's DeltaFIFO, with typed tombstones.

mod config;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use kinformer_core::{Cached, DeletedState, Delta, KeyFunc, Object, Store, StoreError, StoreRead};

pub use self::config::{DeltaFifoConfig, KnownObjects};
use crate::queue::{Shared, TakeHead};
use crate::{DeltaQueue, Error, Popped, PoppedItem};

/// client-go's DeltaFIFO: per-key lists of deltas, and a FIFO of keys in which a key keeps its
/// place while more deltas arrive for it (no line jumping).
///
/// - Only two consecutive deletes are merged (the older kept, unless it is a tombstone).
/// - `delete` of a key neither queued nor known is ignored (a relist already deleted it).
/// - `replace` queues `Replaced` (or `Sync`) for each listed object, then a
///   [`DeletedState::Unknown`] tombstone, with the last known object, for every key queued or
///   known but absent from the list.
/// - `resync` queues `Sync` for known keys without pending deltas.
/// - [`has_synced`](DeltaQueue::has_synced) counts the first relist's keys and deletions.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_core::Store;
/// use kinformer_deltafifo::{DeltaFifo, DeltaQueue, PoppedItem};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let fifo: DeltaFifo<ConfigMap> = DeltaFifo::default();
/// let mut cm = ConfigMap::default();
/// cm.metadata.name = Some("a".into());
/// let cm = Arc::new(cm);
/// fifo.add(cm.clone())?;
/// fifo.update(cm.clone())?;
/// let deltas = fifo
///     .pop(|popped| match popped.item {
///         PoppedItem::Deltas { deltas, .. } => deltas.len(),
///         _ => 0,
///     })
///     .await?;
/// assert_eq!(deltas, 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
#[doc(alias = "DeltaFIFO")]
pub struct DeltaFifo<K> {
    key_func: KeyFunc<K>,
    known_objects: Option<KnownObjects<K>>,
    emit_replaced: bool,
    shared: Shared<State<K>>,
}

struct State<K> {
    /// Every key here has a non-empty list and appears once in `queue`, and vice versa.
    items: HashMap<String, Vec<Delta<K>>>,
    queue: VecDeque<String>,
    populated: bool,
    initial_population_count: usize,
    closed: bool,
}

impl<K: Object> Default for DeltaFifo<K> {
    fn default() -> Self {
        Self::new(DeltaFifoConfig::default())
    }
}

impl<K: Object> DeltaFifo<K> {
    /// An empty queue.
    pub fn new(config: DeltaFifoConfig<K>) -> Self {
        Self {
            key_func: config.key_func,
            known_objects: config.known_objects,
            emit_replaced: config.emit_replaced,
            shared: Shared::new(State {
                items: HashMap::new(),
                queue: VecDeque::new(),
                populated: false,
                initial_population_count: 0,
                closed: false,
            }),
        }
    }

    /// The queued keys, in pop order.
    pub fn queued_keys(&self) -> Vec<String> {
        self.shared.lock().queue.iter().cloned().collect()
    }

    /// The pending deltas of `key` (shared objects, not copies).
    pub fn deltas(&self, key: &str) -> Option<Vec<Delta<K>>> {
        self.shared.lock().items.get(key).cloned()
    }

    /// Adds or updates, with the key computed before the lock is taken.
    fn enqueue_change(&self, obj: Arc<K>, delta: fn(Cached<K>) -> Delta<K>) {
        let key = self.key_func.key(&obj);
        let mut state = self.shared.lock();
        state.populated = true;
        state.push(key, delta(obj.into()));
        drop(state);
        self.shared.wake();
    }
}

impl<K> State<K> {
    /// Appends a delta to `key`'s list, merges two trailing deletes, and queues the key at the
    /// back if it was not queued (a queued key keeps its place).
    fn push(&mut self, key: String, delta: Delta<K>) {
        match self.items.get_mut(&key) {
            Some(deltas) => {
                deltas.push(delta);
                dedup_deletes(deltas);
            }
            None => {
                self.queue.push_back(key.clone());
                self.items.insert(key, vec![delta]);
            }
        }
    }

    fn is_synced(&self) -> bool {
        self.populated && self.initial_population_count == 0
    }
}

/// client-go's `dedupDeltas`: if the last two deltas are both deletes, keep one, the older
/// unless the older is a tombstone.
fn dedup_deletes<K>(deltas: &mut Vec<Delta<K>>) {
    let n = deltas.len();
    if n < 2 {
        return;
    }
    if let (Delta::Deleted(older), Delta::Deleted(_)) = (&deltas[n - 2], &deltas[n - 1]) {
        if older.is_tombstone() {
            deltas.remove(n - 2);
        } else {
            deltas.pop();
        }
    }
}

impl<K> TakeHead<K> for State<K> {
    fn take_head(&mut self) -> Option<Popped<K>> {
        let key = self.queue.pop_front()?;
        let is_in_initial_list = !self.is_synced();
        if self.initial_population_count > 0 {
            self.initial_population_count -= 1;
        }
        // Invariant: a queued key always has its list in `items`; an empty list is skipped.
        let deltas = self.items.remove(&key).unwrap_or_default();
        Some(Popped {
            item: PoppedItem::Deltas { key, deltas },
            is_in_initial_list,
        })
    }

    fn closed(&self) -> bool {
        self.closed
    }

    fn has_synced(&self) -> bool {
        self.is_synced()
    }
}

impl<K: Object> Store<K> for DeltaFifo<K> {
    fn add(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.enqueue_change(obj, Delta::Added);
        Ok(())
    }

    fn update(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.enqueue_change(obj, Delta::Updated);
        Ok(())
    }

    fn delete(&self, obj: Arc<K>) -> Result<(), StoreError> {
        let key = self.key_func.key(&obj);
        let mut state = self.shared.lock();
        state.populated = true;
        // Asked under the queue lock: the consumer stores popped objects under it too, so an
        // object cannot be between the queue and the known store here.
        let known = self
            .known_objects
            .as_ref()
            .is_some_and(|known| known.get_cached(&key).is_some());
        // Neither queued nor known: a relist already deleted it.
        if !known && !state.items.contains_key(&key) {
            drop(state);
            // Nothing queued, but the queue may have just become populated (and so synced).
            self.shared.wake();
            return Ok(());
        }
        state.push(key, Delta::Deleted(DeletedState::Known(obj)));
        drop(state);
        self.shared.wake();
        Ok(())
    }

    /// Listed objects that arrive packed (as a packing cache admitted them) are queued as
    /// they are, under the key their cache gave them.
    fn replace(&self, list: Vec<Arc<K>>, resource_version: &str) -> Result<(), StoreError> {
        self.replace_admitted(Cached::from_objects(list), resource_version)
    }

    fn replace_admitted(
        &self,
        list: Vec<Cached<K>>,
        _resource_version: &str,
    ) -> Result<(), StoreError> {
        let listed: Vec<(String, Cached<K>)> = list
            .into_iter()
            .map(|obj| (obj.key(&self.key_func).into_owned(), obj))
            .collect();
        let delta = if self.emit_replaced {
            Delta::Replaced
        } else {
            Delta::Sync
        };
        let mut state = self.shared.lock();
        let mut keys: HashSet<&str> = HashSet::with_capacity(listed.len());
        for (key, obj) in &listed {
            keys.insert(key);
            state.push(key.clone(), delta(obj.clone()));
        }
        let mut queued_deletions = 0;
        let queued_absent: Vec<(String, Arc<K>)> = state
            .items
            .iter()
            .filter(|(key, _)| !keys.contains(key.as_str()))
            .filter_map(|(key, deltas)| Some((key.clone(), last_state(key, deltas.last()?)?)))
            .collect();
        for (key, last) in queued_absent {
            queued_deletions += 1;
            let tombstone = DeletedState::Unknown {
                key: key.clone(),
                last,
            };
            state.push(key, Delta::Deleted(tombstone));
        }
        if let Some(known) = &self.known_objects {
            for key in known.list_keys() {
                if keys.contains(key.as_str()) || state.items.contains_key(&key) {
                    continue;
                }
                // A key that vanished from the known store meanwhile has no last state to
                // report; client-go queues a nil object, which this type cannot express.
                let Some(last) = known.get_by_key(&key) else {
                    continue;
                };
                queued_deletions += 1;
                let tombstone = DeletedState::Unknown {
                    key: key.clone(),
                    last,
                };
                state.push(key, Delta::Deleted(tombstone));
            }
        }
        if !state.populated {
            state.populated = true;
            state.initial_population_count = keys.len() + queued_deletions;
        }
        drop(state);
        self.shared.wake();
        Ok(())
    }

    /// Queues each known object as its store holds it (packed, for a packing cache): a resync
    /// decodes nothing.
    fn resync(&self) -> Result<(), StoreError> {
        let Some(known) = &self.known_objects else {
            return Ok(());
        };
        let mut state = self.shared.lock();
        let mut queued = false;
        for key in known.list_keys() {
            // Pending deltas are newer than the cached copy: skip, or the resync would
            // overwrite them with older data.
            if state.items.contains_key(&key) {
                continue;
            }
            let Some(obj) = known.get_cached(&key) else {
                continue;
            };
            state.push(key, Delta::Sync(obj));
            queued = true;
        }
        drop(state);
        if queued {
            self.shared.wake();
        }
        Ok(())
    }
}

/// The last state a tombstone carries for `key` after `delta`, decoded. `None` (logged) only
/// when a packed object fails to decode, which a type whose serde round-trips cannot cause.
pub(crate) fn last_state<K: 'static>(key: &str, delta: &Delta<K>) -> Option<Arc<K>> {
    let last = match delta {
        Delta::Deleted(state) => return Some(Arc::clone(state.object())),
        Delta::Added(obj) | Delta::Updated(obj) | Delta::Replaced(obj) | Delta::Sync(obj) => obj,
    };
    last.load()
        .inspect_err(|error| {
            tracing::error!(key, %error, "no tombstone: the queued object failed to decode");
        })
        .ok()
}

impl<K: Object> DeltaQueue<K> for DeltaFifo<K> {
    fn pop<R, F>(&self, process: F) -> impl Future<Output = Result<R, Error>> + Send
    where
        F: FnOnce(Popped<K>) -> R + Send,
        R: Send,
    {
        self.shared.pop(process)
    }

    fn has_synced(&self) -> bool {
        self.shared.has_synced()
    }

    fn synced(&self) -> impl Future<Output = ()> + Send {
        self.shared.synced()
    }

    fn close(&self) {
        self.shared.lock().closed = true;
        self.shared.wake();
    }

    fn is_closed(&self) -> bool {
        self.shared.lock().closed
    }

    fn queued(&self) -> usize {
        self.shared.lock().queue.len()
    }
}

impl<K> fmt::Debug for DeltaFifo<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.shared.lock();
        f.debug_struct("DeltaFifo")
            .field("queued", &state.queue.len())
            .field("populated", &state.populated)
            .field("initial_population_count", &state.initial_population_count)
            .field("closed", &state.closed)
            .finish_non_exhaustive()
    }
}
