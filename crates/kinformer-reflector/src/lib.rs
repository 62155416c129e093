//! The reflector: keeps a [`Store`](kinformer_core::Store) equal to the server by listing, then
//! watching, with client-go's resourceVersion, relist and backoff rules.
//!
//! A [`Reflector`] is generic over any [`ListerWatcher`](kinformer_core::ListerWatcher) and any
//! store. It runs as a state machine (`Sync` → `OpenWatch` → `Watch` → ..., with `Backoff` between
//! failures) and follows client-go's `tools/cache/reflector.go` rule by rule; see [`Reflector`]
//! for the rules and [`Config`] for the knobs.
//!
//! Time comes only from tokio, so tests can run it on a paused clock.
//!
//! # Feature flags
//! None.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release.

#![doc(test(attr(deny(warnings))))]

mod classify;
mod config;
mod error;
mod handle;
mod list;
mod metrics;
mod reflector;
mod resync;
mod runner;
mod streaming;
mod type_check;
mod watch;

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;

// The public interface is:
pub use config::{Config, MIN_WATCH_TIMEOUT};
pub use error::{Cause, Error, WatchBreak};
pub use handle::ResourceVersionHandle;
pub use metrics::{Counters, CountersSnapshot, NoMetrics, ReflectorMetrics};
pub use reflector::{Reflector, ShouldResync, WatchErrorHandler};
pub use type_check::{TypeCheck, expect_kind};
