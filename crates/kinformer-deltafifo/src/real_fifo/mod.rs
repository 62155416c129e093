//! [`RealFifo`]: newer client-go's in-order queue, with its atomic mode.

mod config;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use kinformer_core::{Cached, DeletedState, Delta, KeyFunc, Object, Store, StoreError};

pub use self::config::RealFifoConfig;
use crate::delta_fifo::last_state;
use crate::queue::{Shared, TakeHead};
use crate::{DeltaQueue, Error, KnownObjects, Popped, PoppedItem};

/// Newer client-go's `RealFIFO`: every event is kept, in arrival order, and popped alone, so
/// handlers see the exact history (a key may be queued many times).
///
/// - In-order mode: a relist first queues tombstones for keys queued (and not already
///   deleted) or known but absent from the list, then `Replaced` for each listed object; a
///   resync queues `Sync` for known keys with nothing queued.
/// - Atomic mode: a relist is one [`PoppedItem::ReplacedAll`], a resync one
///   [`PoppedItem::SyncAll`].
/// - `has_synced` counts the queue length at the first relist (duplicates included).
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_core::Store;
/// use kinformer_deltafifo::{DeltaQueue, PoppedItem, RealFifo, RealFifoConfig};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let fifo: RealFifo<ConfigMap> = RealFifo::new(RealFifoConfig::default().with_atomic(true));
/// fifo.replace(vec![Arc::new(ConfigMap::default())], "7")?;
/// let listed = fifo
///     .pop(|popped| match popped.item {
///         PoppedItem::ReplacedAll { objects, .. } => objects.len(),
///         _ => 0,
///     })
///     .await?;
/// assert_eq!(listed, 1);
/// assert!(fifo.has_synced());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
#[doc(alias = "RealFIFO")]
pub struct RealFifo<K> {
    key_func: KeyFunc<K>,
    known_objects: Option<KnownObjects<K>>,
    atomic: bool,
    shared: Shared<State<K>>,
}

enum Entry<K> {
    Delta {
        key: String,
        delta: Delta<K>,
    },
    ReplacedAll {
        resource_version: String,
        objects: Vec<Cached<K>>,
    },
    SyncAll,
}

struct State<K> {
    items: VecDeque<Entry<K>>,
    populated: bool,
    initial_population_count: usize,
    closed: bool,
}

impl<K> State<K> {
    fn is_synced(&self) -> bool {
        self.populated && self.initial_population_count == 0
    }

    fn push(&mut self, key: String, delta: Delta<K>) {
        self.items.push_back(Entry::Delta { key, delta });
    }

    /// The last queued delta of every queued key, in order of first appearance.
    fn last_queued(&self) -> (Vec<&str>, HashMap<&str, &Delta<K>>) {
        let mut order = Vec::new();
        let mut last: HashMap<&str, &Delta<K>> = HashMap::new();
        for entry in &self.items {
            if let Entry::Delta { key, delta } = entry
                && last.insert(key, delta).is_none()
            {
                order.push(key.as_str());
            }
        }
        (order, last)
    }

    fn mark_initial_population(&mut self) {
        if !self.populated {
            self.populated = true;
            self.initial_population_count = self.items.len();
        }
    }
}

impl<K: Object> RealFifo<K> {
    /// An empty queue.
    pub fn new(config: RealFifoConfig<K>) -> Self {
        Self {
            key_func: config.key_func,
            known_objects: config.known_objects,
            atomic: config.atomic,
            shared: Shared::new(State {
                items: VecDeque::new(),
                populated: false,
                initial_population_count: 0,
                closed: false,
            }),
        }
    }

    fn enqueue(&self, obj: Arc<K>, delta: fn(Arc<K>) -> Delta<K>) {
        let key = self.key_func.key(&obj);
        let mut state = self.shared.lock();
        state.populated = true;
        state.push(key, delta(obj));
        drop(state);
        self.shared.wake();
    }

