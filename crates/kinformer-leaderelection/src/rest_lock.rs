//! [`RestLeaseLock`]: the record in a `coordination.k8s.io/v1` Lease through `Api<Lease>`.

use std::sync::{Arc, Mutex, PoisonError};

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kinformer_api::{Api, PostParams};
use kinformer_rest::Client;
use kinformer_selector::{is_dns1123_label, is_dns1123_subdomain};

use crate::error::{Error, Result};
use crate::lock::{LeaseLock, VersionedRecord};
use crate::record::LeaderElectionRecord;

/// A Lease in one namespace (client-go `resourcelock.LeaseLock`).
///
/// A create sends a new Lease with the record as its spec. An update sends the Lease as last
/// read or written, its spec replaced and its resourceVersion set to the one the elector
/// based the write on, so labels and annotations others put on it survive; the server
/// answers 409 ([`Error::Conflict`]) when that version is stale.
///
/// # Examples
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use kinformer_leaderelection::{LeaseLock, RestLeaseLock};
///
/// let sim = kinformer_sim::Sim::builder().start().await?;
/// let lock = RestLeaseLock::new(kinformer_rest::Client::new(sim.service()), "default", "example")?;
/// assert_eq!(lock.describe(), "default/example");
/// assert!(lock.get().await?.is_none());
/// # Ok(()) }
/// ```
#[doc(alias = "LeaseLock")]
#[derive(Clone, Debug)]
pub struct RestLeaseLock {
    leases: Api<Lease>,
    namespace: Arc<str>,
    name: Arc<str>,
    /// The Lease as last read or written: the base of the next update.
    last: Arc<Mutex<Option<Lease>>>,
}

impl RestLeaseLock {
    /// The Lease `namespace/name`, read and written through `client`.
    ///
    /// # Errors
    /// [`Error::InvalidLease`] when `namespace` is not a DNS-1123 label or `name` not a
    /// DNS-1123 subdomain, which the API server would refuse at every attempt.
    ///
    /// # Examples
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use kinformer_leaderelection::{Error, RestLeaseLock};
    ///
    /// let sim = kinformer_sim::Sim::builder().start().await?;
    /// let client = kinformer_rest::Client::new(sim.service());
    /// RestLeaseLock::new(client.clone(), "kube-system", "kube-scheduler")?;
    /// let Err(Error::InvalidLease(why)) = RestLeaseLock::new(client, "kube-system", "Bad/Name") else { panic!() };
    /// assert_eq!(why, "name must be a lower-case DNS-1123 subdomain");
    /// # Ok(()) }
    /// ```
    pub fn new(client: Client, namespace: &str, name: &str) -> Result<Self> {
        if !is_dns1123_label(namespace) {
            return Err(Error::InvalidLease(
                "namespace must be a lower-case DNS-1123 label",
            ));
        }
        if !is_dns1123_subdomain(name) {
            return Err(Error::InvalidLease(
                "name must be a lower-case DNS-1123 subdomain",
            ));
        }
        Ok(Self {
            leases: Api::namespaced(client, namespace),
            namespace: namespace.into(),
            name: name.into(),
            last: Arc::default(),
        })
    }

    fn remember(&self, lease: Lease) -> Result<VersionedRecord> {
        let versioned = versioned(&lease)?;
        *self.last.lock().unwrap_or_else(PoisonError::into_inner) = Some(lease);
        Ok(versioned)
    }

    fn new_lease(&self, record: &LeaderElectionRecord) -> Lease {
        Lease {
            metadata: ObjectMeta {
                name: Some(self.name.to_string()),
                namespace: Some(self.namespace.to_string()),
                ..ObjectMeta::default()
            },
            spec: Some(record.to_lease_spec()),
        }
    }

    fn updated_lease(&self, record: &LeaderElectionRecord, resource_version: &str) -> Lease {
        let last = self
            .last
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let mut lease = last.unwrap_or_else(|| self.new_lease(record));
        lease.metadata.resource_version = Some(resource_version.to_owned());
        lease.spec = Some(record.to_lease_spec());
        lease
    }
}

impl LeaseLock for RestLeaseLock {
    async fn get(&self) -> Result<Option<VersionedRecord>> {
        match self.leases.get_opt(&self.name).await {
            Ok(Some(lease)) => self.remember(lease).map(Some),
            Ok(None) => Ok(None),
            Err(e) => Err(Error::Request(e)),
        }
    }

    async fn create(&self, record: &LeaderElectionRecord) -> Result<VersionedRecord> {
        let lease = self.new_lease(record);
        let created = self
            .leases
            .create(&PostParams::default(), &lease)
            .await
            .map_err(Error::from_api)?;
        self.remember(created)
    }

    async fn update(
        &self,
        record: &LeaderElectionRecord,
        resource_version: &str,
    ) -> Result<VersionedRecord> {
        let lease = self.updated_lease(record, resource_version);
        let updated = self
            .leases
            .replace(&self.name, &PostParams::default(), &lease)
            .await
            .map_err(Error::from_api)?;
        self.remember(updated)
    }

    fn describe(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }
}

fn versioned(lease: &Lease) -> Result<VersionedRecord> {
    let Some(resource_version) = lease.metadata.resource_version.clone() else {
        return Err(Error::MissingResourceVersion);
    };
    let record = lease
        .spec
        .as_ref()
        .map(LeaderElectionRecord::from_lease_spec)
        .unwrap_or_default();
    Ok(VersionedRecord {
        record,
        resource_version,
    })
}
