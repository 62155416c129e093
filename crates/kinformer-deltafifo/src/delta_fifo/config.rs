//! [`Config`] for a [`DeltaFifo`](crate::DeltaFifo), and the [`KnownObjects`] view it reads.

use std::fmt;
use std::sync::Arc;

use kinformer_core::{Object, StoreRead};

use crate::{KeyFunc, Transform};

/// A read view of what the consumer has stored (normally its indexer): client-go's
/// `KnownObjects`.
pub type KnownObjects<K> = Arc<dyn StoreRead<K>>;

/// How to build a [`DeltaFifo`](crate::DeltaFifo).
///
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_deltafifo::{Config, DeltaFifo, Transform};
///
/// let fifo: DeltaFifo<Pod> = DeltaFifo::new(
///     Config::default()
///         .emit_replaced(true)
///         .transform(Transform::new(|pod: &mut Pod| pod.metadata.annotations = None)),
/// );
/// # drop(fifo);
/// ```
pub struct Config<K> {
    pub(super) key_func: KeyFunc<K>,
    pub(super) known_objects: Option<KnownObjects<K>>,
    pub(super) emit_replaced: bool,
    pub(super) transform: Option<Transform<K>>,
}

impl<K: Object> Default for Config<K> {
    fn default() -> Self {
        Self {
            key_func: KeyFunc::default(),
            known_objects: None,
            emit_replaced: false,
            transform: None,
        }
    }
}

impl<K: Object> Config<K> {
    /// Uses `key_func` instead of `namespace/name`.
    #[must_use]
    pub fn key_func(mut self, key_func: KeyFunc<K>) -> Self {
        self.key_func = key_func;
        self
    }

    /// What the consumer has stored; needed for tombstones of objects no longer queued, for
    /// `delete` of already-popped objects, and for resync.
    #[must_use]
    pub fn known_objects(mut self, known: KnownObjects<K>) -> Self {
        self.known_objects = Some(known);
        self
    }

    /// Relisted objects arrive as [`Delta::Replaced`](kinformer_core::Delta::Replaced) instead of [`Delta::Sync`](kinformer_core::Delta::Sync) (client-go's
    /// `EmitDeltaTypeReplaced`; default false, informers set it).
    #[must_use]
    pub fn emit_replaced(mut self, emit: bool) -> Self {
        self.emit_replaced = emit;
        self
    }

    /// Transforms every object once as it enters.
    #[must_use]
    pub fn transform(mut self, transform: Transform<K>) -> Self {
        self.transform = Some(transform);
        self
    }
}

impl<K> fmt::Debug for Config<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("known_objects", &self.known_objects.is_some())
            .field("emit_replaced", &self.emit_replaced)
            .field("transform", &self.transform.is_some())
            .finish_non_exhaustive()
    }
}
