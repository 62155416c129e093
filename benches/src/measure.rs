//! Memory readings and the report line.

use std::fmt;

/// Current resident set size in bytes.
pub(crate) fn rss() -> u64 {
    status_field("VmRSS:")
}

/// Peak resident set size in bytes since start or the last [`reset_peak`].
pub(crate) fn peak_rss() -> u64 {
    status_field("VmHWM:")
}

/// Resets the peak RSS counter (Linux: `5` into `/proc/self/clear_refs`).
pub(crate) fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn status_field(name: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with(name))?.to_owned();
            line[name.len()..]
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kib| kib * 1024)
}

/// Clock ticks per second of `/proc/self/stat`'s CPU times (Linux's USER_HZ).
pub(crate) const TICKS_PER_SEC: f64 = 100.0;

/// The process's user plus system CPU time so far, in clock ticks.
pub(crate) fn cpu_ticks() -> Option<u64> {
    Some(stat_field(11)? + stat_field(12)?)
}

/// Page faults so far that needed no I/O: nearly all of them a first touch of fresh memory.
pub(crate) fn minor_faults() -> Option<u64> {
    stat_field(7)
}

/// Field `n` (0 is the state, `stat`'s third field) of `/proc/self/stat`.
fn stat_field(n: usize) -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name may hold spaces; the fields after it are space-separated.
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split_whitespace().nth(n)?.parse().ok()
}

/// With `--exit-after-sync`: prints `report` and exits at once, dropping nothing (a profile of the
/// process is then a profile of the sync alone).
pub(crate) fn exit_after_sync(options: &crate::Options, report: &Report) {
    if options.exit_after_sync {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        let ok = writeln!(out, "{report}").and_then(|()| out.flush()).is_ok();
        std::process::exit(if ok { 0 } else { 1 });
    }
}

/// Reports the sync (time, the process's CPU time, pods, peak RSS), exits there with `--exit-after-sync`, and reports the
/// steady RSS a second later.
pub(crate) async fn report_sync(
    options: &crate::Options,
    report: &mut Report,
    sync: std::time::Duration,
    pods: usize,
) {
    report.set("sync_secs", sync.as_secs_f64());
    // The client's own CPU: on a shared machine, or with the server as the bottleneck, the
    // wall-clock sync says less about the client.
    if let Some(ticks) = cpu_ticks() {
        report.set("sync_cpu_secs", ticks as f64 / TICKS_PER_SEC);
    }
    // Each fault is a page touched for the first time: what memory costs in time beside its size.
    if let Some(faults) = minor_faults() {
        report.set("sync_minor_faults", faults);
    }
    report.set("pods", pods);
    let sim_now = options.sim_pid.and_then(crate::sim_usage::SimUsage::sample);
    if let (Some(before), Some(now)) = (report.sim_before, sim_now) {
        let (cpu, written) = before.since(now);
        report.set("sim_sync_cpu_secs", cpu);
        report.set("sim_sync_bytes", written);
    }
    report.set("sync_peak_rss", peak_rss());
    exit_after_sync(options, report);
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    report.set("steady_rss", rss());
}

/// Reports the burst: events handled and their rate since `started`.
pub(crate) fn report_burst(report: &mut Report, handled: u64, started: tokio::time::Instant) {
    report.set("burst_events", handled);
    report.set(
        "events_per_sec",
        handled as f64 / started.elapsed().as_secs_f64(),
    );
}

/// `BENCH key=value ...`: flat, so the harness parses it with the standard library alone.
#[derive(Debug)]
pub(crate) struct Report {
    fields: Vec<(&'static str, String)>,
    /// The sim process as the client started, for what the sync cost it.
    pub(crate) sim_before: Option<crate::sim_usage::SimUsage>,
}

impl Report {
    pub(crate) fn new(mode: &str) -> Self {
        Self {
            fields: vec![
                ("mode", mode.to_owned()),
                ("baseline_rss", rss().to_string()),
            ],
            sim_before: None,
        }
    }

    pub(crate) fn set(&mut self, key: &'static str, value: impl ToString) {
        self.fields.retain(|(k, _)| *k != key);
        self.fields.push((key, value.to_string()));
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BENCH")?;
        for (k, v) in &self.fields {
            write!(f, " {k}={v}")?;
        }
        Ok(())
    }
}
