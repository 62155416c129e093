//! A schedule: everything one chaos run will do, drawn from its seed before anything starts.

use std::fmt;
use std::time::Duration;

use super::fault::{ChaosFault, KINDS};
use super::rng::Rng;

/// How big and how long schedules are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Small and short, for CI in debug builds: hundreds of pods, a few seconds of faults.
    Ci,
    /// The size: 2,000-5,000 pods, 8-14 s of faults.
    Full,
}

impl Profile {
    /// The profile named `name` (`ci` or `full`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "ci" => Some(Self::Ci),
            "full" => Some(Self::Full),
            _ => None,
        }
    }

    /// Its command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Ci => "ci",
            Self::Full => "full",
        }
    }
}

/// The informer's configuration. The low four bits of the seed choose it, so consecutive
/// seeds cycle through every combination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mode {
    /// Streaming list (`sendInitialEvents`) instead of list+watch.
    pub streaming_list: bool,
    /// The in-order queue instead of DeltaFIFO.
    pub in_order: bool,
    /// A label selector over the `tier` label churn rewrites, or none.
    pub selector: Option<String>,
    /// The page size of lists (list+watch mode only).
    pub page_size: Option<u32>,
    /// A client that asks for protobuf (`ContentType::Protobuf`) instead of JSON.
    pub protobuf: bool,
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = if self.streaming_list {
            "stream".to_owned()
        } else {
            match self.page_size {
                Some(n) => format!("list/{n}"),
                None => "list".to_owned(),
            }
        };
        let queue = if self.in_order {
            "inorder"
        } else {
            "deltafifo"
        };
        let encoding = if self.protobuf { "+protobuf" } else { "" };
        match &self.selector {
            Some(s) => write!(f, "{list}+{queue}{encoding}+[{s}]"),
            None => write!(f, "{list}+{queue}{encoding}"),
        }
    }
}

/// One fault at its offset from the start of the chaos phase.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// When to apply it.
    pub at: Duration,
    /// Its kind, one of the fault catalog's names.
    pub kind: &'static str,
    /// What to apply.
    pub fault: ChaosFault,
}

/// Everything one run does.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// The seed everything below came from.
    pub seed: u64,
    /// Its profile.
    pub profile: Profile,
    /// The informer's configuration.
    pub mode: Mode,
    /// Pods at start.
    pub pods: usize,
    /// Namespaces they spread over.
    pub namespaces: usize,
    /// Churn writes per second during the chaos phase.
    pub churn_rate: f64,
    /// Update / create / delete shares of churn (updates move pods across the selector).
    pub churn_mix: (f64, f64, f64),
    /// How long faults and churn go on.
    pub chaos_phase: Duration,
    /// The faults, in time order.
    pub steps: Vec<Step>,
    /// Every how many events the slow handler sleeps 1 ms.
    pub slow_every: u64,
}

const SELECTORS: &[&str] = &[
    "tier=frontend",
    "tier in (frontend,cache)",
    "tier!=batch",
    "tier notin (backend)",
];

impl Schedule {
    /// The schedule of `seed` under `profile`.
    pub fn new(seed: u64, profile: Profile) -> Self {
        let mut rng = Rng::new(seed, 1);
        let selector = (seed & 4 != 0).then(|| rng.pick(SELECTORS).to_string());
        let streaming_list = seed & 1 != 0;
        let (pods, phase_ms, rate, extra, page) = match profile {
            Profile::Ci => (
                rng.range(300, 600),
                rng.range(4500, 6000),
                rng.range(100, 300),
                rng.range(0, 4),
                *rng.pick(&[None, Some(100), Some(250)]),
            ),
            Profile::Full => (
                rng.range(2000, 5000),
                rng.range(8_000, 14_000),
                rng.range(200, 800),
                rng.range(6, 20),
                *rng.pick(&[None, Some(500), Some(1000)]),
            ),
        };
        let mode = Mode {
            streaming_list,
            in_order: seed & 2 != 0,
            selector,
            page_size: if streaming_list { None } else { page },
            protobuf: seed & 8 != 0,
        };
        let update = 0.6 + rng.unit() * 0.3;
        let create = (1.0 - update) * (0.3 + rng.unit() * 0.4);
        let churn_mix = (update, create, 1.0 - update - create);
        let mut kinds: Vec<&'static str> = KINDS.to_vec();
        for _ in 0..extra {
            kinds.push(*rng.pick(KINDS));
        }
        rng.shuffle(&mut kinds);
        // The last fault lands at least half a second before the phase ends, so each fault
        // has had a chance to bite before the convergence clock starts.
        let last = phase_ms.saturating_sub(500);
        let mut at: Vec<u64> = kinds.iter().map(|_| rng.range(0, last)).collect();
        at.sort_unstable();
        let steps = kinds
            .iter()
            .zip(at)
            .enumerate()
            .map(|(i, (kind, ms))| Step {
                at: Duration::from_millis(ms),
                kind,
                fault: ChaosFault::draw(kind, &mut rng, streaming_list).tagged(i),
            })
            .collect();
        Self {
            seed,
            profile,
            mode,
            pods: pods as usize,
            namespaces: rng.range(1, 6) as usize,
            churn_rate: rate as f64,
            churn_mix,
            chaos_phase: Duration::from_millis(phase_ms),
            steps,
            slow_every: rng.range(2, 16),
        }
    }

    /// The command that replays this schedule exactly.
    pub fn replay_command(&self) -> String {
        format!(
            "cargo xtask chaos --profile {} --seed {} --schedules 1",
            self.profile.name(),
            self.seed
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_one_schedule_with_every_fault_kind_in_time_order() {
        let a = Schedule::new(42, Profile::Ci);
        assert_eq!(a, Schedule::new(42, Profile::Ci));
        assert_ne!(a, Schedule::new(43, Profile::Ci));
        assert!(KINDS.iter().all(|k| a.steps.iter().any(|s| s.kind == *k)));
        assert!(a.steps.windows(2).all(|w| w[0].at <= w[1].at));
        assert!(a.steps.iter().all(|s| s.at < a.chaos_phase));
        let modes: std::collections::BTreeSet<String> = (0..8)
            .map(|seed| {
                let m = Schedule::new(seed, Profile::Ci).mode;
                format!(
                    "{} {} {}",
                    m.streaming_list,
                    m.in_order,
                    m.selector.is_some()
                )
            })
            .collect();
        assert_eq!(modes.len(), 8, "eight consecutive seeds cover every mode");
    }
}
