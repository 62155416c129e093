//! A controller chaos schedule: the Foos, the user's edits and the faults, each at its time,
//! drawn from the seed before anything starts.

use std::time::Duration;

use kinformer_sim::{DropMode, Fault, FaultKind};

use crate::chaos::Profile;
use crate::chaos::rng::Rng;

/// Every fault kind, by name; a full schedule draws each at least once.
pub const KINDS: &[&str] = &[
    "server-error",
    "conflict",
    "throttle",
    "expired-list",
    "expired-watch",
    "watch-stall",
    "drop-watches",
    "restart",
    "lease-outage",
    "kill-leader",
];

/// One fault of a schedule.
#[derive(Debug, Clone, PartialEq)]
pub enum ControllerFault {
    /// A rule for the next matching requests: 5xx, 409, 429 or 410 answers, stalled watches.
    /// `relist`: a rule for lists also ends every watch with a 410, so the informers list now
    /// (they list only then).
    Rule(Fault, bool),
    /// Breaks every open watch now.
    DropWatches(DropMode),
    /// Restarts the server on the same port, keeping the data; down this long.
    Restart(Duration),
    /// The Lease answers 503 to this many reads and writes: longer than the renew deadline,
    /// so the leader must step down while its lease still names it.
    LeaseOutage(i64),
    /// The leader's process dies: its tasks are dropped, its lease is not released, and a new
    /// replica starts in its place.
    KillLeader,
}

/// What happens at one moment of a schedule.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A user sets Foo `index`'s `spec.replicas`.
    Edit {
        /// Which Foo (of those created so far; a deleted one makes it a no-op).
        index: usize,
        /// The new replica count.
        replicas: u64,
    },
    /// A user creates the next Foo.
    Create,
    /// A user deletes Foo `index` (its Deployment goes with it, by garbage collection).
    Delete {
        /// Which Foo.
        index: usize,
    },
    /// A fault, with its kind's name (one of [`KINDS`]).
    Fault(&'static str, ControllerFault),
}

/// Everything one run does.
#[derive(Debug, Clone)]
pub struct Schedule {
    /// The seed it was drawn from.
    pub seed: u64,
    /// Its size.
    pub profile: Profile,
    /// Foos that exist before the replicas start.
    pub foos: usize,
    /// The steps, in time order, each with its offset from the start of the chaos phase.
    pub steps: Vec<(Duration, Step)>,
    /// How long the chaos phase lasts.
    pub chaos: Duration,
}

impl Schedule {
    /// The schedule of `seed` under `profile`.
    pub fn new(seed: u64, profile: Profile) -> Self {
        let mut rng = Rng::new(seed, 0x0c0a);
        let (foos, chaos_ms, faults, edits) = match profile {
            Profile::Ci => (
                rng.range(4, 8) as usize,
                rng.range(2500, 4000),
                rng.range(4, 6),
                rng.range(6, 12),
            ),
            Profile::Full => (
                rng.range(10, 30) as usize,
                rng.range(6000, 10_000),
                rng.range(10, 16),
                rng.range(20, 60),
            ),
        };
        let mut kinds: Vec<&'static str> = match profile {
            // Every kind at least once, then any.
            Profile::Full => KINDS.to_vec(),
            Profile::Ci => Vec::new(),
        };
        while (kinds.len() as u64) < faults {
            kinds.push(*rng.pick(KINDS));
        }
        rng.shuffle(&mut kinds);
        let mut steps: Vec<(Duration, Step)> = kinds
            .into_iter()
            // Faults land in the first 80% of the phase, so a rule has requests left to hit.
            .map(|kind| {
                (
                    at(&mut rng, chaos_ms * 4 / 5),
                    Step::Fault(kind, draw(kind, &mut rng)),
                )
            })
            .collect();
        let mut created = foos;
        for _ in 0..edits {
            let step = match rng.range(0, 9) {
                0 => {
                    created += 1;
                    Step::Create
                }
                1 => Step::Delete {
                    index: rng.range(0, created as u64 - 1) as usize,
                },
                _ => Step::Edit {
                    index: rng.range(0, created as u64 - 1) as usize,
                    replicas: rng.range(0, 5),
                },
            };
            steps.push((at(&mut rng, chaos_ms), step));
        }
        // Stable: a Create drawn before an Edit of its Foo stays before it at the same time.
        steps.sort_by_key(|(at, _)| *at);
        Self {
            seed,
            profile,
            foos,
            steps,
            chaos: Duration::from_millis(chaos_ms),
        }
    }

    /// How many faults it holds.
    pub fn faults(&self) -> usize {
        self.steps
            .iter()
            .filter(|(_, s)| matches!(s, Step::Fault(..)))
            .count()
    }

    /// The command that replays it.
    pub fn replay_command(&self) -> String {
        format!(
            "cargo xtask chaos --controller --profile {} --seed {} --schedules 1",
            self.profile.name(),
            self.seed
        )
    }
}

