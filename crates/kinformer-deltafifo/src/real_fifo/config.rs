//! [`RealFifoConfig`]: how to build a [`RealFifo`](super::RealFifo).

use std::fmt;

use kinformer_core::Object;

use crate::{KeyFunc, KnownObjects, Transform};

/// How to build a [`RealFifo`](super::RealFifo).
///
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_deltafifo::{RealFifo, RealFifoConfig};
///
/// let atomic: RealFifo<Pod> = RealFifo::new(RealFifoConfig::default().atomic(true));
/// # drop(atomic);
/// ```
pub struct RealFifoConfig<K> {
    pub(super) key_func: KeyFunc<K>,
    pub(super) known_objects: Option<KnownObjects<K>>,
    pub(super) atomic: bool,
    pub(super) transform: Option<Transform<K>>,
}

impl<K: Object> Default for RealFifoConfig<K> {
    fn default() -> Self {
        Self {
            key_func: KeyFunc::default(),
            known_objects: None,
            atomic: false,
            transform: None,
        }
    }
}

impl<K: Object> RealFifoConfig<K> {
    /// Uses `key_func` instead of `namespace/name`.
    #[must_use]
    pub fn key_func(mut self, key_func: KeyFunc<K>) -> Self {
        self.key_func = key_func;
        self
    }

    /// What the consumer has stored: the in-order mode needs it for relist tombstones and
    /// resync; the atomic mode ignores it (the consumer reconciles against its own store).
    #[must_use]
    pub fn known_objects(mut self, known: KnownObjects<K>) -> Self {
        self.known_objects = Some(known);
        self
    }

    /// A relist becomes one [`PoppedItem::ReplacedAll`](crate::PoppedItem::ReplacedAll) and a resync one
    /// [`PoppedItem::SyncAll`](crate::PoppedItem::SyncAll), so each is applied in one step (client-go's `AtomicFIFO`).
    #[must_use]
    pub fn atomic(mut self, atomic: bool) -> Self {
        self.atomic = atomic;
        self
    }

    /// Transforms every object once as it enters.
    #[must_use]
    pub fn transform(mut self, transform: Transform<K>) -> Self {
        self.transform = Some(transform);
        self
    }
}

impl<K> fmt::Debug for RealFifoConfig<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RealFifoConfig")
            .field("known_objects", &self.known_objects.is_some())
            .field("atomic", &self.atomic)
            .field("transform", &self.transform.is_some())
            .finish_non_exhaustive()
    }
}
