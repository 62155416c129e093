//! Running the benchmark clients, each as its own process, in alternating rounds.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use super::Options;
use super::sim_process::SimProcess;

/// One client run: its `BENCH key=value` fields.
pub(crate) type Run = BTreeMap<String, String>;

/// Every run of every client at one scale: client name -> runs.
pub(crate) type Runs = BTreeMap<String, Vec<Run>>;

/// Runs each of `clients` once per round, alternating clients within a round; `what` names the
/// workload in the log.
pub(crate) fn run_rounds(
    options: &Options,
    sim: &SimProcess,
    clients: &[String],
    what: &str,
) -> Result<Runs, String> {
    let mut runs = Runs::new();
    for round in 1..=options.rounds {
        for client in clients {
            eprintln!("round {round}/{}: {client} ({what})", options.rounds);
            let run = run_client(client, sim, options, &[])?;
            eprintln!("  {}", summary(&run));
            runs.entry(client.clone()).or_default().push(run);
        }
    }
    Ok(runs)
}

/// Runs `client` once against `sim`, with `extra` arguments after the common ones.
pub(crate) fn run_client(
    client: &str,
    sim: &SimProcess,
    options: &Options,
    extra: &[String],
) -> Result<Run, String> {
    let mut command = Command::new("target/release/bench-client");
    command
        .arg(client)
        .arg("--kubeconfig")
        .arg(&sim.kubeconfig)
        .args(["--control", &sim.control])
        .args(["--burst", &options.burst.to_string()])
        .args(["--lag-rate", &options.lag_rate.to_string()])
        .args(["--lag-secs", &options.lag_secs.to_string()])
        .args(["--informers", &options.informers.to_string()])
        .args(["--sim-pid", &sim.pid().to_string()]);
    if options.sync_only {
        command.arg("--sync-only");
    }
    command.args(extra);
    let output = command
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("starting bench-client {client}: {e}"))?;
    if !output.status.success() {
        return Err(format!("bench-client {client} failed ({})", output.status));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("BENCH "))
        .ok_or_else(|| format!("bench-client {client} printed no BENCH line"))?;
    Ok(line
        .split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect())
}

fn summary(run: &Run) -> String {
    [
        "sync_secs",
        "pods",
        "steady_rss",
        "events_per_sec",
        "lag_p50_ms",
        "lag_p99_ms",
        "lag_rate",
        "relist_peak_rss",
        "informers_synced",
        "sync_all_secs",
        "get_p99_ms",
        "rss_per_informer",
        "tasks_per_informer",
        "connections_opened",
        "proxy_bytes",
        "reconcile_all_secs",
        "requests",
        "reconciles_per_change",
        "rss_per_foo",
        "backlog_secs",
        "restart_edit_p99_ms",
    ]
    .iter()
    .filter_map(|k| run.get(*k).map(|v| format!("{k}={v}")))
    .collect::<Vec<_>>()
    .join(" ")
}
