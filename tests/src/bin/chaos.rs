//! The long chaos run: `chaos [--controller] [--schedules N] [--seed S] [--profile full|ci]
//! [--jobs J]`.
//!
//! Runs the schedules of seeds `S, S+1, ..., S+N-1`, `J` at a time (default 1; each has its own
//! sim and informer), prints one line each as it ends, and exits non-zero if any failed,
//! listing their seeds. With `--controller`, the schedules are the controller's (two replicas
//! of a controller under leader election) instead of one informer's. `cargo xtask chaos`
//! builds it in release mode and runs it.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::process::ExitCode;

use kinformer_tests::chaos::{Profile, run_seed};
use kinformer_tests::controller_chaos::{self, Step};
use tokio::task::JoinSet;

struct Args {
    schedules: u64,
    seed: u64,
    profile: Profile,
    jobs: usize,
    controller: bool,
}

/// What one schedule of either engine did, for the summary.
struct Ran {
    seed: u64,
    line: String,
    passed: bool,
    /// The fault kinds it applied, and those of them no request hit.
    applied: Vec<&'static str>,
    unfired: Vec<&'static str>,
}

async fn run_one(seed: u64, profile: Profile, controller: bool) -> Ran {
    if controller {
        let report = controller_chaos::run_seed(seed, profile).await;
        let applied = report
            .schedule
            .steps
            .iter()
            .filter_map(|(_, step)| match step {
                Step::Fault(kind, _) => Some(*kind),
                _ => None,
            })
            .collect();
        return Ran {
            seed,
            line: report.line(),
            passed: report.passed(),
            applied,
            unfired: report
                .result
                .as_ref()
                .map(|o| o.unfired.clone())
                .unwrap_or_default(),
        };
    }
    let report = run_seed(seed, profile).await;
    Ran {
        seed,
        line: report.line(),
        passed: report.passed(),
        applied: report.schedule.steps.iter().map(|s| s.kind).collect(),
        unfired: report
            .result
            .as_ref()
            .map(|o| o.unfired.clone())
            .unwrap_or_default(),
    }
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut out = Args {
        schedules: 20,
        seed: 1,
        profile: Profile::Full,
        jobs: 1,
        controller: false,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{flag} needs a value"))
                .cloned()
        };
        match flag.as_str() {
            "--schedules" => {
                out.schedules = value()?.parse().map_err(|e| format!("--schedules: {e}"))?;
            }
            "--seed" => out.seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--profile" => {
                let name = value()?;
                out.profile = Profile::parse(&name)
                    .ok_or_else(|| format!("--profile: {name:?} is not ci or full"))?;
            }
            "--jobs" => {
                out.jobs = value()?.parse().map_err(|e| format!("--jobs: {e}"))?;
                if out.jobs == 0 {
                    return Err("--jobs must be at least 1".into());
                }
            }
            "--controller" => out.controller = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(out)
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse(&argv) {
        Ok(a) => a,
        Err(e) => {
            eprintln!(
                "chaos: {e}\nusage: chaos [--controller] [--schedules N] [--seed S] [--profile full|ci] [--jobs J]"
            );
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("chaos: cannot start a runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut failed = Vec::new();
    // Per fault kind: applied, and of those, rules no request hit.
    let mut coverage: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    let mut seeds = args.seed..args.seed.saturating_add(args.schedules);
    runtime.block_on(async {
        let mut running = JoinSet::new();
        let mut seed_of = HashMap::new();
        loop {
            while running.len() < args.jobs {
                let Some(seed) = seeds.next() else { break };
                let task = running.spawn(run_one(seed, args.profile, args.controller));
                seed_of.insert(task.id(), seed);
            }
            let Some(joined) = running.join_next_with_id().await else {
                break;
            };
            let ran = match joined {
                Ok((_, ran)) => ran,
                Err(e) => {
                    let seed = seed_of.get(&e.id()).copied().unwrap_or_default();
                    say(&format!(
                        "FAIL seed={seed} the schedule's task ended abnormally: {e}"
                    ));
                    failed.push(seed);
                    continue;
                }
            };
            say(&ran.line);
            if !ran.passed {
                failed.push(ran.seed);
                continue;
            }
            for kind in ran.applied {
                coverage.entry(kind).or_default().0 += 1;
            }
            for kind in ran.unfired {
                coverage.entry(kind).or_default().1 += 1;
            }
        }
    });
    failed.sort_unstable();
    let kinds: Vec<String> = coverage
        .iter()
        .map(|(kind, (applied, unfired))| format!("{kind} {}/{applied}", applied - unfired))
        .collect();
    say(&format!(
        "chaos: faults that bit / applied (passed schedules): {}",
        kinds.join(", ")
    ));
    let passed = args.schedules - failed.len() as u64;
    say(&format!(
        "chaos: {passed}/{} schedules passed (profile {}, seeds {}..{})",
        args.schedules,
        args.profile.name(),
        args.seed,
        args.seed.saturating_add(args.schedules)
    ));
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        say(&format!("chaos: failed seeds: {failed:?}"));
        ExitCode::FAILURE
    }
}

/// One line on stdout, flushed at once so a long run can be followed; a closed pipe is ignored.
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}
