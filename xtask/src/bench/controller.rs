//! The controller run, `cargo xtask bench --controller [--foos N] [--rounds R]`: Kubernetes'
//! sample-controller on kinformer's runtime and on kube-rs's `Controller`, each with its
//! defaults, alternating, each run on a fresh sim (the phases are in the bench client's
//! `controller.rs`); its table and goals go to `target/bench/controller.md` and `.json`.

use std::fmt::Write as _;

use super::Options;
use super::clients::{self, Runs};
use super::report::load_average;
use super::sim_process::SimProcess;
use super::stats::{Metric, field, median, number_cell as cell};

const KINFORMER: &str = "controller-kinformer";
const KUBE: &str = "controller-kube";

/// Each column: JSON key, title, metric.
const COLUMNS: &[(&str, &str, Metric)] = &[
    ("reconcile_all_secs", "every Foo reconciled (s)", |r| {
        field(r, "reconcile_all_secs")
    }),
    ("foos_per_sec", "Foos/s", |r| field(r, "foos_per_sec")),
    ("requests", "requests until quiet", |r| field(r, "requests")),
    ("requests_writes", "of them writes", |r| {
        field(r, "requests_writes")
    }),
    ("reconciles_settled", "reconciles until quiet", |r| {
        field(r, "reconciles_settled")
    }),
    ("reconciles_per_change", "reconciles per change", |r| {
        field(r, "reconciles_per_change")
    }),
    ("change_p50_ms", "change p50 (ms)", |r| {
        field(r, "change_p50_ms")
    }),
    ("change_p99_ms", "change p99 (ms)", |r| {
        field(r, "change_p99_ms")
    }),
    ("rss_per_foo_kib", "RSS per Foo (KiB)", |r| {
        field(r, "rss_per_foo").map(|b| b / 1024.0)
    }),
    ("backlog_secs", "restart backlog (s)", |r| {
        field(r, "backlog_secs")
    }),
    ("restart_edit_p50_ms", "edit in backlog p50 (ms)", |r| {
        field(r, "restart_edit_p50_ms")
    }),
    ("restart_edit_p99_ms", "edit in backlog p99 (ms)", |r| {
        field(r, "restart_edit_p99_ms")
    }),
    ("overlapping_reconciles", "overlapping reconciles", |r| {
        field(r, "overlapping_reconciles")
    }),
];

/// Runs both clients `options.rounds` times, alternating, and writes the report.
pub(crate) fn run(options: &Options) -> Result<(), String> {
    let load = load_average();
    let extra = ["--foos".to_owned(), options.foos.to_string()];
    let mut runs = Runs::new();
    for round in 1..=options.rounds {
        for client in [KINFORMER, KUBE] {
            eprintln!(
                "round {round}/{}: {client} ({} Foos)",
                options.rounds, options.foos
            );
            let sim = SimProcess::start_with(&[], "an empty sim", &options.out_dir)?;
            let run = clients::run_client(client, &sim, options, &extra)?;
            drop(sim);
            eprintln!("  {run:?}");
            runs.entry(client.to_owned()).or_default().push(run);
        }
    }
    let md = table(options, &runs, &load);
    let json = json(&runs);
    std::fs::write(options.out_dir.join("controller.md"), &md)
        .and_then(|()| std::fs::write(options.out_dir.join("controller.json"), json))
        .map_err(|e| format!("writing the controller report: {e}"))?;
    eprintln!("{md}");
    eprintln!(
        "written: {}",
        options.out_dir.join("controller.md").display()
    );
    Ok(())
}

fn table(options: &Options, runs: &Runs, load: &str) -> String {
    let mut md = format!(
        "# The controller run\n\n`cargo xtask bench --controller --foos {} --rounds {}`: \
         sample-controller over {} Foos, kinformer's runtime and kube-rs's `Controller` \
         (kube-runtime 5, `owns`), each with its defaults, a fresh sim per run, medians of {} \
         runs. Load average at start: {load}.\n\n| client |",
        options.foos, options.rounds, options.foos, options.rounds
    );
    for (_, title, _) in COLUMNS {
        let _ = write!(md, " {title} |");
    }
    md.push_str("\n|---|");
    md.push_str(&"---|".repeat(COLUMNS.len()));
    md.push('\n');
    for (client, name) in [(KINFORMER, "kinformer"), (KUBE, "kube-rs")] {
        let _ = write!(md, "| {name} |");
        for (_, _, metric) in COLUMNS {
            let _ = write!(md, " {} |", cell(median(runs, client, *metric)));
        }
        md.push('\n');
    }
    md.push_str("| kinformer / kube-rs |");
    for (_, _, metric) in COLUMNS {
        let ratio = median(runs, KINFORMER, *metric)
            .zip(median(runs, KUBE, *metric))
            .filter(|(_, b)| *b != 0.0)
            .map(|(a, b)| format!("{:.2}x", a / b));
        let _ = write!(md, " {} |", ratio.unwrap_or_else(|| "–".to_owned()));
    }
    md.push_str("\n\n## Goals\n\n");
    let ratio = |i: usize| {
        let metric = COLUMNS[i].2;
        median(runs, KINFORMER, metric)
            .zip(median(runs, KUBE, metric))
            .map(|(a, b)| a / b)
    };
    let ours = |i: usize| median(runs, KINFORMER, COLUMNS[i].2);
    let goals: [(&str, Option<f64>, f64); 5] = [
        ("every Foo reconciled, vs kube-rs", ratio(0), 0.6),
        ("requests until quiet, vs kube-rs", ratio(2), 1.0),
        ("reconciles per change", ours(5), 1.05),
        ("RSS per Foo, vs kube-rs", ratio(8), 0.5),
        (
            "edit in the restart backlog, p99 (s)",
            ours(11).map(|ms| ms / 1000.0),
            1.0,
        ),
    ];
    for (what, value, bound) in goals {
        let verdict = match value {
            Some(v) if v <= bound => format!("{v:.2} ≤ {bound}: met"),
            Some(v) => format!("{v:.2} > {bound}: **not met**"),
            None => "not measured".to_owned(),
        };
        let _ = writeln!(md, "- {what}: {verdict}");
    }
    md
}

fn json(runs: &Runs) -> String {
    let mut out = String::from("{");
    for (i, client) in [KINFORMER, KUBE].iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "\"{client}\":{{");
        let cells: Vec<String> = COLUMNS
            .iter()
            .filter_map(|(key, _, metric)| {
                median(runs, client, *metric).map(|v| format!("\"{key}\":{v}"))
            })
            .collect();
        out.push_str(&cells.join(","));
        out.push('}');
    }
    out.push('}');
    out
}