    fn tombstones(&self, state: &State<K>, listed: &HashSet<&str>) -> Vec<(String, Arc<K>)> {
        let (order, last) = state.last_queued();
        let mut tombstones: Vec<(String, Arc<K>)> = order
            .iter()
            .filter(|key| !listed.contains(**key))
            .filter_map(|key| {
                let delta = last.get(key)?;
                if delta.is_deleted() {
                    return None;
                }
                Some(((*key).to_owned(), last_state(key, delta)?))
            })
            .collect();
        if let Some(known) = &self.known_objects {
            for key in known.list_keys() {
                if listed.contains(key.as_str()) || last.contains_key(key.as_str()) {
                    continue;
                }
                // Vanished from the known store meanwhile: there is no last state to report.
                if let Some(obj) = known.get_by_key(&key) {
                    tombstones.push((key, obj));
                }
            }
        }
        tombstones
    }
}

impl<K> TakeHead<K> for State<K> {
    fn take_head(&mut self) -> Option<Popped<K>> {
        let entry = self.items.pop_front()?;
        let is_in_initial_list = !self.is_synced();
        if self.initial_population_count > 0 {
            self.initial_population_count -= 1;
        }
        let item = match entry {
            Entry::Delta { key, delta } => PoppedItem::Deltas {
                key,
                deltas: vec![delta],
            },
            Entry::ReplacedAll {
                resource_version,
                objects,
            } => PoppedItem::ReplacedAll {
                resource_version,
                objects,
            },
            Entry::SyncAll => PoppedItem::SyncAll,
        };
        Some(Popped {
            item,
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

impl<K: Object> Store<K> for RealFifo<K> {
    fn add(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.enqueue(obj, |obj| Delta::Added(obj.into()));
        Ok(())
    }

    fn update(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.enqueue(obj, |obj| Delta::Updated(obj.into()));
        Ok(())
    }

    fn delete(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.enqueue(obj, |obj| Delta::Deleted(DeletedState::Known(obj)));
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
        resource_version: &str,
    ) -> Result<(), StoreError> {
        if self.atomic {
            let mut state = self.shared.lock();
            state.items.push_back(Entry::ReplacedAll {
                resource_version: resource_version.to_owned(),
                objects: list,
            });
            state.mark_initial_population();
            drop(state);
            self.shared.wake();
            return Ok(());
        }
        let listed: Vec<(String, Cached<K>)> = list
            .into_iter()
            .map(|obj| (obj.key(&self.key_func).into_owned(), obj))
            .collect();
        let keys: HashSet<&str> = listed.iter().map(|(key, _)| key.as_str()).collect();
        let mut state = self.shared.lock();
        for (key, last) in self.tombstones(&state, &keys) {
            let tombstone = DeletedState::Unknown {
                key: key.clone(),
                last,
            };
            state.push(key, Delta::Deleted(tombstone));
        }
        for (key, obj) in &listed {
            state.push(key.clone(), Delta::Replaced(obj.clone()));
        }
        state.mark_initial_population();
        drop(state);
        self.shared.wake();
        Ok(())
    }

    fn resync(&self) -> Result<(), StoreError> {
        let mut state = self.shared.lock();
        if self.atomic {
            state.items.push_back(Entry::SyncAll);
        } else {
            let Some(known) = &self.known_objects else {
                return Ok(());
            };
            let queued: HashSet<String> = state
                .last_queued()
                .0
                .into_iter()
                .map(str::to_owned)
                .collect();
            // As the known store holds them (packed, for a packing cache): nothing decoded.
            for key in known.list_keys() {
                if queued.contains(&key) {
                    continue;
                }
                if let Some(obj) = known.get_cached(&key) {
                    state.push(key, Delta::Sync(obj));
                }
            }
        }
        drop(state);
        self.shared.wake();
        Ok(())
    }
}

impl<K: Object> DeltaQueue<K> for RealFifo<K> {
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
        self.shared.lock().items.len()
    }
}

impl<K> fmt::Debug for RealFifo<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.shared.lock();
        f.debug_struct("RealFifo")
            .field("atomic", &self.atomic)
            .field("queued", &state.items.len())
            .field("populated", &state.populated)
            .field("initial_population_count", &state.initial_population_count)
            .field("closed", &state.closed)
            .finish_non_exhaustive()
    }
}
