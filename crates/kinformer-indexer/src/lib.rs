//! The thread-safe store with named indexes, key functions and listers.
//!
//! [`Indexer`] is client-go's `Indexer` over a `ThreadSafeStore`: a map from key to `Arc<K>`
//! plus named indexes from value to sorted key sets, written through
//! [`Store`](kinformer_core::Store) by a reflector or an informer and read through
//! [`StoreRead`](kinformer_core::StoreRead), the index queries and the [`CacheLister`]s.
//!
//! - Keys are `namespace/name` (or `name`) unless a [`KeyFunc`](kinformer_core::KeyFunc) says
//!   otherwise;
//!   [`deletion_handling_key`] reads a tombstone's key.
//! - The [`NAMESPACE_INDEX`] is always present; more indexes come from [`Config`] or
//!   [`Indexer::add_indexers`] (also on a non-empty store).
//! - An [`IndexFunc`] failure fails the write with nothing applied (client-go panics).
//! - An index value whose key set becomes empty is removed.
//! - `replace` builds the new content and its indexes, then swaps them in at once.
//! - [`IndexRead::iter`] reads every object, [`CacheLister::iter`] every match, each decoded only
//!   when reached (in compact mode).
//!
//! # Compact mode
//!
//! [`Config::with_compact`] makes an indexer hold each object as its JSON encoding (about 4.5 KB for
//! a realistic pod without managedFields, against 20–30 KB decoded) together with its
//! resourceVersion and index values, and decode it on every read. Index queries, updates and
//! deletes need no decoding; a relist keeps the bytes of every object whose resourceVersion is
//! unchanged. How an object is held is the indexer's own business: keys and index values are
//! always computed from the whole object, before it is packed.
//!
//! Objects move in and out as [`Cached`](kinformer_core::Cached)s, which the list-watch
//! pipeline carries: a listed object is packed as it arrives ([`Indexer::admit_with`]), so a
//! list is never held decoded, and an informer hands its handlers packed objects that are
//! decoded on delivery, one at a time. [`IndexRead::iter`] and the listers' `iter` read a whole
//! cache the same way.
//!
//! The trade-off is memory against CPU per read: `get`, `list`, `by_index` and the listers
//! decode each object they return (tens of microseconds for a pod) and hand out a new `Arc<K>`
//! each time; `list` decodes the whole cache at once, `iter` one object at a time. Pick it for
//! large caches that are read a few objects at a time (by key or by a selective index); keep
//! the default when handlers or workers list the whole cache often.
//!
//! # Feature flags
//! - `protobuf`: [`Compact::protobuf`], a compact cache of built-in types held in Kubernetes'
//!   protobuf.
//! - `compression`: [`Compact::with_compression`], packed objects compressed with a zstd
//!   dictionary trained on the cache's own objects.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release and never to a toolchain younger
//! than six months.

#![doc(test(attr(deny(warnings))))]

mod admit;
mod compact;
#[cfg(feature = "protobuf")]
mod compact_protobuf;
#[cfg(feature = "compression")]
mod compression;
mod config;
mod error;
mod hot;
mod index;
mod index_read;
mod indexer;
mod iter;
mod key;
mod lister;
mod packed;
mod read;
mod read_only;
mod replace;
mod state;
#[cfg(test)]
mod tests;

// The public interface is:
pub use compact::{Compact, Encoding};
#[cfg(feature = "compression")]
pub use compression::Compression;
pub use config::Config;
pub use error::{Error, Result};
pub use index::IndexFunc;
pub use index_read::IndexRead;
pub use indexer::Indexer;
pub use iter::Iter;
pub use key::{NAMESPACE_INDEX, deletion_handling_key, namespace_index_func};
pub use lister::{CacheLister, NamespacedLister};
pub use read_only::ReadOnlyIndexer;
