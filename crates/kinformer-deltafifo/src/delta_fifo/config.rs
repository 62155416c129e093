//! [`DeltaFifoConfig`] for a [`DeltaFifo`](crate::DeltaFifo), and the [`KnownObjects`] view it
//! reads.

use std::fmt;
use std::sync::Arc;

use kinformer_core::{KeyFunc, Object, StoreRead};

/// A read view of what the consumer has stored (normally its indexer): client-go's
/// `KnownObjects`.
pub type KnownObjects<K> = Arc<dyn StoreRead<K>>;

/// How to build a [`DeltaFifo`](crate::DeltaFifo). `Default` is client-go's `NewDeltaFIFO`
/// without known objects; each setting has a `with_` setter and a getter of the same name.
///
/// A queue stores objects as they come: the informer applies its transform before they reach
/// the queue.
///
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_deltafifo::{DeltaFifo, DeltaFifoConfig};
///
/// let config = DeltaFifoConfig::default().with_emit_replaced(true);
/// assert!(config.emit_replaced());
/// let fifo: DeltaFifo<Pod> = DeltaFifo::new(config);
/// # drop(fifo);
/// ```
pub struct DeltaFifoConfig<K> {
    pub(super) key_func: KeyFunc<K>,
    pub(super) known_objects: Option<KnownObjects<K>>,
    pub(super) emit_replaced: bool,
}

impl<K: Object> Default for DeltaFifoConfig<K> {
    fn default() -> Self {
        Self {
            key_func: KeyFunc::default(),
            known_objects: None,
            emit_replaced: false,
        }
    }
}

impl<K> DeltaFifoConfig<K> {
    /// Uses `key_func` instead of `namespace/name`.
    #[must_use]
    pub fn with_key_func(mut self, key_func: KeyFunc<K>) -> Self {
        self.key_func = key_func;
        self
    }

    /// The key function (by default `namespace/name`, or `name` for a cluster-scoped object).
    pub fn key_func(&self) -> &KeyFunc<K> {
        &self.key_func
    }

    /// Sets what the consumer has stored; needed for tombstones of objects no longer queued,
    /// for `delete` of already-popped objects, and for resync.
    #[must_use]
    pub fn with_known_objects(mut self, known: KnownObjects<K>) -> Self {
        self.known_objects = Some(known);
        self
    }

    /// What the consumer has stored, if the queue is told (by default it is not).
    pub fn known_objects(&self) -> Option<&KnownObjects<K>> {
        self.known_objects.as_ref()
    }

    /// Makes relisted objects arrive as [`Delta::Replaced`](kinformer_core::Delta::Replaced)
    /// instead of [`Delta::Sync`](kinformer_core::Delta::Sync) (client-go's
    /// `EmitDeltaTypeReplaced`; default false, informers set it).
    #[must_use]
    pub fn with_emit_replaced(mut self, emit: bool) -> Self {
        self.emit_replaced = emit;
        self
    }

    /// Whether relisted objects arrive as `Replaced` (else as `Sync`).
    pub fn emit_replaced(&self) -> bool {
        self.emit_replaced
    }
}

impl<K> fmt::Debug for DeltaFifoConfig<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeltaFifoConfig")
            .field("known_objects", &self.known_objects.is_some())
            .field("emit_replaced", &self.emit_replaced)
            .finish_non_exhaustive()
    }
}
