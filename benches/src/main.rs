//! `bench-client MODE --kubeconfig FILE --control URL [--burst N] [--lag-rate R] [--lag-secs S]
//! [--no-relist] [--sync-only] [--informers N] [--gets N] [--get-secs S] [--sim-pid PID]
//! [--foos N] [--concurrency N]`
//!
//! One benchmark client, run as its own process by `cargo xtask bench` so its memory is its own.
//! It syncs a pod cache (or, for the floors, fetches and decodes the same list), then measures a
//! saturating watch burst, the lag from the server's write to the handler at a fixed churn rate,
//! and a forced relist, and prints one `BENCH key=value ...` line. `--sync-only` stops after the
//! sync and steady-state memory; `--exit-after-sync` prints the report and exits right after the
//! sync, so a profile of the process is a profile of the sync.
//!
//! Modes: `kinformer`, `kinformer-keep` (managedFields kept), `kinformer-paged` (no streaming list),
//! `kinformer-trim` (each pod's lists trimmed in place instead of the pod copied into exactly
//! sized allocations as it arrives, which every other kinformer mode does),
//! `kinformer-metadata` (a metadata-only informer of the same pods), `kinformer-projected`
//! (keeping metadata, the node, the phase and container names and images), `kinformer-compact`
//! (the cache in compact mode), `kinformer-tiered` (compact plus a hot set of recently read
//! objects kept decoded; every kinformer mode also times `get`s and a namespace's list),
//! `kinformer-compressed` (compact, compressed with a dictionary trained on the first pods),
//! `kinformer-json` (the defaults on a client asking for JSON; protobuf is the default),
//! `kube`, `kube-strip` (kube-rs with `.modify()` stripping managedFields), `floor-decode`,
//! `floor-decode-protobuf` (the same floor on protobuf frames), `floor-bytes`. With `--sim-pid`, the
//! sync also reports the sim's CPU time and bytes written while serving it.
//!
//! The many-informers modes, `informers-kinformer` and `informers-kube`, instead start `--informers`
//! namespace-scoped ConfigMap informers and one cluster-wide one on one client, then issue
//! `--gets` GETs over `--get-secs` seconds on the same client (see `informers.rs`).
//!
//! The controller modes, `controller-kinformer` and `controller-kube`, run Kubernetes'
//! sample-controller over `--foos` Foos on kinformer's runtime and on kube-rs's `Controller`
//! (see `controller.rs`).
//!
//! The proxy modes, `proxy-direct`, `proxy-http` and `proxy-socks5`, sync the pod informer from a
//! TLS sim directly, through an HTTP `CONNECT` proxy or through a SOCKS5 proxy, and report the
//! bytes the proxy relayed (see `proxy.rs`).

mod control;
mod controller;
mod controller_kinformer;
mod controller_kube;
mod floor;
mod floor_protobuf;
mod informers;
mod informers_kinformer;
mod informers_kube;
mod kinformer_client;
mod kube_client;
mod lag;
mod measure;
mod proxy;
mod reads;
mod setup;
mod sim_usage;

use std::process::ExitCode;
use std::time::Duration;

use crate::measure::Report;

/// Parsed command line.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub(crate) mode: String,
    pub(crate) kubeconfig: String,
    pub(crate) control: String,
    pub(crate) burst: u64,
    pub(crate) relist: bool,
    /// Stamped updates per second in the lag phase (0: no lag phase).
    pub(crate) lag_rate: f64,
    /// Length of the lag phase.
    pub(crate) lag_secs: f64,
    /// Only sync and measure steady memory: no burst, lag or relist.
    pub(crate) sync_only: bool,
    /// Print the report and exit as soon as the cache is synced, without dropping it (profiling).
    pub(crate) exit_after_sync: bool,
    /// Namespace-scoped informers of the many-informers modes (plus one cluster-wide).
    pub(crate) informers: usize,
    /// GETs issued while the many informers are open.
    pub(crate) gets: usize,
    /// Seconds the GETs are spread over.
    pub(crate) get_secs: f64,
    /// The sim's process, whose CPU and bytes written during the sync are reported.
    pub(crate) sim_pid: Option<u32>,
    /// Foos of the controller modes.
    pub(crate) foos: usize,
    /// Reconciles at once for `controller-kinformer` (`None`: the runtime's default).
    pub(crate) concurrency: Option<std::num::NonZeroUsize>,
}

