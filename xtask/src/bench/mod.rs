//! `cargo xtask bench`: kinformer against kube-rs and the decode floor, side by side in one run.
//!
//! The simulator runs as its own process; each client runs as its own process, alternating
//! (A B C ... A B C ...) for several rounds; medians, min and max go to a markdown table, a JSON
//! file and one SVG chart per metric under `target/bench/`.
//!
//! `cargo xtask bench [--pods N[,N...]] [--rounds R] [--burst N] [--lag-rate R] [--lag-secs S]
//! [--clients a,b] [--shape realistic|small|both]`: 50,000 pods and 3 rounds by default, on pods
//! whose managedFields look like a real API server's first and then on the sim's earlier small
//! shape (`--shape` picks one); `--quick`: 10,000 pods, one round; `--scale`: sync and memory at
//! 10k, 50k and 150k pods, with the cost per object at each.
//!
//! Every run but `--scale` ends with the many-informers run: 500 namespace-scoped informers and
//! one cluster-wide one on one client against a sim at kube-apiserver's stream limit, kinformer
//! beside kube-rs (`--informers` runs only that; `--informer-count N` changes the 500;
//! `--no-informers` skips it). It also ends with the proxy run: kinformer's pod informer syncs
//! 10,000 pods from a TLS sim directly, through an HTTP `CONNECT` proxy and through a SOCKS5
//! proxy, alternating (`--proxy` runs only that; `--no-proxy` skips it). `--informers` and
//! `--proxy` together run both and nothing else. `--no-build` runs the release binaries already
//! built.
//!
//! `cargo xtask bench --controller [--foos N]` runs only the controller run: sample-controller
//! over 10,000 Foos on kinformer's runtime and on kube-rs's `Controller` (see `controller.rs`).
//!
//! `cargo xtask bench profile [--pods N] [--modes a,b]` profiles the initial sync under callgrind
//! into `target/bench/profile.md`.
//!
//! `cargo xtask bench areas [sim|rest|indexer|deltafifo|all]` runs the per-crate micro benchmarks.

mod areas;
mod callgrind;
mod clients;
mod controller;
mod goals;
mod informers;
mod profile;
mod proxy;
mod report;
mod scale;
mod sim_process;
mod stats;
mod svg;

use std::path::{Path, PathBuf};

use crate::step;

/// Options of a comparison run.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub(crate) pods: Vec<usize>,
    pub(crate) rounds: usize,
    pub(crate) burst: u64,
    pub(crate) clients: Vec<String>,
    pub(crate) out_dir: PathBuf,
    /// Stamped updates per second in the lag phase (0: none).
    pub(crate) lag_rate: f64,
    /// Seconds the lag phase lasts.
    pub(crate) lag_secs: f64,
    /// Only sync and steady memory (the scale run): no burst, lag or relist.
    pub(crate) sync_only: bool,
    /// The machine's load average when the run started (other work on it skews every number).
    pub(crate) load_at_start: String,
    /// The managedFields shapes of the sim's pods, one section each, in order.
    pub(crate) shapes: Vec<String>,
    /// Whether to end with the many-informers run.
    pub(crate) many_informers: bool,
    /// Namespace-scoped informers in the many-informers run (plus one cluster-wide).
    pub(crate) informers: usize,
    /// Whether to end with the proxy run.
    pub(crate) proxy: bool,
    /// Use the release binaries already built (`--no-build`).
    pub(crate) build: bool,
    /// Run the controller run (and nothing else).
    pub(crate) controller: bool,
    /// Foos of the controller run.
    pub(crate) foos: usize,
}

/// kinformer in each cache mode and on JSON (its default is protobuf), kube-rs with its defaults and stripping
/// managedFields, and the decode floors (JSON and protobuf) (`kinformer-keep`, `kinformer-paged`, `kinformer-trim` and `floor-bytes` are
/// there to pick with `--clients`).
const DEFAULT_CLIENTS: &[&str] = &[
    "kinformer",
    "kinformer-compact",
    "kinformer-tiered",
    "kinformer-compressed",
    "kinformer-metadata",
    "kinformer-projected",
    "kinformer-json",
    "kube",
    "kube-strip",
    "floor-decode",
    "floor-decode-protobuf",
];

