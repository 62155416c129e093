//! Test helpers: an in-memory lease with injected faults, and candidates whose callbacks
//! report to a channel.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::callbacks::Callbacks;
use crate::config::Config;
use crate::elector::LeaderElector;
use crate::error::{Error, Result};
use crate::lock::{LeaseLock, VersionedRecord};
use crate::memory::MemoryLeaseLock;
use crate::record::{LeaderElectionRecord, wall_now};

/// An in-memory lease whose writes can be made to fail, to answer late (after they were
/// applied), or to lose the race with a renewal still in flight when releasing.
#[derive(Clone, Debug)]
pub(crate) struct Flaky {
    pub(crate) lease: MemoryLeaseLock,
    pub(crate) fail_writes: Arc<AtomicBool>,
    pub(crate) answer_delay: Arc<Mutex<Duration>>,
    /// When each update whose answer arrived was sent.
    pub(crate) answered: Arc<Mutex<Vec<Instant>>>,
    pub(crate) race_next_release: Arc<AtomicBool>,
    pub(crate) release_attempts: Arc<AtomicUsize>,
}

impl Flaky {
    pub(crate) fn new() -> Self {
        Self {
            lease: MemoryLeaseLock::new("ns/lease"),
            fail_writes: Arc::default(),
            answer_delay: Arc::default(),
            answered: Arc::default(),
            race_next_release: Arc::default(),
            release_attempts: Arc::default(),
        }
    }

    fn check(&self) -> Result<()> {
        if self.fail_writes.load(Ordering::SeqCst) {
            let status = Status {
                code: Some(500),
                ..Status::default()
            };
            let answer = kinformer_rest::Error::from_status(status);
            return Err(Error::Request(kinformer_api::Error::from_rest(answer)));
        }
        Ok(())
    }
}

impl LeaseLock for Flaky {
    async fn get(&self) -> Result<Option<VersionedRecord>> {
        self.lease.get().await
    }
    async fn create(&self, record: &LeaderElectionRecord) -> Result<VersionedRecord> {
        self.check()?;
        self.lease.create(record).await
    }
    async fn update(&self, record: &LeaderElectionRecord, rv: &str) -> Result<VersionedRecord> {
        let sent = Instant::now();
        self.check()?;
        if record.holder_identity.is_none() {
            self.release_attempts.fetch_add(1, Ordering::SeqCst);
            if self.race_next_release.swap(false, Ordering::SeqCst) {
                // A renewal sent before the release lands first.
                let mut renewal = self.lease.current().unwrap();
                renewal.record.renew_time = Some(wall_now());
                self.lease
                    .update(&renewal.record, &renewal.resource_version)
                    .await?;
            }
        }
        let written = self.lease.update(record, rv).await?;
        let delay = *self.answer_delay.lock().unwrap();
        tokio::time::sleep(delay).await;
        self.answered.lock().unwrap().push(sent);
        Ok(written)
    }
    fn describe(&self) -> String {
        self.lease.describe()
    }
}

#[derive(Debug, PartialEq)]
pub(crate) enum Event {
    Started,
    TokenFired,
    Stopped,
    NewLeader(String),
    NoLeader,
}

/// A candidate whose callbacks report to a channel, with the instant of each report.
pub(crate) fn candidate<L: LeaseLock>(
    lock: L,
    id: &str,
    config: Config,
) -> (LeaderElector<L>, mpsc::UnboundedReceiver<(Instant, Event)>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let (started, stopped, new_leader) = (tx.clone(), tx.clone(), tx);
    let callbacks = Callbacks::new(move |token: CancellationToken| {
        let tx = started.clone();
        async move {
            let _ = tx.send((Instant::now(), Event::Started));
            token.cancelled().await;
            let _ = tx.send((Instant::now(), Event::TokenFired));
        }
    })
    .on_stopped_leading(move || {
        let _ = stopped.send((Instant::now(), Event::Stopped));
    })
    .on_new_leader(move |id| {
        let event = id.map_or(Event::NoLeader, |id| Event::NewLeader(id.to_owned()));
        let _ = new_leader.send((Instant::now(), event));
    });
    let elector = LeaderElector::new(lock, id, config, callbacks).unwrap();
    (elector.with_jitter_seed(7), rx)
}

pub(crate) fn spawn_run<L: LeaseLock>(
    elector: &LeaderElector<L>,
    cancel: &CancellationToken,
) -> tokio::task::JoinHandle<()> {
    let (elector, cancel) = (elector.clone(), cancel.clone());
    tokio::spawn(async move { elector.run(cancel).await })
}

pub(crate) fn held_by(holder: &str, transitions: i32) -> LeaderElectionRecord {
    LeaderElectionRecord {
        holder_identity: Some(holder.into()),
        lease_duration_seconds: 15,
        acquire_time: Some(wall_now()),
        renew_time: Some(wall_now()),
        leader_transitions: transitions,
    }
}
