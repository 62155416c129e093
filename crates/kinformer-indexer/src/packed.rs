//! [`PackedObject`]: an object a compact indexer packed, as it travels in a
//! [`Cached`](kinformer_core::Cached) outside the indexer.

use std::any::Any;
use std::sync::Arc;

use kinformer_core::{Cached, Object, Packed};

use crate::compact::Compact;

/// A packed object on its way into or out of a compact indexer: its encoding (shared with the
/// cache entry), its resourceVersion and its codec; for a listed object packed as it arrived,
/// also its index values, computed from the whole object then, so the replace that stores it
/// needs no decode.
pub(crate) struct PackedObject<K> {
    pub(crate) bytes: Arc<[u8]>,
    pub(crate) resource_version: Arc<str>,
    compact: Compact<K>,
    /// Index values per index, valid for the index set they were computed against.
    pub(crate) values: Option<(u64, Vec<Vec<String>>)>,
}

impl<K: Object> PackedObject<K> {
    /// A cached entry handed on under `key`.
    pub(crate) fn handed_on(
        key: Arc<str>,
        bytes: Arc<[u8]>,
        resource_version: Arc<str>,
        compact: &Compact<K>,
    ) -> Cached<K> {
        Self::listed(key, bytes, resource_version, compact, None)
    }

    /// A listed object packed as it arrived, with its index `values` when they could be
    /// computed.
    pub(crate) fn listed(
        key: Arc<str>,
        bytes: Arc<[u8]>,
        resource_version: Arc<str>,
        compact: &Compact<K>,
        values: Option<(u64, Vec<Vec<String>>)>,
    ) -> Cached<K> {
        let packed = Self {
            bytes,
            resource_version,
            compact: compact.clone(),
            values,
        };
        Cached::from_packed(key, Arc::new(packed))
    }

    /// `cached`'s packed form when an indexer packed it.
    pub(crate) fn of(cached: &Cached<K>) -> Option<&Self> {
        let packed: &dyn Any = cached.packed()?;
        packed.downcast_ref()
    }
}

impl<K: Object> Packed<K> for PackedObject<K> {
    fn encoding(&self) -> &[u8] {
        &self.bytes
    }

    fn resource_version(&self) -> &str {
        &self.resource_version
    }

    fn unpack(&self) -> Result<K, String> {
        self.compact.decode(&self.bytes)
    }
}
