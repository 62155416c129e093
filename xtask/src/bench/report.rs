//! The markdown table, the JSON file and the charts of a comparison run.

use std::fmt::Write as _;

use super::Options;
use super::clients::Runs;
use super::goals::GOALS;
use super::informers;
use super::proxy;
use super::scale;
use super::stats::{self, Metric, Summary, summarize};
use super::svg;

/// Each reported metric: key, column title, how to compute it.
const METRICS: &[(&str, &str, Metric)] = &[
    ("sync_secs", "sync (s)", stats::sync_secs),
    (
        "sync_peak_mib",
        "peak RSS in sync (MiB)",
        stats::sync_peak_mib,
    ),
    ("steady_mib", "steady RSS (MiB)", stats::steady_mib),
    ("bytes_per_pod", "RSS per pod (B)", stats::bytes_per_pod),
    ("events_per_sec", "watch events/s", stats::events_per_sec),
    ("lag_p50_ms", "lag p50 (ms)", stats::lag_p50_ms),
    ("lag_p99_ms", "lag p99 (ms)", stats::lag_p99_ms),
    ("lag_rate", "lag-phase events/s", stats::lag_rate),
    (
        "relist_peak_ratio",
        "relist peak / steady",
        stats::relist_peak_ratio,
    ),
    ("get_p99_us", "get p99 (µs)", stats::get_p99_us),
    ("list_ns_ms", "list a namespace (ms)", stats::list_ns_ms),
    (
        "sim_cpu_secs",
        "sim CPU in sync (s)",
        stats::sim_sync_cpu_secs,
    ),
    ("sim_mb", "bytes served in sync (MB)", stats::sim_sync_mb),
];

/// Writes `report.md`, `report.json` and the SVG charts, and prints the markdown.
pub(crate) fn write(
    options: &Options,
    sections: &[(String, Vec<(usize, Runs)>)],
    many_informers: Option<&informers::Section>,
    proxied: Option<&proxy::Section>,
) -> Result<(), String> {
    let mut md = String::from("# kinformer benchmark\n\n");
    let _ = writeln!(
        md,
        "`cargo xtask bench` — {} round(s), clients alternating; median [min–max]. Burst: {} updates; \
         lag phase: {} stamped updates/s for {} s.\n",
        options.rounds, options.burst, options.lag_rate, options.lag_secs
    );
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let _ = writeln!(
        md,
        "Machine: {cores} cores; load average (1/5/15 min) at start {}, at end {}.\n",
        options.load_at_start,
        load_average()
    );
    let mut json = String::from("{\"shapes\":{");
    for (s, (shape, all)) in sections.iter().enumerate() {
        let _ = writeln!(md, "# Pods with {shape} managedFields\n");
        if s > 0 {
            json.push(',');
        }
        let _ = write!(json, "\"{shape}\":{{\"scales\":[");
        for (i, (pods, runs)) in all.iter().enumerate() {
            md.push_str(&results_table(*pods, runs));
            md.push_str(&goals_table(runs));
            if i > 0 {
                json.push(',');
            }
            json.push_str(&scale_json(*pods, runs));
            for (key, title, metric) in METRICS {
                let bars: Vec<(String, f64)> = runs
                    .iter()
                    .filter_map(|(client, r)| Some((client.clone(), summarize(r, *metric)?.median)))
                    .collect();
                if !bars.is_empty() {
                    let path = options.out_dir.join(format!("{key}-{shape}-{pods}.svg"));
                    std::fs::write(
                        &path,
                        svg::bar_chart(&format!("{title}, {pods} pods ({shape})"), &bars),
                    )
                    .map_err(|e| format!("writing {}: {e}", path.display()))?;
                }
            }
        }
        md.push_str(&scale::table(all));
        let _ = write!(json, "],\"scale_spread\":{}}}", scale::json(all));
    }
    json.push('}');
    if let Some(section) = many_informers {
        md.push_str(&informers::table(section));
        let _ = write!(json, ",\"many_informers\":{}", informers::json(section));
    }
    if let Some(section) = proxied {
        md.push_str(&proxy::table(section));
        let _ = write!(json, ",\"proxy\":{}", proxy::json(section));
    }
    json.push_str("}\n");
    let md_path = options.out_dir.join("report.md");
    std::fs::write(&md_path, &md).map_err(|e| format!("writing {}: {e}", md_path.display()))?;
    let json_path = options.out_dir.join("report.json");
    std::fs::write(&json_path, &json)
        .map_err(|e| format!("writing {}: {e}", json_path.display()))?;
    eprintln!(
        "{md}\nwritten: {}, {}, and one SVG per metric",
        md_path.display(),
        json_path.display()
    );
    Ok(())
}

