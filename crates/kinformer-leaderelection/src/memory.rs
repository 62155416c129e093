//! [`MemoryLeaseLock`]: a lease in memory, shared by clones.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::error::{Error, Result};
use crate::lock::{LeaseLock, VersionedRecord};
use crate::record::LeaderElectionRecord;

/// A lease held in memory with the API server's write rules: a create fails if the lease
/// exists, an update needs the current resourceVersion, a write that changes the record moves
/// it, and one that changes nothing writes nothing. Clones share the lease, so candidates in
/// one process (tests, examples) can elect over it.
///
/// # Examples
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use kinformer_leaderelection::{Error, LeaderElectionRecord, LeaseLock, MemoryLeaseLock};
///
/// let lock = MemoryLeaseLock::new("kube-system/example");
/// assert!(lock.get().await.unwrap().is_none());
/// let record = LeaderElectionRecord { holder_identity: Some("a".into()), ..Default::default() };
/// let created = lock.create(&record).await.unwrap();
/// assert!(matches!(lock.update(&record, "stale").await, Err(Error::Conflict)));
/// lock.update(&record, &created.resource_version).await.unwrap();
/// assert_eq!(lock.current(), Some(created));
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct MemoryLeaseLock {
    name: Arc<str>,
    lease: Arc<Mutex<Stored>>,
}

#[derive(Debug, Default)]
struct Stored {
    current: Option<VersionedRecord>,
    revision: u64,
}

impl Stored {
    /// Stores `record` as the lease's next revision, as a create or an update does.
    fn write(&mut self, record: &LeaderElectionRecord) -> VersionedRecord {
        self.revision += 1;
        let written = VersionedRecord {
            record: record.clone(),
            resource_version: self.revision.to_string(),
        };
        self.current = Some(written.clone());
        written
    }
}

impl MemoryLeaseLock {
    /// An absent lease, named `name` in logs.
    pub fn new(name: impl Into<Arc<str>>) -> Self {
        Self {
            name: name.into(),
            lease: Arc::default(),
        }
    }

    /// The stored record, read without a future (for assertions).
    pub fn current(&self) -> Option<VersionedRecord> {
        self.stored().current.clone()
    }

    fn stored(&self) -> MutexGuard<'_, Stored> {
        // Every critical section leaves `Stored` consistent, so a poisoned lock is usable.
        self.lease.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl LeaseLock for MemoryLeaseLock {
    async fn get(&self) -> Result<Option<VersionedRecord>> {
        Ok(self.current())
    }

    async fn create(&self, record: &LeaderElectionRecord) -> Result<VersionedRecord> {
        let mut stored = self.stored();
        if stored.current.is_some() {
            return Err(Error::Conflict);
        }
        Ok(stored.write(record))
    }

    async fn update(
        &self,
        record: &LeaderElectionRecord,
        resource_version: &str,
    ) -> Result<VersionedRecord> {
        let mut stored = self.stored();
        let Some(current) = &stored.current else {
            return Err(Error::NotFound);
        };
        if current.resource_version != resource_version {
            return Err(Error::Conflict);
        }
        if current.record == *record {
            return Ok(current.clone());
        }
        Ok(stored.write(record))
    }

    fn describe(&self) -> String {
        self.name.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn follows_the_api_servers_write_rules() {
        let lock = MemoryLeaseLock::new("ns/lease");
        let a = LeaderElectionRecord {
            holder_identity: Some("a".into()),
            ..LeaderElectionRecord::default()
        };
        assert!(matches!(lock.update(&a, "1").await, Err(Error::NotFound)));
        let created = lock.create(&a).await.unwrap();
        assert!(matches!(lock.create(&a).await, Err(Error::Conflict)));
        // Nothing changes: nothing is written, the version stays.
        assert_eq!(
            lock.update(&a, &created.resource_version).await.unwrap(),
            created
        );
        let b = LeaderElectionRecord {
            holder_identity: Some("b".into()),
            ..a.clone()
        };
        let updated = lock.update(&b, &created.resource_version).await.unwrap();
        assert_ne!(updated.resource_version, created.resource_version);
        assert!(matches!(
            lock.update(&a, &created.resource_version).await,
            Err(Error::Conflict)
        ));
        assert_eq!(lock.clone().current(), Some(updated));
        assert_eq!(lock.describe(), "ns/lease");
    }
}
