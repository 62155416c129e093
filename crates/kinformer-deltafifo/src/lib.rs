//! DeltaFifo and the in-order queue: client-go's delta queues, with typed tombstones.
//!
//! A reflector writes into a queue through [`Store`](kinformer_core::Store); an informer pops
//! from it through [`DeltaQueue`] and applies what it pops to its indexer and handlers.
//!
//! - [`DeltaFifo`] is client-go's DeltaFIFO: deltas grouped per key, keys in FIFO order.
//! - [`RealFifo`] is newer client-go's in-order queue: every event on its own, in arrival
//!   order, optionally atomic (one [`PoppedItem::ReplacedAll`] per relist).
//!
//! Deletions inferred from a relist are [`DeletedState::Unknown`](kinformer_core::DeletedState)
//! tombstones inside [`Delta::Deleted`](kinformer_core::Delta), so no consumer can miss them.
//! Objects are shared `Arc`s throughout: nothing is deep-copied.
//!
//! Synchronisation is a `std::sync::Mutex` plus a `tokio::sync::Notify` wake-up; no lock-free
//! code is written here, so loom is not needed.
//!
//! # Feature flags
//! None.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release and never to a toolchain younger
//! than six months.

#![doc(test(attr(deny(warnings))))]

mod delta_fifo;
mod either;
mod error;
mod queue;
mod real_fifo;
#[cfg(test)]
mod tests;

// The public interface is:
pub use delta_fifo::{DeltaFifo, DeltaFifoConfig, KnownObjects};
pub use either::EitherQueue;
pub use error::{Error, Result};
pub use queue::{DeltaQueue, Popped, PoppedItem};
pub use real_fifo::{RealFifo, RealFifoConfig};
