//! The queue choice: the delta queue crate's `RealFifo` (the in-order queue) or `DeltaFifo`,
//! as an `EitherQueue`.

use std::sync::Arc;

use kinformer_core::Object;
use kinformer_deltafifo::{DeltaFifo, DeltaFifoConfig, EitherQueue, RealFifo, RealFifoConfig};
use kinformer_indexer::Indexer;

use super::config::QueueKind;

/// The queue of `kind`, with the informer's cache as its known objects.
///
/// The in-order queue runs in its atomic mode (client-go 1.36's default): relists and resyncs
/// arrive whole and the informer reconciles them against its cache.
pub(crate) fn make_queue<K: Object>(kind: QueueKind, known: Arc<Indexer<K>>) -> EitherQueue<K> {
    match kind {
        QueueKind::DeltaFifo => DeltaFifo::new(
            DeltaFifoConfig::default()
                .with_known_objects(known)
                .with_emit_replaced(true),
        )
        .into(),
        QueueKind::RealFifo => RealFifo::new(RealFifoConfig::default().with_atomic(true)).into(),
    }
}
