//! `cargo xtask bench`: kinformer against kube-rs and the decode floor, side by side in one run.
//!
//! The simulator runs as its own process; each client runs as its own process, alternating
//! (A B C ... A B C ...) for several rounds; medians, min and max go to a markdown table, a JSON
//! file and one SVG chart per metric under `target/bench/`.
//!
//! `cargo xtask bench areas [sim|rest|indexer|deltafifo|all]` runs the per-crate micro benchmarks.

mod areas;
mod clients;
mod report;
mod sim_process;
mod stats;
mod svg;

use std::path::PathBuf;

use crate::step;

/// Options of a comparison run.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub(crate) pods: Vec<usize>,
    pub(crate) rounds: usize,
    pub(crate) burst: u64,
    pub(crate) clients: Vec<String>,
    pub(crate) out_dir: PathBuf,
}

const DEFAULT_CLIENTS: &[&str] = &[
    "kinformer",
    "kinformer-keep",
    "kinformer-paged",
    "kube",
    "kube-strip",
    "floor-decode",
    "floor-bytes",
];

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        pods: vec![50_000],
        rounds: 3,
        burst: 20_000,
        clients: DEFAULT_CLIENTS.iter().map(|c| (*c).to_owned()).collect(),
        out_dir: PathBuf::from("target/bench"),
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().cloned().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--pods" => options.pods = vec![value()?.parse().map_err(|e| format!("--pods: {e}"))?],
            "--rounds" => {
                options.rounds = value()?.parse().map_err(|e| format!("--rounds: {e}"))?
            }
            "--burst" => options.burst = value()?.parse().map_err(|e| format!("--burst: {e}"))?,
            "--clients" => options.clients = value()?.split(',').map(str::to_owned).collect(),
            "--quick" => {
                options.pods = vec![10_000];
                options.rounds = 1;
                options.burst = 5_000;
            }
            "--scale" => {
                options.pods = vec![10_000, 50_000, 150_000];
                options.rounds = 1;
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(options)
}

/// Runs the comparison, or the per-crate benchmarks with `areas`.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if args.first().map(String::as_str) == Some("areas") {
        return areas::run(&args[1..]);
    }
    let options = parse(args)?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    step(
        "build",
        &cargo,
        &[
            "build",
            "--release",
            "-p",
            "kinformer-sim",
            "-p",
            "kinformer-benches",
        ],
        &[],
    )?;
    std::fs::create_dir_all(&options.out_dir).map_err(|e| format!("creating output dir: {e}"))?;
    let mut all = Vec::new();
    for &pods in &options.pods {
        let sim = sim_process::SimProcess::start(pods, &options.out_dir)?;
        let runs = clients::run_rounds(&options, &sim, pods)?;
        drop(sim);
        all.push((pods, runs));
    }
    report::write(&options, &all)
}
