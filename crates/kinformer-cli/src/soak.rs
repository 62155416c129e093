//! `kinformer soak`: hours of churn and faults in minutes, with the client's memory on a chart.
//!
//! The embedded API server runs in this process, under churn, with a fault of another kind every
//! `--fault-every` seconds and a forced relist every five minutes. The client is a separate
//! `kinformer mirror` process, so its resident memory is the client's alone; it is sampled from
//! `/proc`. After a quiet period at the end, the mirror's dump must equal the server's state.

mod chart;
mod faults;

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use kinformer_sim::{Churn, DropMode, Sim, SimHandle};
use serde::Serialize;
use serde_json::Value;
use tokio::process::Command;
use tokio::time::Instant;

use crate::args::SoakArgs;
use crate::error::CliError;
use crate::rss;

/// Churn and faults stop this long before the mirror ends, so it can converge (half of a soak
/// shorter than twice this).
const QUIET: Duration = Duration::from_secs(15);
/// A 410 on every watch this often: each one is a relist.
const RELIST_EVERY: Duration = Duration::from_secs(300);

/// The soak's JSON report.
#[derive(Debug, Serialize)]
struct Report {
    seconds: f64,
    pods: usize,
    writes: u64,
    faults: usize,
    forced_relists: usize,
    converged: bool,
    stale_or_extra: usize,
    missing_or_older: usize,
    rss_start_mib: f64,
    rss_end_mib: f64,
    rss_max_mib: f64,
    /// Median RSS of the last quarter over that of the second quarter (after warm-up).
    rss_growth: f64,
    mirror: Value,
}

