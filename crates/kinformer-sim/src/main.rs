//! `kinformer-sim`: run the simulator as a process, for kubectl, demos and clients in other languages.

use clap::Parser;

/// An embedded Kubernetes API server with real list/watch semantics.
#[derive(Debug, Parser)]
#[command(name = "kinformer-sim", version)]
struct Cli {
    #[command(flatten)]
    args: kinformer_sim::cli::Args,
}

#[tokio::main]
async fn main() -> Result<(), kinformer_sim::Error> {
    kinformer_sim::cli::run(Cli::parse().args).await
}