fn at(rng: &mut Rng, chaos_ms: u64) -> Duration {
    Duration::from_millis(rng.range(0, chaos_ms))
}

/// A fault of kind `kind` (one of [`KINDS`]) with parameters drawn from `rng`.
fn draw(kind: &str, rng: &mut Rng) -> ControllerFault {
    let resource = |rng: &mut Rng| *rng.pick(&["foos", "deployments"]);
    let rule = |kind: FaultKind, verbs: &[&str], resource: &str, count: u64| {
        ControllerFault::Rule(
            Fault::new(kind)
                .count(count as i64)
                .verbs(verbs.iter().copied())
                .resources([resource]),
            verbs.contains(&"list"),
        )
    };
    match kind {
        "server-error" => {
            let code = *rng.pick(&[500, 502, 503, 504]);
            let verb = *rng.pick(&["list", "watch", "patch"]);
            rule(
                FaultKind::status(code),
                &[verb],
                resource(rng),
                rng.range(1, 3),
            )
        }
        // A write that lost a race: the reconcile fails and is retried with backoff.
        "conflict" => rule(
            FaultKind::status(409),
            &["patch"],
            resource(rng),
            rng.range(1, 4),
        ),
        "throttle" => rule(
            FaultKind::Status {
                code: 429,
                retry_after: Some(1),
                plain_text: rng.chance(0.5),
                message: None,
            },
            &[*rng.pick(&["patch", "list"])],
            resource(rng),
            1,
        ),
        "expired-list" => rule(FaultKind::status(410), &["list"], resource(rng), 1),
        "expired-watch" => rule(FaultKind::status(410), &["watch"], resource(rng), 1),
        "watch-stall" => rule(
            FaultKind::WatchStall {
                after_events: rng.range(0, 5),
                seconds: rng.range(3, 15) as f64 / 10.0,
            },
            &["watch"],
            resource(rng),
            1,
        ),
        "drop-watches" => ControllerFault::DropWatches(match rng.range(0, 2) {
            0 => DropMode::Abrupt,
            1 => DropMode::Clean,
            _ => DropMode::Error410,
        }),
        "restart" => ControllerFault::Restart(Duration::from_millis(rng.range(50, 800))),
        "lease-outage" => ControllerFault::LeaseOutage(rng.range(25, 40) as i64),
        _ => ControllerFault::KillLeader,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_schedule_holds_every_fault_kind_and_stays_inside_its_phase() {
        for seed in 0..20 {
            let schedule = Schedule::new(seed, Profile::Full);
            let has = |f: fn(&ControllerFault) -> bool| {
                schedule
                    .steps
                    .iter()
                    .any(|(_, s)| matches!(s, Step::Fault(_, fault) if f(fault)))
            };
            assert!(has(|f| matches!(f, ControllerFault::KillLeader)));
            assert!(has(|f| matches!(f, ControllerFault::LeaseOutage(_))));
            assert!(has(|f| matches!(f, ControllerFault::Restart(_))));
            assert!(schedule.faults() >= KINDS.len());
            assert!(schedule.steps.iter().all(|(at, step)| match step {
                Step::Fault(..) => *at <= schedule.chaos * 4 / 5,
                _ => *at <= schedule.chaos,
            }));
            assert!(schedule.steps.windows(2).all(|w| w[0].0 <= w[1].0));
        }
    }

    #[test]
    fn a_seed_always_draws_the_same_schedule() {
        let a = Schedule::new(7, Profile::Ci);
        let b = Schedule::new(7, Profile::Ci);
        assert_eq!(a.steps, b.steps);
        assert_eq!(a.foos, b.foos);
        assert_ne!(a.steps, Schedule::new(8, Profile::Ci).steps);
    }
}
