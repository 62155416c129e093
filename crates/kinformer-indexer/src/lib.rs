//! The thread-safe store with named indexes, key functions and listers.
//!
//! [`Indexer`] is client-go's `Indexer` over a `ThreadSafeStore`: a map from key to `Arc<K>`
//! plus named indexes from value to sorted key sets, written through
//! [`Store`](kinformer_core::Store) by a reflector or an informer and read through
//! [`StoreRead`](kinformer_core::StoreRead), the index queries and the [`CacheLister`]s.
//!
//! - Keys are `namespace/name` (or `name`) unless a [`KeyFunc`] says otherwise;
//!   [`deletion_handling_key`] reads a tombstone's key.
//! - The [`NAMESPACE_INDEX`] is always present; more indexes come from [`Config`] or
//!   [`Indexer::add_indexers`] (also on a non-empty store).
//! - An [`IndexFunc`] failure fails the write with nothing applied (client-go panics).
//! - An index value whose key set becomes empty is removed.
//! - `replace` builds the new content and its indexes, then swaps them in at once.
//!
//! # Feature flags
//! None.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release and never to a toolchain younger
//! than six months.

#![doc(test(attr(deny(warnings))))]

mod config;
mod error;
mod index;
mod indexer;
mod key;
mod lister;
mod state;
#[cfg(test)]
mod tests;

// The public interface is:
pub use config::Config;
pub use error::{Error, Result};
pub use index::IndexFunc;
pub use indexer::Indexer;
pub use key::{NAMESPACE_INDEX, deletion_handling_key, namespace_index_func};
/// Re-exported from core: the indexer and the queues share one key function type.
pub use kinformer_core::KeyFunc;
pub use lister::{CacheLister, NamespacedLister};
