//! The fault catalog: every kind of trouble the sim can cause, drawn with seeded parameters and
//! applied to a running sim.

use std::fmt;
use std::time::Duration;

use kinformer_sim::{Compaction, DropMode, Fault, FaultKind, SimHandle};

use super::rng::Rng;

/// Every fault kind, by name; a schedule draws each at least once.
pub const KINDS: &[&str] = &[
    "throttle",
    "server-error",
    "expired-list",
    "expired-continue",
    "expired-watch",
    "too-large",
    "delay",
    "watch-error-event",
    "watch-drop",
    "watch-close",
    "watch-malformed",
    "watch-stall",
    "drop-now",
    "compact",
    "compact-behind",
    "restart",
];

/// One fault of a schedule.
#[derive(Debug, Clone, PartialEq)]
pub enum ChaosFault {
    /// A rule for the next matching requests (429, 5xx, 410, 504, delays, watch stream faults),
    /// and maybe a push that makes the informer send such a request now: a watch broken by a
    /// 410 forces a relist (list rules), a cleanly closed one a new watch (watch rules).
    Rule(Fault, Option<DropMode>),
    /// Breaks every open watch now.
    DropNow(DropMode),
    /// Compacts, keeping this many recent revisions.
    Compact(u64),
    /// Stalls every watch, lets churn run past it, then compacts everything: the stalled
    /// watchers resume behind the compaction and must get 410.
    CompactBehind {
        /// How long the watches stay silent.
        stall: Duration,
    },
    /// Restarts the server on the same port, keeping the data; down this long.
    Restart(Duration),
}

impl ChaosFault {
    /// A fault of kind `kind` (one of [`KINDS`]) with parameters drawn from `rng`. With
    /// `streaming`, the informer's lists are watches (`sendInitialEvents`), so the faults meant
    /// for lists and continue pages target those.
    pub fn draw(kind: &str, rng: &mut Rng, streaming: bool) -> Self {
        let list = if streaming { "watch" } else { "list" };
        let continue_page = if streaming { "watch" } else { "continue" };
        let verb = |rng: &mut Rng| *rng.pick(&[list, "watch"]);
        let after = |rng: &mut Rng| rng.range(0, 40);
        let provoke = rng.chance(0.75);
        let rule = |kind: FaultKind, verbs: &[&str], count: i64| {
            // A 410 makes the informer list again; a clean end, watch again.
            let push = provoke.then(|| {
                if verbs.contains(&"watch") && !streaming {
                    DropMode::Clean
                } else {
                    DropMode::Error410
                }
            });
            Self::Rule(
                Fault::new(kind)
                    .count(count)
                    .verbs(verbs.iter().copied())
                    .resources(["pods"]),
                push,
            )
        };
        let count = |rng: &mut Rng| rng.range(1, 3) as i64;
        // Each Retry-After holds the request for whole seconds, so those stay few.
        match kind {
            "throttle" => rule(status(429, Some(1), rng.chance(0.5)), &[verb(rng)], 1),
            "server-error" => {
                let code = *rng.pick(&[500, 502, 503, 504]);
                let retry = rng.chance(0.3).then_some(1);
                rule(
                    status(code, retry, false),
                    &[verb(rng)],
                    rng.range(1, 2) as i64,
                )
            }
            "expired-list" => rule(status(410, None, false), &[list], 1),
            "expired-continue" => rule(status(410, None, false), &[continue_page], 1),
            "expired-watch" => rule(status(410, None, false), &["watch"], 1),
            "too-large" => rule(FaultKind::TooLarge, &[list], 1),
            "delay" => rule(
                FaultKind::Delay {
                    seconds: rng.range(1, 8) as f64 / 10.0,
                },
                &[verb(rng)],
                1,
            ),
            "watch-error-event" => rule(
                FaultKind::WatchError {
                    after_events: after(rng),
                    code: *rng.pick(&[410, 500]),
                },
                &["watch"],
                count(rng),
            ),
            "watch-drop" => rule(
                FaultKind::WatchDrop {
                    after_events: after(rng),
                },
                &["watch"],
                count(rng),
            ),
            "watch-close" => rule(
                FaultKind::WatchClose {
                    after_events: after(rng),
                },
                &["watch"],
                count(rng),
            ),
            "watch-malformed" => rule(
                FaultKind::WatchMalformed {
                    after_events: after(rng),
                },
                &["watch"],
                1,
            ),
            "watch-stall" => rule(
                FaultKind::WatchStall {
                    after_events: after(rng),
                    seconds: rng.range(2, 12) as f64 / 10.0,
                },
                &["watch"],
                1,
            ),
            "drop-now" => Self::DropNow(match rng.range(0, 4) {
                0 => DropMode::Abrupt,
                1 => DropMode::Clean,
                2 => DropMode::Error410,
                3 => DropMode::Malformed,
                _ => DropMode::Stall {
                    seconds: rng.range(2, 12) as f64 / 10.0,
                },
            }),
            "compact" => Self::Compact(rng.range(0, 200)),
            "compact-behind" => Self::CompactBehind {
                stall: Duration::from_millis(rng.range(300, 1000)),
            },
            // Unknown names cannot come from KINDS; a restart is the harshest stand-in.
            _ => Self::Restart(Duration::from_millis(rng.range(50, 800))),
        }
    }