/// The 1, 5 and 15 minute load averages, as the kernel reports them.
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

fn cell(s: Option<Summary>) -> String {
    s.map_or_else(
        || "–".to_owned(),
        |s| format!("{} [{}–{}]", num(s.median), num(s.min), num(s.max)),
    )
}

fn num(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

fn results_table(pods: usize, runs: &Runs) -> String {
    let mut md = format!("## {pods} pods\n\n| client |");
    for (_, title, _) in METRICS {
        let _ = write!(md, " {title} |");
    }
    md.push_str("\n|---|");
    md.push_str(&"---|".repeat(METRICS.len()));
    md.push('\n');
    for (client, r) in runs {
        let _ = write!(md, "| {client} |");
        for (_, _, metric) in METRICS {
            let _ = write!(md, " {} |", cell(summarize(r, *metric)));
        }
        md.push('\n');
    }
    for (client, peer) in [("kinformer", "kube"), ("kinformer", "kube-strip")] {
        md.push_str(&ratio_row(runs, client, peer).unwrap_or_default());
    }
    md.push('\n');
    md
}

fn goals_table(runs: &Runs) -> String {
    let mut md =
        String::from("| goal | bound | measured | met | margin |\n|---|---|---|---|---|\n");
    for goal in GOALS {
        let value = |client: &str| {
            runs.get(client)
                .and_then(|r| summarize(r, goal.metric))
                .map(|s| s.median)
        };
        let measured = match goal.peer {
            Some(peer) => value(goal.client).zip(value(peer)).map(|(a, b)| a / b),
            None => value(goal.client),
        };
        let op = if goal.at_most { "≤" } else { "≥" };
        let unit = goal.unit;
        let (shown, met, margin) = match measured {
            Some(m) => {
                let (met, margin) = verdict(m, goal.bound, goal.at_most);
                (format!("{m:.2}{unit}"), met, margin)
            }
            None => ("–".to_owned(), "not measured", String::new()),
        };
        let _ = writeln!(
            md,
            "| {} | {op} {}{unit} | {shown} | {met} | {margin} |",
            goal.text, goal.bound
        );
    }
    md.push('\n');
    md
}

/// Whether `measured` meets `bound`, and by how much it is inside or outside it (percent of the
/// bound).
pub(crate) fn verdict(measured: f64, bound: f64, at_most: bool) -> (&'static str, String) {
    let met = if at_most {
        measured <= bound
    } else {
        measured >= bound
    };
    let off = ((measured - bound) / bound * 100.0).abs();
    let side = match (at_most, met) {
        (true, true) => "under",
        (true, false) => "over",
        (false, true) => "above",
        (false, false) => "below",
    };
    (
        if met { "yes" } else { "no" },
        format!("{off:.0}% {side} the bound"),
    )
}

/// kinformer's median over the peer's, for every metric both have.
fn ratio_row(runs: &Runs, client: &str, peer: &str) -> Option<String> {
    let (a, b) = (runs.get(client)?, runs.get(peer)?);
    let mut md = format!("| {client} / {peer} |");
    for (_, _, metric) in METRICS {
        let ratio = summarize(a, *metric)
            .zip(summarize(b, *metric))
            .filter(|(_, b)| b.median != 0.0)
            .map(|(a, b)| format!("{:.2}x", a.median / b.median));
        let _ = write!(md, " {} |", ratio.as_deref().unwrap_or("–"));
    }
    md.push('\n');
    Some(md)
}

fn scale_json(pods: usize, runs: &Runs) -> String {
    let mut json = format!("{{\"pods\":{pods},\"clients\":{{");
    for (i, (client, r)) in runs.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        let _ = write!(json, "\"{client}\":{{\"runs\":{}", r.len());
        for (key, _, metric) in METRICS {
            if let Some(s) = summarize(r, *metric) {
                let _ = write!(
                    json,
                    ",\"{key}\":{{\"median\":{},\"min\":{},\"max\":{}}}",
                    s.median, s.min, s.max
                );
            }
        }
        json.push('}');
    }
    json.push_str("}}");
    json
}
