//! The scale table: cost per object (sync seconds and the client's CPU seconds per 1,000 pods,
//! RSS bytes per pod) at each pod count, and whether it stays flat.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::clients::Runs;
use super::report::verdict;
use super::stats::{self, Metric, summarize};

/// Cost per object may grow at most this much from the next-to-largest scale to the largest
/// (50,000 to 150,000 pods in `--scale`).
const FLAT: f64 = 1.15;

/// kinformer's sync at the largest scale, at most this share of kube-rs's stripping managedFields.
const VS_KUBE_STRIP: f64 = 0.5;

const COSTS: &[(&str, Metric)] = &[
    ("sync s / 1k pods", stats::sync_secs_per_kpod),
    ("sync CPU s / 1k pods", stats::sync_cpu_secs_per_kpod),
    ("RSS B / pod", stats::bytes_per_pod),
    ("page faults / pod", stats::sync_faults_per_pod),
];

/// The median of `metric` at the largest scale over the next-to-largest, for `client`.
fn growth(all: &[(usize, Runs)], client: &str, metric: Metric) -> Option<f64> {
    let [.., (_, below), (_, largest)] = all else {
        return None;
    };
    let median = |runs: &Runs| Some(summarize(runs.get(client)?, metric)?.median);
    let (a, b) = (median(below)?, median(largest)?);
    (a > 0.0).then(|| b / a)
}

/// The largest over the smallest median of `metric` across scales, for `client`.
fn spread(all: &[(usize, Runs)], client: &str, metric: Metric) -> Option<f64> {
    let medians: Vec<f64> = all
        .iter()
        .filter_map(|(_, runs)| Some(summarize(runs.get(client)?, metric)?.median))
        .collect();
    if medians.len() < 2 {
        return None;
    }
    let max = medians.iter().copied().fold(f64::MIN, f64::max);
    let min = medians.iter().copied().fold(f64::MAX, f64::min);
    (min > 0.0).then(|| max / min)
}

/// The markdown table and flatness goals; empty with fewer than two scales.
pub(crate) fn table(all: &[(usize, Runs)]) -> String {
    if all.len() < 2 {
        return String::new();
    }
    let clients: BTreeSet<&String> = all.iter().flat_map(|(_, r)| r.keys()).collect();
    let mut md = String::from("## Cost per object across scales\n\n| client | cost |");
    for (pods, _) in all {
        let _ = write!(md, " {pods} pods |");
    }
    md.push_str(" largest / smallest | largest / next |\n|---|---|");
    md.push_str(&"---|".repeat(all.len() + 2));
    md.push('\n');
    for client in &clients {
        for (title, metric) in COSTS {
            let _ = write!(md, "| {client} | {title} |");
            for (_, runs) in all {
                let cell = runs
                    .get(*client)
                    .and_then(|r| summarize(r, *metric))
                    .map_or("–".to_owned(), |s| format!("{:.3}", s.median));
                let _ = write!(md, " {cell} |");
            }
            let ratio = |r: Option<f64>| r.map_or("–".to_owned(), |s| format!("{s:.2}x"));
            let _ = writeln!(
                md,
                " {} | {} |",
                ratio(spread(all, client, *metric)),
                ratio(growth(all, client, *metric))
            );
        }
    }
    md.push_str("\n| goal | bound | measured | met | margin |\n|---|---|---|---|---|\n");
    // The goals are on time; memory and faults per pod are there to explain it.
    for (title, metric) in &COSTS[..2] {
        let line = match growth(all, "kinformer", *metric) {
            Some(s) => {
                let (met, margin) = verdict(s, FLAT, true);
                format!("{s:.2}x | {met} | {margin}")
            }
            None => "– | not measured | ".to_owned(),
        };
        let _ = writeln!(
            md,
            "| kinformer {title}, largest scale / next | ≤ {FLAT}x | {line} |"
        );
    }
    let (largest, runs) = &all[all.len() - 1];
    let sync = |client: &str| Some(summarize(runs.get(client)?, stats::sync_secs)?.median);
    let line = match sync("kinformer").zip(sync("kube-strip")) {
        Some((a, b)) if b > 0.0 => {
            let (met, margin) = verdict(a / b, VS_KUBE_STRIP, true);
            format!("{:.2}x | {met} | {margin}", a / b)
        }
        _ => "– | not measured | ".to_owned(),
    };
    let _ = writeln!(
        md,
        "| kinformer sync at {largest} pods vs kube-rs (strip) | ≤ {VS_KUBE_STRIP}x | {line} |"
    );
    md.push('\n');
    md
}

/// The same spreads as JSON: `{"client": {"metric": spread}}`.
pub(crate) fn json(all: &[(usize, Runs)]) -> String {
    let clients: BTreeSet<&String> = all.iter().flat_map(|(_, r)| r.keys()).collect();
    let mut out = String::from("{");
    for (i, client) in clients.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "\"{client}\":{{");
        let fields: Vec<String> = [
            ("sync_per_kpod", COSTS[0].1),
            ("sync_cpu_per_kpod", COSTS[1].1),
            ("bytes_per_pod", COSTS[2].1),
            ("faults_per_pod", COSTS[3].1),
        ]
        .iter()
        .filter_map(|(key, metric)| Some(format!("\"{key}\":{}", spread(all, client, *metric)?)))
        .collect();
        out.push_str(&fields.join(","));
        out.push('}');
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::super::clients::Run;
    use super::*;

    fn runs(pods: usize, secs: f64, per_pod: f64) -> (usize, Runs) {
        let run: Run = [
            ("pods", pods.to_string()),
            ("sync_secs", secs.to_string()),
            ("baseline_rss", "0".to_owned()),
            ("steady_rss", (per_pod * pods as f64).to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        (pods, Runs::from([("kinformer".to_owned(), vec![run])]))
    }

    #[test]
    fn flat_cost_is_met_and_growing_cost_is_not() {
        let all = vec![runs(10_000, 1.0, 1000.0), runs(50_000, 5.5, 1100.0)];
        assert_eq!(spread(&all, "kinformer", stats::bytes_per_pod), Some(1.1));
        let md = table(&all);
        assert!(
            md.contains(
                "| kinformer sync s / 1k pods, largest scale / next | ≤ 1.15x | 1.10x | yes"
            ),
            "{md}"
        );
        let grown = vec![runs(10_000, 1.0, 1000.0), runs(50_000, 10.0, 1000.0)];
        assert!(table(&grown).contains("2.00x | no | 74% over the bound"));
        assert!(table(&grown).contains(
            "| kinformer sync at 50000 pods vs kube-rs (strip) | ≤ 0.5x | – | not measured"
        ));
        assert!(table(&grown[..1]).is_empty());
        assert_eq!(
            json(&grown),
            r#"{"kinformer":{"sync_per_kpod":2,"bytes_per_pod":1}}"#
        );
    }
}
