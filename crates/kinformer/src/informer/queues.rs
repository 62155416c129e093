//! The queue choice: the delta queue crate's `DeltaFifo` and `RealFifo` behind the informer's
//! [`DeltaQueue`].

use std::sync::Arc;

use kinformer_core::{Object, Store, StoreError};
use kinformer_deltafifo::{
    Config as FifoConfig, DeltaFifo, Queue, QueueItem, RealFifo, RealFifoConfig,
};
use kinformer_indexer::Indexer;

use super::config::QueueKind;
use super::queue::{DeltaQueue, Item, Popped};

/// The queue an informer was configured with.
pub(crate) enum AnyQueue<K> {
    DeltaFifo(DeltaFifo<K>),
    InOrder(RealFifo<K>),
}

impl<K: Object> AnyQueue<K> {
    /// The queue of `kind`, with the informer's cache as its known objects.
    ///
    /// The in-order queue runs in its atomic mode (client-go 1.36's default): relists and
    /// resyncs arrive whole and the informer reconciles them against its cache.
    pub(crate) fn new(kind: QueueKind, known: Arc<Indexer<K>>) -> Self {
        match kind {
            QueueKind::InOrder => {
                Self::InOrder(RealFifo::new(RealFifoConfig::default().atomic(true)))
            }
            _ => Self::DeltaFifo(DeltaFifo::new(
                FifoConfig::default()
                    .known_objects(known)
                    .emit_replaced(true),
            )),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            AnyQueue::DeltaFifo($q) => $e,
            AnyQueue::InOrder($q) => $e,
        }
    };
}

impl<K: Object> Store<K> for AnyQueue<K> {
    fn add(&self, obj: Arc<K>) -> Result<(), StoreError> {
        dispatch!(self, q => q.add(obj))
    }
    fn update(&self, obj: Arc<K>) -> Result<(), StoreError> {
        dispatch!(self, q => q.update(obj))
    }
    fn delete(&self, obj: Arc<K>) -> Result<(), StoreError> {
        dispatch!(self, q => q.delete(obj))
    }
    fn replace(&self, list: Vec<Arc<K>>, resource_version: &str) -> Result<(), StoreError> {
        dispatch!(self, q => q.replace(list, resource_version))
    }
    fn resync(&self) -> Result<(), StoreError> {
        dispatch!(self, q => q.resync())
    }
    fn update_resource_version(&self, resource_version: &str) {
        dispatch!(self, q => q.update_resource_version(resource_version));
    }
}

impl<K: Object> DeltaQueue<K> for AnyQueue<K> {
    async fn pop<R: Send>(&self, process: impl FnOnce(Popped<K>) -> R + Send) -> Option<R> {
        let process = move |popped: kinformer_deltafifo::Popped<K>| process(convert(popped));
        // The only failure is "closed and empty".
        dispatch!(self, q => q.pop(process).await.ok())
    }

    fn has_synced(&self) -> bool {
        dispatch!(self, q => q.has_synced())
    }

    fn close(&self) {
        dispatch!(self, q => q.close());
    }
}

fn convert<K: Object>(popped: kinformer_deltafifo::Popped<K>) -> Popped<K> {
    let item = match popped.item {
        QueueItem::Deltas { deltas, .. } => Item::Deltas(deltas),
        QueueItem::ReplacedAll {
            resource_version,
            objects,
        } => Item::ReplacedAll {
            resource_version,
            objects,
        },
        QueueItem::SyncAll => Item::SyncAll,
        _ => {
            tracing::warn!("unknown queue item ignored");
            Item::Deltas(Vec::new())
        }
    };
    Popped {
        item,
        is_in_initial_list: popped.is_in_initial_list,
    }
}
