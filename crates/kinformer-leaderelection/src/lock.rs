//! [`LeaseLock`]: the three calls an elector makes on its lease.

use std::future::Future;

use crate::error::Result;
use crate::record::LeaderElectionRecord;

/// A record as stored, with the resourceVersion a later update must be based on.
///
/// ```
/// use kinformer_leaderelection::{LeaderElectionRecord, VersionedRecord};
///
/// let stored = VersionedRecord {
///     record: LeaderElectionRecord { holder_identity: Some("a".into()), ..Default::default() },
///     resource_version: "42".into(),
/// };
/// assert_eq!(stored.record.holder_identity.as_deref(), Some("a"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionedRecord {
    /// The election fields.
    pub record: LeaderElectionRecord,
    /// The lease's `metadata.resourceVersion`.
    pub resource_version: String,
}

/// Where the election record lives (client-go `resourcelock.Interface`, reduced to storage):
/// a read, a create, and an update that succeeds only if the lease is still at the given
/// resourceVersion. That precondition is what makes the election safe: a candidate takes the
/// lease only by a write based on the version it saw expire.
///
/// [`RestLeaseLock`](crate::RestLeaseLock) keeps the record in a `coordination.k8s.io/v1`
/// Lease; [`MemoryLeaseLock`](crate::MemoryLeaseLock) in memory, for tests and examples. An
/// implementation of its own (to inject faults, say) must keep the API server's write rules:
/// every write that changes the record moves the resourceVersion, and a stale one is refused.
///
/// # Examples
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use kinformer_leaderelection::{Error, LeaderElectionRecord, LeaseLock, RestLeaseLock};
///
/// let sim = kinformer_sim::Sim::builder().start().await?;
/// let lock = RestLeaseLock::new(kinformer_rest::Client::new(sim.service()), "default", "demo")?;
/// let a = LeaderElectionRecord { holder_identity: Some("a".into()), lease_duration_seconds: 15, ..Default::default() };
/// let created = lock.create(&a).await?;
/// assert_eq!(lock.get().await?, Some(created.clone()));
/// let b = LeaderElectionRecord { holder_identity: Some("b".into()), ..a.clone() };
/// let taken = lock.update(&b, &created.resource_version).await?;
/// assert_ne!(taken.resource_version, created.resource_version);
/// // An update based on the version before is refused.
/// assert!(matches!(lock.update(&a, &created.resource_version).await, Err(Error::Conflict)));
/// # Ok(()) }
/// ```
#[doc(alias = "Interface")]
pub trait LeaseLock: Send + Sync + 'static {
    /// The current record, or `None` when the lease does not exist.
    fn get(&self) -> impl Future<Output = Result<Option<VersionedRecord>>> + Send;

    /// Creates the lease; [`Error::Conflict`](crate::Error::Conflict) when it already exists.
    fn create(
        &self,
        record: &LeaderElectionRecord,
    ) -> impl Future<Output = Result<VersionedRecord>> + Send;

    /// Replaces the record if the lease is still at `resource_version`;
    /// [`Error::Conflict`](crate::Error::Conflict) when it is not,
    /// [`Error::NotFound`](crate::Error::NotFound) when the lease is gone.
    fn update(
        &self,
        record: &LeaderElectionRecord,
        resource_version: &str,
    ) -> impl Future<Output = Result<VersionedRecord>> + Send;

    /// The lease's name for logs, e.g. `kube-system/kube-scheduler`.
    fn describe(&self) -> String;
}
