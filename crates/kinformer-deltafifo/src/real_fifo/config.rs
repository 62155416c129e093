//! [`RealFifoConfig`]: how to build a [`RealFifo`](super::RealFifo).

use std::fmt;

use kinformer_core::{KeyFunc, Object};

use crate::KnownObjects;

/// How to build a [`RealFifo`](super::RealFifo). `Default` is the in-order (not atomic) queue
/// without known objects; each setting has a `with_` setter and a getter of the same name.
///
/// A queue stores objects as they come: the informer applies its transform before they reach
/// the queue.
///
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_deltafifo::{RealFifo, RealFifoConfig};
///
/// let config = RealFifoConfig::default().with_atomic(true);
/// assert!(config.atomic());
/// let atomic: RealFifo<Pod> = RealFifo::new(config);
/// # drop(atomic);
/// ```
pub struct RealFifoConfig<K> {
    pub(super) key_func: KeyFunc<K>,
    pub(super) known_objects: Option<KnownObjects<K>>,
    pub(super) atomic: bool,
}

impl<K: Object> Default for RealFifoConfig<K> {
    fn default() -> Self {
        Self {
            key_func: KeyFunc::default(),
            known_objects: None,
            atomic: false,
        }
    }
}

impl<K> RealFifoConfig<K> {
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

    /// Sets what the consumer has stored: the in-order mode needs it for relist tombstones and
    /// resync; the atomic mode ignores it (the consumer reconciles against its own store).
    #[must_use]
    pub fn with_known_objects(mut self, known: KnownObjects<K>) -> Self {
        self.known_objects = Some(known);
        self
    }

    /// What the consumer has stored, if the queue is told (by default it is not).
    pub fn known_objects(&self) -> Option<&KnownObjects<K>> {
        self.known_objects.as_ref()
    }

    /// Makes a relist one [`PoppedItem::ReplacedAll`](crate::PoppedItem::ReplacedAll) and a
    /// resync one [`PoppedItem::SyncAll`](crate::PoppedItem::SyncAll), so each is applied in one
    /// step (client-go's `AtomicFIFO`; default false).
    #[must_use]
    pub fn with_atomic(mut self, atomic: bool) -> Self {
        self.atomic = atomic;
        self
    }

    /// Whether relists and resyncs are popped whole.
    pub fn atomic(&self) -> bool {
        self.atomic
    }
}

impl<K> fmt::Debug for RealFifoConfig<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RealFifoConfig")
            .field("known_objects", &self.known_objects.is_some())
            .field("atomic", &self.atomic)
            .finish_non_exhaustive()
    }
}
