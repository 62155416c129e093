//! Five candidates elect a leader through the simulated API server while it stalls, fails
//! writes and restarts, the network partitions them and answers late, candidate processes die
//! and come back, and the paused clock jumps; 200 seeded schedules.
//!
//! A checker counts the candidates that believe they lead (from `on_started_leading` until
//! their token fires) and fails on two at once. After the faults end, the leader is killed
//! without releasing, and a successor must lead within a lease duration plus one (jittered)
//! retry period of the moment the survivors could see that the lease had stopped changing.

mod network;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use kinformer_leaderelection::{
    Callbacks, Config, JITTER_FACTOR, LeaderElectionRecord, LeaderElector, LeaseLock,
    RestLeaseLock, Result, VersionedRecord,
};
use kinformer_sim::{Fault, FaultKind, Sim, SimHandle};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep};
use tokio_util::sync::CancellationToken;

use crate::network::{Link, Network};

const CANDIDATES: usize = 5;
const SCHEDULES: u64 = 200;
const CHAOS: Duration = Duration::from_secs(120);

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A failed assertion poisons the checker; the beliefs still end as tasks drop.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A read: when it returned, to whom, and what it said.
#[derive(Debug)]
struct Read {
    at: Instant,
    who: usize,
    resource_version: u64,
    holder: Option<String>,
}

/// The Lease through the REST client, with every successful read logged.
#[derive(Debug)]
struct LoggedLock {
    lease: RestLeaseLock,
    who: usize,
    reads: Arc<Mutex<Vec<Read>>>,
}

impl LeaseLock for LoggedLock {
    async fn get(&self) -> Result<Option<VersionedRecord>> {
        let current = self.lease.get().await?;
        if let Some(current) = &current {
            lock(&self.reads).push(Read {
                at: Instant::now(),
                who: self.who,
                resource_version: current.resource_version.parse().unwrap(),
                holder: current.record.holder_identity.clone(),
            });
        }
        Ok(current)
    }

    async fn create(&self, record: &LeaderElectionRecord) -> Result<VersionedRecord> {
        self.lease.create(record).await
    }

    async fn update(
        &self,
        record: &LeaderElectionRecord,
        version: &str,
    ) -> Result<VersionedRecord> {
        self.lease.update(record, version).await
    }

    fn describe(&self) -> String {
        self.lease.describe()
    }
}

/// Who believes they lead, checked at every change.
#[derive(Debug, Default)]
struct Checker {
    believers: BTreeSet<usize>,
    violations: Vec<String>,
    elections: Vec<(Instant, usize)>,
}

/// Ends a belief when the leader's work stops: its token fired, or it was dropped with `run`.
struct Belief(Arc<Mutex<Checker>>, usize);

impl Drop for Belief {
    fn drop(&mut self) {
        lock(&self.0).believers.remove(&self.1);
    }
}

/// One schedule's world: the sim, the network, the checker and the read log.
struct World {
    sim: Arc<SimHandle>,
    network: Arc<Mutex<Network>>,
    checker: Arc<Mutex<Checker>>,
    reads: Arc<Mutex<Vec<Read>>>,
    /// The API server's faults in force, each with an id for its removal.
    server_faults: Arc<Mutex<Vec<(u64, Fault)>>>,
    seed: u64,
}