/// Runs the soak and writes `soak.csv`, `soak.svg` and `soak.json` under `--out`.
pub(crate) async fn run(args: SoakArgs) -> Result<(), CliError> {
    std::fs::create_dir_all(&args.out)?;
    let sim = Sim::builder()
        .pods(args.pods)
        .namespaces(20)
        .seed(args.seed)
        .compact_interval(Some(Duration::from_secs(60)))
        .start()
        .await?;
    let kubeconfig = args.out.join("kubeconfig");
    let dump = args.out.join("dump.jsonl");
    sim.write_kubeconfig(&kubeconfig)?;
    sim.churn_start(Churn::new(args.churn).seed(args.seed))
        .await?;

    let total = Duration::from_secs_f64(args.minutes * 60.0);
    let child = Command::new(std::env::current_exe()?)
        .args(["mirror", "pods", "-A", "--summary", "--duration"])
        .arg(total.as_secs_f64().to_string())
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .arg("--dump")
        .arg(&dump)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()?;
    let pid = child.id().unwrap_or_default();
    let started = Instant::now();
    let quiet_at = started + total.saturating_sub(QUIET.min(total / 2));
    let sample_every = Duration::from_secs_f64(args.sample_every.max(0.5));
    let fault_every = Duration::from_secs_f64(args.fault_every.max(1.0));
    let waiting = tokio::spawn(child.wait_with_output());

    let mut samples: Vec<(f64, u64)> = Vec::new();
    let (mut next_sample, mut next_fault) = (started, started + fault_every);
    let mut next_relist = started + RELIST_EVERY;
    let (mut faults, mut relists, mut quiet, mut writes) = (0_usize, 0_usize, false, 0_u64);
    while !waiting.is_finished() {
        let now = Instant::now();
        if now >= next_sample {
            if let Some(rss) = rss::of_process(pid) {
                samples.push(((now - started).as_secs_f64(), rss));
            }
            next_sample += sample_every;
        }
        if !quiet && now >= quiet_at {
            writes = sim.churn_status().await.done;
            sim.churn_stop().await;
            sim.clear_faults().await;
            quiet = true;
        }
        if !quiet && now >= next_fault {
            faults::inject(&sim, faults).await;
            faults += 1;
            next_fault += fault_every;
        }
        if !quiet && now >= next_relist {
            sim.drop_watches(DropMode::Error410).await;
            relists += 1;
            next_relist += RELIST_EVERY;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let output = waiting
        .await
        .map_err(|e| CliError::Io(std::io::Error::other(e)))??;
    if !output.status.success() {
        return Err(CliError::Io(std::io::Error::other(format!(
            "the mirror process failed: {}",
            output.status
        ))));
    }
    let mirror: Value = serde_json::from_slice(&output.stdout)?;
    let (stale, missing) = compare(&sim, &dump).await?;
    let counts = Counts {
        writes,
        faults,
        forced_relists: relists,
        stale,
        missing,
    };
    let report = report(&args, &samples, &counts, mirror);
    write_outputs(&args.out, &samples, &report)?;
    writeln!(
        std::io::stdout().lock(),
        "{}",
        serde_json::to_string(&report)?
    )?;
    if !report.converged {
        return Err(CliError::Io(std::io::Error::other(format!(
            "the mirror differs from the server: {stale} stale or extra, {missing} missing or older"
        ))));
    }
    Ok(())
}

/// What the soak did and found.
struct Counts {
    writes: u64,
    faults: usize,
    forced_relists: usize,
    stale: usize,
    missing: usize,
}

fn report(args: &SoakArgs, samples: &[(f64, u64)], counts: &Counts, mirror: Value) -> Report {
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    let rss: Vec<u64> = samples.iter().map(|s| s.1).collect();
    let quarter = rss.len() / 4;
    let growth = match (
        median(&rss[quarter..2 * quarter]),
        median(&rss[3 * quarter..]),
    ) {
        (Some(early), Some(late)) if early > 0 => late as f64 / early as f64,
        _ => 1.0,
    };
    Report {
        seconds: samples.last().map_or(0.0, |s| s.0),
        pods: args.pods,
        writes: counts.writes,
        faults: counts.faults,
        forced_relists: counts.forced_relists,
        converged: counts.stale == 0 && counts.missing == 0,
        stale_or_extra: counts.stale,
        missing_or_older: counts.missing,
        rss_start_mib: rss.first().copied().map_or(0.0, mib),
        rss_end_mib: rss.last().copied().map_or(0.0, mib),
        rss_max_mib: rss.iter().copied().max().map_or(0.0, mib),
        rss_growth: growth,
        mirror,
    }
}

fn median(values: &[u64]) -> Option<u64> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted.get(sorted.len() / 2).copied()
}

/// Counts dumped entries the server does not have (stale or extra) and server objects the dump
/// lacks or has older.
async fn compare(sim: &SimHandle, dump: &Path) -> Result<(usize, usize), CliError> {
    let truth = sim.state("pods", true).await?;
    let key = |v: &Value| {
        let field = |name: &str| {
            v.get(name)
                .or_else(|| v.get("metadata").and_then(|m| m.get(name)))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        (
            field("namespace"),
            field("name"),
            field("uid"),
            field("resourceVersion"),
        )
    };
    let server: BTreeSet<_> = truth.items.iter().map(key).collect();
    let mut cached = BTreeSet::new();
    for line in std::fs::read_to_string(dump)?.lines() {
        cached.insert(key(&serde_json::from_str::<Value>(line)?));
    }
    Ok((
        cached.difference(&server).count(),
        server.difference(&cached).count(),
    ))
}

fn write_outputs(out: &Path, samples: &[(f64, u64)], report: &Report) -> Result<(), CliError> {
    let mut csv = String::from("seconds,rss_bytes\n");
    for (t, rss) in samples {
        csv.push_str(&format!("{t:.1},{rss}\n"));
    }
    std::fs::write(out.join("soak.csv"), csv)?;
    std::fs::write(out.join("soak.svg"), chart::rss_svg(samples))?;
    std::fs::write(out.join("soak.json"), serde_json::to_string_pretty(report)?)?;
    Ok(())
}
