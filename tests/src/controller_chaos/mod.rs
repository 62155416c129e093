//! The controller chaos engine: two replicas of Kubernetes' sample-controller on the runtime,
//! under leader election, against a sim that fails them in every way a cluster does (5xx,
//! conflicts, throttling, 410s, stalled and broken watches, restarts, a Lease outage that makes
//! the leader step down, a killed leader) while a user creates, edits and deletes Foos.
//!
//! A [`Schedule`] is drawn entirely from its seed. After the faults stop, every Foo must have
//! its Deployment and status within [`CONVERGENCE_LIMIT`]; and over the whole run, no key was
//! reconciled by two reconciles at once (in one replica or across two) and no write was sent
//! or answered while its replica was not the Lease's live holder (the [`ledger`] checks each
//! write against the sim's own store, before it is sent and after it is answered).

pub mod ledger;
pub mod plan;
pub mod replica;
pub mod runner;
pub mod truth;

pub use plan::{ControllerFault, KINDS, Schedule, Step};
pub use runner::{CONVERGENCE_LIMIT, Outcome, run};

use std::time::Instant;

use crate::chaos::Profile;

/// The result of one schedule, ready to print.
#[derive(Debug, Clone)]
pub struct Report {
    /// The schedule.
    pub schedule: Schedule,
    /// What happened.
    pub result: Result<Outcome, String>,
    /// Wall time of the whole schedule, seconds.
    pub seconds: f64,
}

impl Report {
    /// Whether it passed.
    pub fn passed(&self) -> bool {
        self.result.is_ok()
    }

    /// One line: seed, size, what the replicas did and the time to converge; or the failure
    /// with its replay command.
    pub fn line(&self) -> String {
        let s = &self.schedule;
        match &self.result {
            Ok(o) => format!(
                "ok   seed={} foos={}->{} steps={} faults={} unfired={:?} replicas={} reconcilers={} reconciles={} hottest={} checked-writes={} converged={:.2}s wall={:.1}s",
                s.seed,
                s.foos,
                o.foos,
                s.steps.len(),
                s.faults(),
                o.unfired,
                o.replicas,
                o.reconcilers,
                o.reconciles,
                o.hottest
                    .as_ref()
                    .map_or_else(|| "-".to_owned(), |(key, n)| format!("{key}x{n}")),
                o.checked_writes,
                o.converged_in.as_secs_f64(),
                self.seconds,
            ),
            Err(e) => format!(
                "FAIL seed={} foos={}: {e}\n     replay: {}",
                s.seed,
                s.foos,
                s.replay_command()
            ),
        }
    }
}

/// Runs the schedule of `seed` under `profile`.
pub async fn run_seed(seed: u64, profile: Profile) -> Report {
    let schedule = Schedule::new(seed, profile);
    let started = Instant::now();
    let result = run(&schedule).await;
    Report {
        schedule,
        result,
        seconds: started.elapsed().as_secs_f64(),
    }
}
