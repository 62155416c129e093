//! [`Lazy`]: an object as a compact cache hands it on, decoded when it is needed.

use std::fmt;
use std::sync::Arc;

use crate::Error;
use crate::compact::Compact;

/// An object that may still be packed: an informer over a compact cache passes its objects to
/// handlers this way, so a relist of thousands of objects is decoded one delivery at a time
/// rather than held decoded all at once.
pub enum Lazy<K> {
    /// Decoded already.
    Ready(Arc<K>),
    /// Packed, decoded by [`load`](Self::load).
    Packed(PackedObject<K>),
}

/// A packed object, the key it is cached under, and how to decode it.
pub struct PackedObject<K> {
    pub(crate) key: Arc<str>,
    pub(crate) bytes: Arc<[u8]>,
    pub(crate) compact: Compact<K>,
}

impl<K> PackedObject<K> {
    /// The key the object is cached under (known without decoding it).
    pub fn key(&self) -> &str {
        &self.key
    }
}

impl<K> Lazy<K> {
    /// The object, decoded now when packed; `None` (logged) when packed bytes fail to decode,
    /// which they only could through a serde bug: they were encoded from a `K`.
    pub fn load(&self) -> Option<Arc<K>> {
        self.try_load()
            .inspect_err(|error| tracing::error!(%error, "a packed object failed to decode"))
            .ok()
    }

    /// The object, decoded now when packed.
    ///
    /// # Errors
    /// [`Error::Decode`] when packed bytes fail to decode (only a serde bug could cause it:
    /// they were encoded from a `K`), with the key the object is cached under.
    pub fn try_load(&self) -> Result<Arc<K>, Error> {
        match self {
            Self::Ready(obj) => Ok(Arc::clone(obj)),
            Self::Packed(packed) => {
                packed
                    .compact
                    .decode(&packed.bytes)
                    .map(Arc::new)
                    .map_err(|message| Error::Decode {
                        key: packed.key.to_string(),
                        message,
                    })
            }
        }
    }

    /// True when both are the same object: the same `Arc`, or the same packed bytes.
    pub fn same_as(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Ready(a), Self::Ready(b)) => Arc::ptr_eq(a, b),
            (Self::Packed(a), Self::Packed(b)) => Arc::ptr_eq(&a.bytes, &b.bytes),
            _ => false,
        }
    }

    /// The object when it is decoded already.
    pub fn ready(&self) -> Option<&Arc<K>> {
        match self {
            Self::Ready(obj) => Some(obj),
            Self::Packed(_) => None,
        }
    }
}

impl<K> fmt::Debug for PackedObject<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PackedObject({:?}, {} bytes)",
            self.key,
            self.bytes.len()
        )
    }
}

impl<K> From<Arc<K>> for Lazy<K> {
    fn from(obj: Arc<K>) -> Self {
        Self::Ready(obj)
    }
}

impl<K> Clone for Lazy<K> {
    fn clone(&self) -> Self {
        match self {
            Self::Ready(obj) => Self::Ready(Arc::clone(obj)),
            Self::Packed(packed) => Self::Packed(PackedObject {
                key: Arc::clone(&packed.key),
                bytes: Arc::clone(&packed.bytes),
                compact: packed.compact,
            }),
        }
    }
}

impl<K: fmt::Debug> fmt::Debug for Lazy<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Ready(obj) => f.debug_tuple("Ready").field(obj).finish(),
            Self::Packed(packed) => f.debug_tuple("Packed").field(packed).finish(),
        }
    }
}
