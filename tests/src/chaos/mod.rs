//! The chaos convergence engine: seeded schedules of churn and faults against informers, each
//! ending with a check that the cache and every handler equal the server's ground truth.
//!
//! A [`Schedule`] is drawn entirely from its seed: the informer mode (the seed's low three bits:
//! streaming list or list+watch, DeltaFIFO or in-order queue, with or without a label selector),
//! the pod count, churn rate and mix, and a time-ordered list of faults holding every kind in the
//! [fault catalog](fault::KINDS) at least once. [`run`] plays it against a fresh sim over real
//! HTTP, stops faults and churn, and gives the informer [`CONVERGENCE_LIMIT`] to match the truth.
//! A failure names its seed and the command that replays it.

pub mod fault;
pub mod plan;
pub mod recorder;
pub mod rng;
pub mod runner;
pub mod truth;

pub use plan::{Mode, Profile, Schedule};
pub use runner::{CHAOS_BACKOFF, CONVERGENCE_LIMIT, Failure, Outcome, run};

use std::time::Instant;

/// The result of one schedule, ready to print.
#[derive(Debug, Clone)]
pub struct Report {
    /// The schedule.
    pub schedule: Schedule,
    /// What happened.
    pub result: Result<Outcome, Failure>,
    /// Wall time of the whole schedule, seconds.
    pub seconds: f64,
}

impl Report {
    /// Whether it passed.
    pub fn passed(&self) -> bool {
        self.result.is_ok()
    }

    /// One line: seed, mode, events, relists, watches and time to converge; or the failure
    /// with its replay command.
    pub fn line(&self) -> String {
        let s = &self.schedule;
        match &self.result {
            Ok(o) => format!(
                "ok   seed={} mode={} pods={} objects={} faults={} unfired={:?} events={} lists={} relists={} watches={} handler-events={}/{} deletes={} tombstones={} converged={:.2}s wall={:.1}s",
                s.seed,
                s.mode,
                s.pods,
                o.objects,
                o.faults,
                o.unfired,
                o.events,
                o.lists,
                o.relists,
                o.watches,
                o.handler_events.0,
                o.handler_events.1,
                o.deletes.0,
                o.deletes.1,
                o.converged_in.as_secs_f64(),
                self.seconds,
            ),
            Err(e) => format!(
                "FAIL seed={} mode={} pods={}: {e}\n     replay: {}",
                s.seed,
                s.mode,
                s.pods,
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
