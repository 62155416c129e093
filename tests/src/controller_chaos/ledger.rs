//! The ledger every replica's reconciles report to: which keys are being reconciled and by
//! whom (two at once of one key is a violation, across replicas too), and whether each write
//! was sent and answered while the Lease named its replica as a live holder.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use k8s_openapi::api::coordination::v1::Lease;
use kinformer_sim::SimHandle;

/// The Lease the replicas stand for.
pub const LEASE_NAMESPACE: &str = "default";
/// Its name.
pub const LEASE_NAME: &str = "chaos-controller";

#[derive(Debug, Default)]
struct State {
    running: HashMap<String, String>,
    violations: Vec<String>,
    reconciles: u64,
    writes: u64,
    reconcilers: BTreeSet<String>,
    /// Per key: reconciles begun, and the last one's error (none once one succeeded).
    keys: HashMap<String, (u64, Option<String>)>,
}

/// What the reconciles of one run reported.
#[derive(Debug, Default)]
pub struct Ledger {
    state: Mutex<State>,
}

/// A reconcile under way; dropping it (finished, failed or cancelled) ends it.
#[derive(Debug)]
pub struct Running {
    ledger: Arc<Ledger>,
    key: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.ledger.lock().running.remove(&self.key);
    }
}

impl Ledger {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking reconcile poisons nothing the ledger relies on: its fields stay valid.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `identity` starts reconciling `key`; a reconcile of `key` already under way anywhere is
    /// recorded as a violation.
    pub fn begin(self: &Arc<Self>, key: &str, identity: &str) -> Running {
        let mut state = self.lock();
        state.reconciles += 1;
        state.reconcilers.insert(identity.to_owned());
        state.keys.entry(key.to_owned()).or_default().0 += 1;
        if let Some(other) = state.running.insert(key.to_owned(), identity.to_owned()) {
            state.violations.push(format!(
                "{identity} began reconciling {key} while {other} was reconciling it"
            ));
        }
        Running {
            ledger: Arc::clone(self),
            key: key.to_owned(),
        }
    }

    /// Checks, against the sim's own store, that `identity` holds the Lease and that it has
    /// not expired; records a violation naming `what` otherwise. A new leader can take the
    /// Lease only once it expired, so a write checked before it is sent and after it is
    /// answered was made while its replica led.
    pub async fn check_leading(&self, sim: &SimHandle, identity: &str, what: &str) {
        let verdict = leading(sim, identity).await;
        let mut state = self.lock();
        match verdict {
            Ok(()) => state.writes += 1,
            Err(why) => state
                .violations
                .push(format!("{identity} {what} while {why}")),
        }
    }

    /// How a reconcile of `key` ended: `None` when it succeeded, its error otherwise.
    pub fn ended(&self, key: &str, error: Option<String>) {
        self.lock().keys.entry(key.to_owned()).or_default().1 = error;
    }

    /// What the ledger knows of `key`, for a failure's message: how often it was reconciled and
    /// how the last reconcile failed.
    pub fn history(&self, key: &str) -> String {
        match self.lock().keys.get(key) {
            None => "never reconciled".to_owned(),
            Some((n, None)) => format!("reconciled {n} times, the last succeeded"),
            Some((n, Some(e))) => format!("reconciled {n} times, the last failed: {e}"),
        }
    }

    /// Every violation seen: overlapping reconciles and writes by a replica not leading.
    pub fn violations(&self) -> Vec<String> {
        self.lock().violations.clone()
    }

    /// Reconciles begun.
    pub fn reconciles(&self) -> u64 {
        self.lock().reconciles
    }

    /// Lease checks that passed (two per write).
    pub fn checked_writes(&self) -> u64 {
        self.lock().writes
    }

    /// The key reconciled most often, and how often.
    pub fn hottest(&self) -> Option<(String, u64)> {
        self.lock()
            .keys
            .iter()
            .max_by_key(|(_, (n, _))| *n)
            .map(|(key, (n, _))| (key.clone(), *n))
    }

    /// Replicas that reconciled anything.
    pub fn reconcilers(&self) -> usize {
        self.lock().reconcilers.len()
    }
}

/// Who holds the Lease now, by the sim's store.
pub async fn holder(sim: &SimHandle) -> Option<String> {
    lease(sim)
        .await
        .and_then(|l| l.spec)
        .and_then(|s| s.holder_identity)
        .filter(|h| !h.is_empty())
}

async fn lease(sim: &SimHandle) -> Option<Lease> {
    let state = sim.state("leases", false).await.ok()?;
    state
        .items
        .into_iter()
        .find(|l| {
            l["metadata"]["namespace"] == LEASE_NAMESPACE && l["metadata"]["name"] == LEASE_NAME
        })
        .and_then(|l| serde_json::from_value(l).ok())
}

async fn leading(sim: &SimHandle, identity: &str) -> Result<(), String> {
    let spec = lease(sim)
        .await
        .and_then(|l| l.spec)
        .ok_or("there was no Lease")?;
    let holder = spec.holder_identity.unwrap_or_default();
    if holder != identity {
        return Err(format!("the Lease named {holder:?}"));
    }
    let renewed = spec
        .renew_time
        .map(|t| t.0)
        .ok_or("the Lease had no renewTime")?;
    let seconds = i64::from(spec.lease_duration_seconds.unwrap_or(0));
    let expires = renewed.as_microsecond() + seconds * 1_000_000;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_err(|e| format!("reading the clock: {e}"))?;
    let now = i64::try_from(now.as_micros()).unwrap_or(i64::MAX);
    if now >= expires {
        return Err(format!(
            "its Lease had expired (renewed {renewed}, for {seconds}s, {} ms ago)",
            (now - renewed.as_microsecond()) / 1000
        ));
    }
    Ok(())
}
