//! The compact cache mode: objects held as the JSON they encode to, decoded on read.
//!
//! A typed Kubernetes object costs several times its JSON in memory: k8s-openapi's structs are
//! large and mostly `None`, every string and list is its own allocation, and every map a B-tree
//! node. A realistic pod without managedFields is about 4.5 KB of JSON but 20–30 KB as a
//! `Pod`. In compact mode the indexer keeps only the JSON (one exactly sized allocation), its
//! resourceVersion and its index values, so indexes answer without decoding, and it decodes an
//! object when it is read (`get`, `list`, `by_index`, the listers).
//!
//! The trade-off is memory against CPU per read: each read of an object decodes it again (a
//! realistic pod takes tens of microseconds) and hands out a fresh `Arc<K>`, so two reads of
//! the same object are equal but not the same allocation. It suits large caches read rarely or
//! a few objects at a time; a controller that lists the whole cache on every event should keep
//! the default.

use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;

use kinformer_core::{Cached, Object};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::packed::PackedObject;

/// How an [`Indexer`](crate::Indexer) in compact mode encodes and decodes its objects.
///
/// [`Config::with_compact`](crate::Config::with_compact) takes it. [`Compact::json`] makes one
/// for any `K` that serializes and deserializes (compact JSON, without `None` fields); with the
/// `protobuf` feature, `Compact::protobuf` makes one for a built-in Kubernetes type (about half
/// the bytes, decoded twice as fast) and `Compact::preferred` picks the better of the two.
pub struct Compact<K> {
    pub(crate) encode: fn(&K, &mut Vec<u8>) -> Result<(), String>,
    pub(crate) decode: fn(&[u8]) -> Result<K, String>,
    pub(crate) encoding: Encoding,
    /// Shared by every clone: one cache, one dictionary.
    #[cfg(feature = "compression")]
    pub(crate) compressor: Option<Arc<crate::compression::Compressor>>,
}

/// The encoding a [`Compact`] cache holds its objects in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Encoding {
    /// Compact JSON.
    Json,
    /// Kubernetes' protobuf wire format (built-in types).
    Protobuf,
}

impl<K> Clone for Compact<K> {
    fn clone(&self) -> Self {
        Self {
            encode: self.encode,
            decode: self.decode,
            encoding: self.encoding,
            #[cfg(feature = "compression")]
            compressor: self.compressor.clone(),
        }
    }
}

impl<K> fmt::Debug for Compact<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_tuple("Compact");
        debug.field(&self.encoding);
        #[cfg(feature = "compression")]
        if let Some(compressor) = &self.compressor {
            debug.field(&compressor.settings());
        }
        debug.finish()
    }
}

impl<K: Object + Serialize + DeserializeOwned> Compact<K> {
    /// JSON, through `K`'s own serde implementations.
    pub fn json() -> Self {
        Self {
            encode: |obj, out| serde_json::to_writer(out, obj).map_err(|e| e.to_string()),
            decode: |bytes| serde_json::from_slice(bytes).map_err(|e| e.to_string()),
            encoding: Encoding::Json,
            #[cfg(feature = "compression")]
            compressor: None,
        }
    }
}

impl<K> Compact<K> {
    /// The encoding objects are held in.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Compresses packed objects as `compression` says, with a dictionary trained on the
    /// cache's own first objects (see [`Compression`](crate::Compression)). Each indexer given
    /// this `Compact` trains its own dictionary; clones of one share it.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use k8s_openapi::api::core::v1::ConfigMap;
    /// use kinformer_core::{Store, StoreRead};
    /// use kinformer_indexer::{Compact, Compression, Config, Indexer};
    ///
    /// let compression = Compression::default().with_training_objects(50)?;
    /// let compact = Compact::<ConfigMap>::json().with_compression(compression);
    /// assert_eq!(compact.compression(), Some(compression));
    /// let indexer = Indexer::new(Config::default().with_compact(compact));
    /// for i in 0..200 {
    ///     let mut cm = ConfigMap::default();
    ///     cm.metadata.name = Some(format!("settings-{i}"));
    ///     cm.data = Some([("mode".to_owned(), format!("fast-{}", i % 3))].into());
    ///     indexer.add(Arc::new(cm))?;
    /// }
    /// let read = indexer.get_by_key("settings-150").expect("held");
    /// assert_eq!(read.data.as_ref().unwrap()["mode"], "fast-0");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "compression")]
    #[must_use]
    pub fn with_compression(mut self, compression: crate::Compression) -> Self {
        self.compressor = Some(Arc::new(crate::compression::Compressor::new(compression)));
        self
    }

    /// How packed objects are compressed, if they are.
    #[cfg(feature = "compression")]
    pub fn compression(&self) -> Option<crate::Compression> {
        self.compressor.as_ref().map(|c| c.settings())
    }
}

