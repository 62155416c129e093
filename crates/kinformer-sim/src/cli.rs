//! The simulator's command line, shared by the `kinformer-sim` binary and `kinformer sim`.

use std::path::PathBuf;
use std::time::Duration;

use crate::{Churn, Error, Result, Sim};

/// An embedded Kubernetes API server with real list/watch semantics.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Pods to generate at start.
    #[arg(long, default_value_t = 0)]
    pub pods: usize,
    /// Configmaps to generate at start.
    #[arg(long, default_value_t = 0)]
    pub configmaps: usize,
    /// Namespaces to spread generated objects over.
    #[arg(long, default_value_t = 1)]
    pub namespaces: usize,
    /// Seed of generated objects and churn.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Churn: writes per second to pods (0: none).
    #[arg(long, default_value_t = 0.0)]
    pub churn: f64,
    /// Serve HTTPS with a generated CA (written into the kubeconfig).
    #[arg(long)]
    pub tls: bool,
    /// Require this bearer token.
    #[arg(long)]
    pub token: Option<String>,
    /// Write a kubeconfig for this server to FILE.
    #[arg(long, value_name = "FILE")]
    pub write_kubeconfig: Option<PathBuf>,
    /// Compact every SECONDS (0: only on demand).
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub compact_interval: u64,
    /// Periodic compaction keeps this many recent revisions (default: up to the previous compaction's revision).
    #[arg(long, value_name = "REVISIONS")]
    pub compact_keep: Option<u64>,
    /// Seconds between watch bookmarks.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub bookmark_interval: u64,
    /// Keep at most this many revisions of history (0: unbounded).
    #[arg(long, value_name = "REVISIONS", default_value_t = 200_000)]
    pub max_history: u64,
    /// Never gzip responses, even for clients that accept it.
    #[arg(long)]
    pub no_gzip: bool,
    /// The managedFields of generated pods: `realistic` (per manager, every field it wrote, as
    /// a real API server records them) or `small` (the sim's earlier two short entries).
    #[arg(long, value_name = "SHAPE", default_value = "realistic", value_parser = parse_shape)]
    pub managed_fields: crate::ManagedFieldsShape,
    /// HTTP/2 streams each connection allows (kube-apiserver's default is 100).
    #[arg(long, value_name = "N", default_value_t = crate::DEFAULT_MAX_CONCURRENT_STREAMS)]
    pub max_concurrent_streams: u32,
    /// Encode each object's protobuf form as it is written, from the start (default: from the
    /// first protobuf request on), so the first protobuf list costs what a JSON one does.
    #[arg(long)]
    pub protobuf: bool,
    /// Answer discovery only in the legacy form, as servers before aggregated discovery (and
    /// proxies that strip it) do.
    #[arg(long)]
    pub no_aggregated_discovery: bool,
    /// Write the bound port to FILE once listening.
    #[arg(long, value_name = "FILE")]
    pub port_file: Option<PathBuf>,
}

/// Starts the simulator as `args` say and serves until Ctrl-C.
///
/// # Errors
/// Binding, TLS set-up, or writing the kubeconfig or port file failed.
pub async fn run(args: Args) -> Result<()> {
    let mut builder = Sim::builder()
        .port(args.port)
        .pods(args.pods)
        .configmaps(args.configmaps)
        .namespaces(args.namespaces)
        .seed(args.seed)
        .max_history(args.max_history)
        .gzip(!args.no_gzip)
        .managed_fields(args.managed_fields)
        .tls(args.tls)
        .max_concurrent_streams(args.max_concurrent_streams)
        .protobuf(args.protobuf)
        .aggregated_discovery(!args.no_aggregated_discovery)
        .bookmark_interval(Duration::from_secs(args.bookmark_interval.max(1)))
        .compact_interval(
            (args.compact_interval > 0).then(|| Duration::from_secs(args.compact_interval)),
        );
    if let Some(t) = args.token {
        builder = builder.token(t);
    }
    if let Some(k) = args.compact_keep {
        builder = builder.compact_keep(k);
    }
    if args.churn > 0.0 {
        builder = builder.churn(Churn::new(args.churn).seed(args.seed));
    }
    let sim = builder.start().await?;
    if let Some(path) = &args.write_kubeconfig {
        sim.write_kubeconfig(path)?;
    }
    if let Some(path) = &args.port_file {
        std::fs::write(path, sim.addr().port().to_string()).map_err(Error::Io)?;
    }
    eprintln!(
        "kinformer-sim serving {} (control API under /_control/)",
        sim.url()
    );
    tokio::signal::ctrl_c().await.map_err(Error::Io)?;
    Ok(())
}

fn parse_shape(value: &str) -> std::result::Result<crate::ManagedFieldsShape, String> {
    match value {
        "realistic" => Ok(crate::ManagedFieldsShape::Realistic),
        "small" => Ok(crate::ManagedFieldsShape::Small),
        other => Err(format!("{other}: realistic or small")),
    }
}
