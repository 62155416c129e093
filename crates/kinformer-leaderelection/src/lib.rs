//! Leader election on a `coordination.k8s.io/v1` Lease, with client-go's `LeaderElector`
//! semantics (`k8s.io/client-go/tools/leaderelection`).
//!
//! Several replicas of a controller each run a [`LeaderElector`] over the same Lease; one
//! leads at a time. The leader's work gets a [`CancellationToken`] that fires when leadership
//! ends.
//!
//! - [`LeaderElector`]: acquire, renew, release. [`Config`]: lease duration 15 s, renew
//!   deadline 10 s, retry period 2 s (acquire retries jittered by [`JITTER_FACTOR`]), release
//!   on cancel off. [`Callbacks`]: `on_started_leading`, `on_stopped_leading`,
//!   `on_new_leader`.
//! - [`LeaseLock`]: get, create, and update on a resourceVersion precondition, with a typed
//!   [`Error::Conflict`]. [`RestLeaseLock`] keeps the record in a Lease through
//!   `kinformer_api::Api<Lease>`; [`MemoryLeaseLock`] in memory.
//!
//! # How it decides
//! A candidate reads the lease every retry period (plus up to 120 % jitter). A lease held by
//! another is valid for `leaseDurationSeconds` after the candidate *observed* it change, by
//! its own monotonic clock: `renewTime` is written (the writer's wall clock, as client-go
//! writes it) but never compared with the local clock, so clock skew between machines does
//! not matter. A candidate takes an expired or released lease by an update based on the
//! resourceVersion it read; if another wrote in between, the API server answers 409 and the
//! candidate tries again later. The leader renews every retry period; when no renewal
//! succeeds within the renew deadline it stops leading (its token fires) while the lease is
//! still valid for everyone else.
//!
//! # Compared with client-go
//! The same algorithm, lease fields, defaults and config checks. Differences, each on the
//! side of safety:
//! - The leader also stops leading at most `renew_deadline + retry_period`, and never more
//!   than a lease duration, after its last successful renewal was *sent*. client-go counts the
//!   renew deadline from the start of a renew round, which begins a retry period after the
//!   last renewal *returned*, so an answer delayed by a stalled server stretches its
//!   leadership past the moment the others may take over.
//! - Each acquire attempt is bounded by the renew deadline (client-go relies on the HTTP
//!   client's timeout).
//! - `run` waits for the leader's work to return before it releases the lease and calls
//!   `on_stopped_leading` (client-go releases while `OnStartedLeading`'s goroutine may still
//!   run), and a release only empties a lease this candidate still holds.
//! - A renewal always moves `renewTime` forward, so the API server never answers it as a
//!   no-op that other candidates would not see.
//! - Only the Lease lock exists; coordinated leader election (`LeaseCandidate`) and the
//!   health-check watchdog are not implemented.
//!
//! kube-rs has no leader election of its own; crates built on it hold a Lease with loops of
//! their own, often comparing `renewTime` with the local wall clock (which clock skew breaks)
//! and leaving the step-down to the caller.
//!
//! # Examples
//! Two replicas of a controller elect a leader through the API server; the leader shuts down
//! and releases the lease, and the other takes over at its next attempt.
//! ```
//! use std::time::Duration;
//! use kinformer_leaderelection::{Callbacks, Config, LeaderElector, RestLeaseLock};
//! use tokio_util::sync::CancellationToken;
//!
//! # #[tokio::main(flavor = "current_thread", start_paused = true)]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let sim = kinformer_sim::Sim::builder().start().await?;
//! let replica = |identity: &str| -> Result<_, kinformer_leaderelection::Error> {
//!     let client = kinformer_rest::Client::new(sim.service());
//!     let lock = RestLeaseLock::new(client, "kube-system", "my-controller")?;
//!     let callbacks = Callbacks::new(|leading: CancellationToken| async move {
//!         // The controller's work: it runs until leadership ends.
//!         leading.cancelled().await;
//!     })
//!     .on_new_leader(|identity| eprintln!("the leader is now {identity:?}"));
//!     let config = Config::default().with_release_on_cancel(true);
//!     LeaderElector::new(lock, identity, config, callbacks)
//! };
//! let (a, b) = (replica("replica-a")?, replica("replica-b")?);
//!
//! // Each replica stands until shut down, and stands again whenever it loses the lease.
//! let stand = |elector: LeaderElector<RestLeaseLock>, shutdown: CancellationToken| {
//!     tokio::spawn(async move {
//!         while !shutdown.is_cancelled() {
//!             elector.run(shutdown.clone()).await;
//!         }
//!     })
//! };
//! let (shutdown_a, shutdown_b) = (CancellationToken::new(), CancellationToken::new());
//! let replica_a = stand(a.clone(), shutdown_a.clone());
//! tokio::time::sleep(Duration::from_secs(1)).await;
//! let replica_b = stand(b.clone(), shutdown_b.clone());
//! tokio::time::sleep(Duration::from_secs(60)).await;
//! assert!(a.is_leader());
//! assert_eq!(b.leader().as_deref(), Some("replica-a"));
//!
//! shutdown_a.cancel();
//! replica_a.await?;
//! tokio::time::sleep(Duration::from_secs(5)).await;
//! assert!(b.is_leader());
//! shutdown_b.cancel();
//! replica_b.await?;
//! # Ok(()) }
//! ```
//!
//! [`CancellationToken`]: tokio_util::sync::CancellationToken

#![doc(test(attr(deny(warnings))))]

mod attempt;
mod callbacks;
mod config;
mod elector;
mod error;
mod lock;
mod memory;
mod observed;
mod record;
mod rest_lock;
#[cfg(test)]
mod test_util;

pub use callbacks::Callbacks;
pub use config::{Config, JITTER_FACTOR};
pub use elector::LeaderElector;
pub use error::{Error, Result};
pub use lock::{LeaseLock, VersionedRecord};
pub use memory::MemoryLeaseLock;
pub use record::LeaderElectionRecord;
pub use rest_lock::RestLeaseLock;