thread_local! {
    /// The encoding buffer, reused so that encoding leaves one exactly sized allocation behind
    /// and no grown-and-freed buffers between cached objects.
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// A compressed object's bytes, compressed or decompressed, reused as [`BUFFER`] is.
    #[cfg(feature = "compression")]
    static COMPRESSED: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The largest buffer kept between encodes; a larger object's buffer is freed after use.
const KEPT_BUFFER: usize = 256 * 1024;

impl<K> Compact<K> {
    /// `obj`'s encoding, in an allocation of exactly its length.
    pub(crate) fn encode(&self, obj: &K) -> Result<Arc<[u8]>, String> {
        BUFFER.with(|buffer| {
            let mut buffer = buffer.borrow_mut();
            buffer.clear();
            let encoded = (self.encode)(obj, &mut buffer).map(|()| self.held(&buffer));
            if buffer.capacity() > KEPT_BUFFER {
                *buffer = Vec::new();
            }
            encoded
        })
    }

    /// What the cache holds of an object encoded as `packed`: `packed` compressed when it
    /// compresses.
    fn held(&self, packed: &[u8]) -> Arc<[u8]> {
        #[cfg(feature = "compression")]
        if let Some(compressor) = &self.compressor {
            return with_scratch(|scratch| {
                if compressor.compress(packed, scratch) {
                    Arc::from(&scratch[..])
                } else {
                    Arc::from(packed)
                }
            });
        }
        Arc::from(packed)
    }

    /// `obj`'s encoding, or `None` (logged) for an object that does not encode: it is then
    /// kept as it is (nothing is lost; it costs its decoded size).
    pub(crate) fn pack(&self, key: &str, obj: &K) -> Option<Arc<[u8]>> {
        match self.encode(obj) {
            Ok(bytes) => Some(bytes),
            Err(error) => {
                tracing::warn!(key, %error, "object kept decoded: it does not encode");
                None
            }
        }
    }

    /// The object `bytes` encode.
    pub(crate) fn decode(&self, bytes: &[u8]) -> Result<K, String> {
        #[cfg(feature = "compression")]
        if let Some(compressor) = &self.compressor {
            return with_scratch(|scratch| (self.decode)(compressor.decompress(bytes, scratch)?));
        }
        (self.decode)(bytes)
    }
}

/// Runs `f` with the thread's compression buffer, freed after use when it grew large.
#[cfg(feature = "compression")]
fn with_scratch<T>(f: impl FnOnce(&mut Vec<u8>) -> T) -> T {
    COMPRESSED.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        let result = f(&mut scratch);
        if scratch.capacity() > KEPT_BUFFER {
            *scratch = Vec::new();
        }
        result
    })
}

/// One cached object: shared as decoded, or packed.
pub(crate) enum Entry<K> {
    /// The object itself (the default mode, and compact mode's fallback for an object that
    /// would not encode).
    Object(Arc<K>),
    /// The object's encoding with what the indexer needs without decoding it.
    Packed(Box<Packed>),
}

/// A packed entry's values, per index in index order, as the indexes hold them.
pub(crate) type IndexValues = Vec<Box<[Arc<str>]>>;

/// A packed object: its encoding, its resourceVersion (so a relist can keep an unchanged
/// object's bytes) and its values for each index, in index order (so an update or delete
/// finds the index entries to remove without decoding).
pub(crate) struct Packed {
    pub(crate) bytes: Arc<[u8]>,
    pub(crate) resource_version: Arc<str>,
    pub(crate) values: IndexValues,
}

impl<K: Object> Entry<K> {
    /// The entry cached under `key` as a read hands it on: taken out from under the lock,
    /// decoded (if at all) after it is released. `None` only for a packed entry without a
    /// codec, which compact mode rules out.
    pub(crate) fn cached(&self, key: &Arc<str>, compact: Option<&Compact<K>>) -> Option<Cached<K>> {
        Some(match self {
            Self::Object(obj) => Cached::from(Arc::clone(obj)),
            Self::Packed(packed) => PackedObject::handed_on(
                Arc::clone(key),
                Arc::clone(&packed.bytes),
                Arc::clone(&packed.resource_version),
                compact?,
            ),
        })
    }

    /// The entry as a removed one is handed on (an update's old object), without copying.
    pub(crate) fn into_cached(
        self,
        key: Arc<str>,
        compact: Option<&Compact<K>>,
    ) -> Option<Cached<K>> {
        Some(match self {
            Self::Object(obj) => Cached::from(obj),
            Self::Packed(packed) => {
                let Packed {
                    bytes,
                    resource_version,
                    ..
                } = *packed;
                PackedObject::handed_on(key, bytes, resource_version, compact?)
            }
        })
    }
}
