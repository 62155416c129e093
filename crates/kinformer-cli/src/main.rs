//! `kinformer`: informers from the command line.
//!
//! - `kinformer demo`: an informer on the embedded API server, no cluster needed;
//! - `kinformer watch RESOURCE`: print every add, update and delete of any resource of any cluster;
//! - `kinformer mirror RESOURCE --dump FILE`: keep a cache in sync, then write it out with a report;
//! - `kinformer sim`: the embedded API server as a process;
//! - `kinformer soak`: a mirror process under churn and rotating faults, its memory charted.
//!
//! Errors are one line on stderr and exit code 1; nothing panics on bad input.

mod args;
mod cluster;
mod demo;
mod discovery;
mod error;
mod informer;
mod metrics_server;
mod mirror;
mod rss;
mod signal;
mod soak;
mod watch;

use std::process::ExitCode;

/// The allocator the command was built with (feature `mimalloc`); the libraries choose none.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The allocator the command was built with (feature `jemalloc`, unless `mimalloc` is chosen).
#[cfg(all(feature = "jemalloc", not(feature = "mimalloc")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use clap::Parser;

use crate::args::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_tracing(cli.verbose);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return error::report(&error::CliError::Io(e)),
    };
    let result = runtime.block_on(async move {
        if !matches!(cli.command, Command::Sim(_)) {
            signal::listen();
        }
        match cli.command {
            Command::Demo(args) => demo::run(args).await,
            Command::Watch(args) => watch::run(args).await,
            Command::Mirror(args) => mirror::run(args).await,
            Command::Sim(args) => kinformer_sim::cli::run(args).await.map_err(Into::into),
            Command::Soak(args) => soak::run(args).await,
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => error::report(&e),
    }
}

/// Logs go to stderr, coloured only when it is a terminal; `RUST_LOG` wins over `-v`.
fn init_tracing(verbose: u8) {
    use std::io::IsTerminal as _;

    let default = match verbose {
        0 => "warn",
        1 => "info,kinformer=debug",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}