impl World {
    /// A candidate process: a fresh elector that stands again whenever it loses.
    fn spawn_candidate(&self, who: usize, incarnation: u64) -> JoinHandle<()> {
        let link = Link {
            sim: self.sim.service(),
            network: self.network.clone(),
            who,
        };
        let client = kinformer_rest::Client::new(link);
        let lease = LoggedLock {
            lease: RestLeaseLock::new(client, "kube-system", "chaos").unwrap(),
            who,
            reads: self.reads.clone(),
        };
        let checker = self.checker.clone();
        let callbacks = Callbacks::new(move |token: CancellationToken| {
            let checker = checker.clone();
            async move {
                {
                    let mut c = lock(&checker);
                    c.believers.insert(who);
                    c.elections.push((Instant::now(), who));
                    if c.believers.len() > 1 {
                        let msg = format!("{:?} lead at once at {:?}", c.believers, Instant::now());
                        c.violations.push(msg);
                    }
                }
                let _belief = Belief(checker, who);
                token.cancelled().await;
            }
        });
        let identity = format!("candidate-{who}");
        let elector = LeaderElector::new(lease, identity, Config::default(), callbacks)
            .unwrap()
            .with_jitter_seed(self.seed * 1_000 + incarnation * 10 + who as u64);
        tokio::spawn(async move {
            loop {
                elector.run(CancellationToken::new()).await;
            }
        })
    }

    /// Puts `fault` on the API server for `lasting`.
    async fn server_fault(&self, id: u64, fault: Fault, lasting: Duration) {
        lock(&self.server_faults).push((id, fault));
        sync_faults(&self.sim, &self.server_faults).await;
        let (sim, faults) = (self.sim.clone(), self.server_faults.clone());
        tokio::spawn(async move {
            sleep(lasting).await;
            lock(&faults).retain(|(i, _)| *i != id);
            sync_faults(&sim, &faults).await;
        });
    }
}

async fn sync_faults(sim: &SimHandle, faults: &Mutex<Vec<(u64, Fault)>>) {
    let active: Vec<Fault> = lock(faults).iter().map(|(_, f)| f.clone()).collect();
    sim.clear_faults().await;
    sim.add_faults(active).await;
}

