//! The queue choice: the delta queue crate's `DeltaFifo` or `RealFifo`, as an `EitherQueue`
//! behind the informer's [`DeltaQueue`].

use std::sync::Arc;

use kinformer_core::Object;
use kinformer_deltafifo::{
    Config as FifoConfig, DeltaFifo, EitherQueue, Queue, QueueItem, RealFifo, RealFifoConfig,
};
use kinformer_indexer::Indexer;

use super::config::QueueKind;
use super::queue::{DeltaQueue, Item, Popped};

/// The queue of `kind`, with the informer's cache as its known objects.
///
/// The in-order queue runs in its atomic mode (client-go 1.36's default): relists and resyncs
/// arrive whole and the informer reconciles them against its cache.
pub(crate) fn make_queue<K: Object>(kind: QueueKind, known: Arc<Indexer<K>>) -> EitherQueue<K> {
    match kind {
        QueueKind::InOrder => RealFifo::new(RealFifoConfig::default().atomic(true)).into(),
        _ => DeltaFifo::new(
            FifoConfig::default()
                .known_objects(known)
                .emit_replaced(true),
        )
        .into(),
    }
}

impl<K: Object> DeltaQueue<K> for EitherQueue<K> {
    async fn pop<R: Send>(&self, process: impl FnOnce(Popped<K>) -> R + Send) -> Option<R> {
        let process = move |popped: kinformer_deltafifo::Popped<K>| process(convert(popped));
        // The only failure is "closed and empty".
        Queue::pop(self, process).await.ok()
    }

    fn has_synced(&self) -> bool {
        Queue::has_synced(self)
    }

    fn close(&self) {
        Queue::close(self);
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