impl Options {
    fn parse() -> Result<Self, String> {
        let mut args = std::env::args().skip(1);
        let mode = args.next().ok_or("missing MODE")?;
        let mut options = Self {
            mode,
            kubeconfig: String::new(),
            control: String::new(),
            burst: 20_000,
            relist: true,
            lag_rate: 5_000.0,
            lag_secs: 4.0,
            sync_only: false,
            exit_after_sync: false,
            informers: 500,
            gets: 200,
            get_secs: 4.0,
            sim_pid: None,
            foos: 10_000,
            concurrency: None,
        };
        while let Some(flag) = args.next() {
            let mut value = || args.next().ok_or(format!("{flag} needs a value"));
            match flag.as_str() {
                "--kubeconfig" => options.kubeconfig = value()?,
                "--control" => options.control = value()?,
                "--burst" => {
                    options.burst = value()?.parse().map_err(|e| format!("--burst: {e}"))?
                }
                "--lag-rate" => {
                    options.lag_rate = value()?.parse().map_err(|e| format!("--lag-rate: {e}"))?
                }
                "--lag-secs" => {
                    options.lag_secs = value()?.parse().map_err(|e| format!("--lag-secs: {e}"))?
                }
                "--informers" => {
                    options.informers = value()?.parse().map_err(|e| format!("--informers: {e}"))?
                }
                "--gets" => options.gets = value()?.parse().map_err(|e| format!("--gets: {e}"))?,
                "--get-secs" => {
                    options.get_secs = value()?.parse().map_err(|e| format!("--get-secs: {e}"))?
                }
                "--sim-pid" => {
                    options.sim_pid = Some(value()?.parse().map_err(|e| format!("--sim-pid: {e}"))?)
                }
                "--concurrency" => {
                    options.concurrency = Some(
                        value()?
                            .parse()
                            .map_err(|e| format!("--concurrency: {e}"))?,
                    )
                }
                "--foos" => options.foos = value()?.parse().map_err(|e| format!("--foos: {e}"))?,
                "--no-relist" => options.relist = false,
                "--sync-only" => options.sync_only = true,
                "--exit-after-sync" => options.exit_after_sync = true,
                other => return Err(format!("unknown flag {other}")),
            }
        }
        if options.kubeconfig.is_empty() || options.control.is_empty() {
            return Err("--kubeconfig and --control are required".into());
        }
        Ok(options)
    }

    /// How long to watch memory during a forced relist: long enough for the slowest client.
    pub(crate) fn relist_window(&self, sync: Duration) -> Duration {
        (sync * 2).max(Duration::from_secs(3))
    }
}

fn main() -> ExitCode {
    let options = match Options::parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("bench-client: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("bench-client: runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Built outside the client's runtime, so it is also dropped outside it.
    let proxy_runtime = match proxy::runtime(&options.mode) {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("bench-client: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut report = Report::new(&options.mode);
    report.sim_before = options.sim_pid.and_then(sim_usage::SimUsage::sample);
    let result = runtime.block_on(async {
        match options.mode.as_str() {
            "kinformer"
            | "kinformer-keep"
            | "kinformer-paged"
            | "kinformer-trim"
            | "kinformer-metadata"
            | "kinformer-compact"
            | "kinformer-tiered"
            | "kinformer-compressed"
            | "kinformer-projected"
            | "kinformer-json" => kinformer_client::run(&options, &mut report).await,
            "kube" | "kube-strip" => kube_client::run(&options, &mut report).await,
            "floor-decode" | "floor-decode-protobuf" | "floor-bytes" => {
                floor::run(&options, &mut report).await
            }
            "controller-kinformer" => controller_kinformer::run(&options, &mut report).await,
            "controller-kube" => controller_kube::run(&options, &mut report).await,
            "informers-kinformer" => informers_kinformer::run(&options, &mut report).await,
            "informers-kube" => informers_kube::run(&options, &mut report).await,
            "proxy-direct" | "proxy-http" | "proxy-socks5" => {
                let handle = proxy_runtime.as_ref().map(tokio::runtime::Runtime::handle);
                proxy::run(&options, &mut report, handle).await
            }
            other => Err(format!("unknown mode {other}")),
        }
    });
    match result {
        Ok(()) => {
            use std::io::Write as _;
            match writeln!(std::io::stdout().lock(), "{report}") {
                Ok(()) => ExitCode::SUCCESS,
                Err(_) => ExitCode::FAILURE,
            }
        }
        Err(e) => {
            eprintln!("bench-client {}: {e}", options.mode);
            ExitCode::FAILURE
        }
    }
}