/// One schedule; returns how long after the leader's death a successor led, and how many
/// times a candidate started leading before that.
async fn schedule(seed: u64) -> (Duration, usize) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let world = World {
        sim: Arc::new(Sim::builder().seed(seed).start().await.unwrap()),
        network: Arc::new(Mutex::new(Network::new(!seed))),
        checker: Arc::default(),
        reads: Arc::default(),
        server_faults: Arc::default(),
        seed,
    };
    let mut candidates: Vec<_> = (0..CANDIDATES)
        .map(|who| world.spawn_candidate(who, 0))
        .collect();

    let chaos_end = Instant::now() + CHAOS;
    let mut step = 0;
    while Instant::now() < chaos_end {
        step += 1;
        sleep(Duration::from_millis(rng.random_range(500..8_000))).await;
        let lasting =
            |rng: &mut SmallRng, max_ms| Duration::from_millis(rng.random_range(1_000..max_ms));
        match rng.random_range(0..8) {
            0 => {
                // The API server stalls: every lease request waits before it is served.
                let seconds = rng.random_range(0.5..20.0);
                let stall = Fault::new(FaultKind::Delay { seconds })
                    .count(-1)
                    .resources(["leases"]);
                world
                    .server_fault(step, stall, lasting(&mut rng, 25_000))
                    .await;
            }
            1 => {
                let fail = Fault::new(FaultKind::status(500))
                    .count(-1)
                    .verbs(["create", "update"]);
                world
                    .server_fault(step, fail, lasting(&mut rng, 20_000))
                    .await;
            }
            2 => lock(&world.network).restart(Duration::from_millis(rng.random_range(0..3_000))),
            3 | 4 => {
                // Some candidates are cut off, or their requests get lost or answered late.
                let until = Instant::now() + lasting(&mut rng, 25_000);
                let lossy = rng.random_bool(0.5);
                let mut network = lock(&world.network);
                for who in (0..CANDIDATES).filter(|_| rng.random_bool(0.5)) {
                    if lossy {
                        network.lossy_until[who] = until;
                    } else {
                        network.partitioned_until[who] = until;
                    }
                }
            }
            5 => {
                // A candidate process dies (no release) and comes back with fresh state.
                let who = rng.random_range(0..CANDIDATES);
                candidates[who].abort();
                sleep(Duration::from_millis(rng.random_range(0..5_000))).await;
                candidates[who] = world.spawn_candidate(who, step);
            }
            6 => {
                // The clock jumps. Below the margin between the lease duration and the
                // leader's renew deadline plus retry period: a pause longer than that fires
                // the old leader's deadline and the others' expiry in one instant, in an
                // order no elector controls (the limit of every lease without fencing).
                tokio::time::advance(Duration::from_millis(rng.random_range(0..2_500))).await;
            }
            _ => {}
        }
    }

    // The faults end; a leader emerges and renews (late writes may still land for 25 s).
    lock(&world.server_faults).clear();
    world.sim.clear_faults().await;
    lock(&world.network).heal();
    sleep(Duration::from_secs(60)).await;
    let (leader, elections) = {
        let c = lock(&world.checker);
        assert!(c.violations.is_empty(), "seed {seed}: {:?}", c.violations);
        assert_eq!(
            c.believers.len(),
            1,
            "seed {seed}: no single leader after the faults ended"
        );
        (*c.believers.first().unwrap(), c.elections.len())
    };

    // The leader dies without releasing.
    candidates[leader].abort();
    let died = Instant::now();
    let successor = loop {
        sleep(Duration::from_millis(100)).await;
        if let Some(&(at, _)) = lock(&world.checker)
            .elections
            .last()
            .filter(|(at, _)| *at > died)
        {
            break at;
        }
        assert!(
            Instant::now() - died < Duration::from_secs(60),
            "seed {seed}: no successor"
        );
    };

    // The last record naming the dead leader, and when a survivor first read it.
    let identity = format!("candidate-{leader}");
    let first_seen = {
        let reads = lock(&world.reads);
        let survivors = || {
            reads
                .iter()
                .filter(|r| r.who != leader && r.holder.as_deref() == Some(identity.as_str()))
        };
        let last = survivors().map(|r| r.resource_version).max().unwrap();
        survivors()
            .filter(|r| r.resource_version == last)
            .map(|r| r.at)
            .min()
            .unwrap()
    };
    let config = Config::default();
    let jittered_retry = config.retry_period().mul_f64(1.0 + JITTER_FACTOR);
    // A lease duration after a survivor saw the last renewal, its next attempt (at most one
    // jittered retry period later) finds the lease expired.
    assert!(
        successor - first_seen <= config.lease_duration() + jittered_retry,
        "seed {seed}: a successor {:?} after the last renewal was seen",
        successor - first_seen
    );
    let failover = successor - died;
    // From the death itself, add the wait until a survivor reads that renewal.
    assert!(
        failover <= config.lease_duration() + jittered_retry * 2,
        "seed {seed}: {failover:?}"
    );

    assert!(lock(&world.checker).violations.is_empty(), "seed {seed}");
    candidates.iter().for_each(JoinHandle::abort);
    (failover, elections)
}

#[test]
fn never_two_leaders_and_a_dead_leader_is_replaced_in_time_over_200_schedules() {
    let (mut failovers, elections): (Vec<Duration>, Vec<usize>) = (0..SCHEDULES)
        .map(|seed| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .start_paused(true)
                .build()
                .unwrap();
            runtime.block_on(schedule(seed))
        })
        .unzip();
    // The faults must have moved the lease around, or the schedules tested little.
    let terms: usize = elections.iter().sum();
    assert!(
        terms >= 3 * SCHEDULES as usize,
        "{terms} terms in {SCHEDULES} schedules"
    );
    failovers.sort();
    let config = Config::default();
    let within = failovers
        .iter()
        .filter(|f| **f <= config.lease_duration() + config.retry_period());
    eprintln!(
        "{terms} terms of leadership before the kills; failover after a kill: median {:?}, \
         max {:?}, {} of {SCHEDULES} within a lease duration and a retry period",
        failovers[failovers.len() / 2],
        failovers.last().unwrap(),
        within.count(),
    );
}