    /// Marks a rule as step `index`'s with an extra resource name no request has, so it can be
    /// told apart from identical rules of other steps.
    pub fn tagged(self, index: usize) -> Self {
        match self {
            Self::Rule(rule, push) => {
                let mut resources = rule.resources.clone();
                resources.push(format!("chaos-step-{index}"));
                Self::Rule(rule.resources(resources), push)
            }
            other => other,
        }
    }

    /// Applies the fault; returns once it is in place (a restart, once serving again).
    pub async fn apply(&self, sim: &SimHandle) -> Result<(), String> {
        match self {
            Self::Rule(rule, push) => {
                sim.add_faults([rule.clone()]).await;
                if let Some(mode) = push {
                    sim.drop_watches(mode.clone()).await;
                }
            }
            Self::DropNow(mode) => {
                sim.drop_watches(mode.clone()).await;
            }
            Self::Compact(keep) => {
                sim.compact(Compaction::keep(*keep)).await;
            }
            Self::CompactBehind { stall } => {
                sim.drop_watches(DropMode::Stall {
                    seconds: stall.as_secs_f64(),
                })
                .await;
                tokio::time::sleep(*stall / 2).await;
                sim.compact(Compaction::all()).await;
            }
            Self::Restart(down) => sim
                .restart(*down)
                .await
                .map_err(|e| format!("restart failed: {e}"))?,
        }
        Ok(())
    }
}

fn status(code: u16, retry_after: Option<u64>, plain_text: bool) -> FaultKind {
    FaultKind::Status {
        code,
        retry_after,
        plain_text,
        message: None,
    }
}

impl fmt::Display for ChaosFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Rule(rule, push) => {
                let kind = serde_json::to_string(&rule.kind).unwrap_or_default();
                write!(f, "rule {kind} x{} {:?}", rule.count, rule.verbs)?;
                match push {
                    Some(mode) => write!(f, " pushed by {mode:?}"),
                    None => Ok(()),
                }
            }
            Self::DropNow(mode) => write!(f, "drop watches {mode:?}"),
            Self::Compact(keep) => write!(f, "compact keep {keep}"),
            Self::CompactBehind { stall } => write!(f, "compact behind a {stall:?} stall"),
            Self::Restart(down) => write!(f, "restart, down {down:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verbs(fault: &ChaosFault) -> Vec<String> {
        match fault {
            ChaosFault::Rule(rule, _) => rule.verbs.clone(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn list_faults_target_the_streaming_lists_watch_and_tags_tell_rules_apart() {
        let mut rng = Rng::new(3, 0);
        for kind in ["expired-list", "expired-continue", "too-large"] {
            assert_ne!(verbs(&ChaosFault::draw(kind, &mut rng, false)), ["watch"]);
            assert_eq!(verbs(&ChaosFault::draw(kind, &mut rng, true)), ["watch"]);
        }
        assert_eq!(
            verbs(&ChaosFault::draw("expired-continue", &mut rng, false)),
            ["continue"]
        );
        let a = ChaosFault::draw("expired-list", &mut rng, false);
        let (one, two) = (a.clone().tagged(1), a.tagged(2));
        assert_ne!(one, two);
        match one {
            ChaosFault::Rule(rule, _) => {
                assert_eq!(rule.resources, ["pods", "chaos-step-1"]);
            }
            other => panic!("expected a rule, got {other}"),
        }
        for kind in KINDS {
            let fault = ChaosFault::draw(kind, &mut rng, false);
            assert!(!fault.to_string().is_empty());
        }
        assert!(matches!(
            ChaosFault::draw("restart", &mut rng, false),
            ChaosFault::Restart(_)
        ));
    }
}