/// The scale run measures sync and memory only, of kinformer, the peer and the decode floor of
/// what kinformer reads by default (protobuf).
const SCALE_CLIENTS: &[&str] = &["kinformer", "kube", "kube-strip", "floor-decode-protobuf"];

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        pods: vec![50_000],
        rounds: 3,
        burst: 20_000,
        clients: DEFAULT_CLIENTS.iter().map(|c| (*c).to_owned()).collect(),
        out_dir: PathBuf::from("target/bench"),
        lag_rate: 5_000.0,
        lag_secs: 4.0,
        sync_only: false,
        load_at_start: String::new(),
        shapes: vec!["realistic".to_owned(), "small".to_owned()],
        many_informers: true,
        informers: 500,
        proxy: true,
        build: true,
        controller: false,
        foos: 10_000,
    };
    // `--informers` and `--proxy` each ask for their run alone; given together, for both.
    let (mut only_informers, mut only_proxy) = (false, false);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().cloned().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--pods" => {
                options.pods = value()?
                    .split(',')
                    .map(|p| p.parse().map_err(|e| format!("--pods: {e}")))
                    .collect::<Result<_, _>>()?
            }
            "--rounds" => {
                options.rounds = value()?.parse().map_err(|e| format!("--rounds: {e}"))?
            }
            "--burst" => options.burst = value()?.parse().map_err(|e| format!("--burst: {e}"))?,
            "--clients" => options.clients = value()?.split(',').map(str::to_owned).collect(),
            "--shape" => {
                options.shapes = match value()?.as_str() {
                    "both" => vec!["realistic".to_owned(), "small".to_owned()],
                    shape @ ("realistic" | "small") => vec![shape.to_owned()],
                    other => return Err(format!("--shape: {other}: realistic, small or both")),
                }
            }
            "--lag-rate" => {
                options.lag_rate = value()?.parse().map_err(|e| format!("--lag-rate: {e}"))?
            }
            "--lag-secs" => {
                options.lag_secs = value()?.parse().map_err(|e| format!("--lag-secs: {e}"))?
            }
            "--informers" => only_informers = true,
            "--no-informers" => options.many_informers = false,
            "--proxy" => only_proxy = true,
            "--no-proxy" => options.proxy = false,
            "--no-build" => options.build = false,
            "--controller" => options.controller = true,
            "--foos" => options.foos = value()?.parse().map_err(|e| format!("--foos: {e}"))?,
            "--informer-count" => {
                options.informers = value()?
                    .parse()
                    .map_err(|e| format!("--informer-count: {e}"))?
            }
            "--quick" => {
                options.pods = vec![10_000];
                options.rounds = 1;
                options.burst = 5_000;
            }
            "--scale" => {
                options.pods = vec![10_000, 50_000, 150_000];
                options.rounds = 1;
                options.sync_only = true;
                options.many_informers = false;
                options.proxy = false;
                options.clients = SCALE_CLIENTS.iter().map(|c| (*c).to_owned()).collect();
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    if options.foos == 0 {
        return Err("--foos must be at least 1".into());
    }
    if only_informers || only_proxy {
        options.shapes.clear();
        options.many_informers = only_informers;
        options.proxy = only_proxy;
    }
    Ok(options)
}

/// Builds the simulator and the bench clients in release mode.
fn build_release() -> Result<(), String> {
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
    )
}

/// Runs the comparison, or the per-crate benchmarks with `areas`.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        Some("areas") => return areas::run(&args[1..]),
        Some("profile") => return profile::run(&args[1..], Path::new("target/bench")),
        _ => {}
    }
    let mut options = parse(args)?;
    if options.build {
        build_release()?;
    }
    options.load_at_start = report::load_average();
    std::fs::create_dir_all(&options.out_dir).map_err(|e| format!("creating output dir: {e}"))?;
    if options.controller {
        return controller::run(&options);
    }
    let mut sections = Vec::new();
    for shape in &options.shapes {
        let mut all = Vec::new();
        for &pods in &options.pods {
            let sim = sim_process::SimProcess::start(pods, shape, &options.out_dir)?;
            let what = format!("{pods} pods");
            let runs = clients::run_rounds(&options, &sim, &options.clients, &what)?;
            drop(sim);
            all.push((pods, runs));
        }
        sections.push((shape.clone(), all));
    }
    let many = if options.many_informers {
        Some(informers::run(&options)?)
    } else {
        None
    };
    let proxied = if options.proxy {
        Some(proxy::run(&options)?)
    } else {
        None
    };
    report::write(&options, &sections, many.as_ref(), proxied.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Options {
        parse(&args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn proxy_and_informers_runs_alone_together_or_skipped() {
        let full = parsed(&[]);
        assert_eq!(full.shapes.len(), 2);
        assert!(full.many_informers && full.proxy);

        let proxy = parsed(&["--proxy", "--no-build"]);
        assert!(proxy.shapes.is_empty() && !proxy.many_informers && proxy.proxy && !proxy.build);

        let informers = parsed(&["--informers"]);
        assert!(informers.shapes.is_empty() && informers.many_informers && !informers.proxy);

        let both = parsed(&["--proxy", "--informers"]);
        assert!(both.shapes.is_empty() && both.many_informers && both.proxy);

        let skipped = parsed(&["--no-proxy"]);
        assert_eq!(skipped.shapes.len(), 2);
        assert!(skipped.many_informers && !skipped.proxy);
        assert!(!parsed(&["--scale"]).proxy);
    }
}
