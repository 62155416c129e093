//! Command-line arguments.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};
use kinformer::indexer::Compression;
use kinformer_core::{Fields, Holding, ObjectShape};

/// Kubernetes informers from the command line.
#[derive(Debug, Parser)]
#[command(name = "kinformer", version, about)]
pub(crate) struct Cli {
    /// More logging (-v, -vv); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub(crate) verbose: u8,
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run a pod informer against the embedded API server with generated pods and churn.
    Demo(DemoArgs),
    /// Print every add, update and delete of a resource as the informer handles it.
    Watch(WatchArgs),
    /// Keep a cache in sync, then write it as JSON lines and print a one-line JSON report.
    Mirror(MirrorArgs),
    /// Run the embedded API server as a process.
    Sim(kinformer_sim::cli::Args),
    /// Soak a mirror process under churn and rotating faults; chart its memory.
    Soak(SoakArgs),
}

/// `kinformer soak`.
#[derive(Debug, Args)]
pub(crate) struct SoakArgs {
    /// How long the mirror runs once synced.
    #[arg(long, default_value_t = 30.0)]
    pub(crate) minutes: f64,
    /// Pods on the embedded server.
    #[arg(long, default_value_t = 5_000)]
    pub(crate) pods: usize,
    /// Writes per second (updates, creates and deletes).
    #[arg(long, default_value_t = 300.0)]
    pub(crate) churn: f64,
    /// Seconds between two faults (each of another kind).
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub(crate) fault_every: f64,
    /// Seconds between two memory samples.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    pub(crate) sample_every: f64,
    /// Seed of the generated pods and the churn.
    #[arg(long, default_value_t = 7)]
    pub(crate) seed: u64,
    /// Where `soak.csv`, `soak.svg`, `soak.json` and the mirror's dump go.
    #[arg(long, value_name = "DIR", default_value = "target/soak")]
    pub(crate) out: PathBuf,
}

/// `kinformer demo`.
#[derive(Debug, Args)]
pub(crate) struct DemoArgs {
    /// Pods to generate.
    #[arg(long, default_value_t = 20_000)]
    pub(crate) pods: usize,
    /// Namespaces to spread them over.
    #[arg(long, default_value_t = 20)]
    pub(crate) namespaces: usize,
    /// Writes per second once synced (updates, creates and deletes).
    #[arg(long, default_value_t = 200.0)]
    pub(crate) churn: f64,
    /// Stop after this many seconds (default: run until Ctrl-C).
    #[arg(long, value_name = "SECONDS")]
    pub(crate) duration: Option<u64>,
}

/// Where to connect: a kubeconfig as kubectl reads it.
#[derive(Debug, Args, Clone)]
pub(crate) struct ClusterArgs {
    /// Kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster).
    #[arg(long, value_name = "FILE")]
    pub(crate) kubeconfig: Option<PathBuf>,
    /// Context to use (default: the kubeconfig's current context).
    #[arg(long)]
    pub(crate) context: Option<String>,
}

/// Which objects: namespace and selectors.
#[derive(Debug, Args, Clone)]
#[command(group(ArgGroup::new("packed").args(["compact", "tiered"])))]
pub(crate) struct ScopeArgs {
    /// The resource: plural, singular, kind or short name, optionally `.group` (pods, deploy, widgets.example.com).
    pub(crate) resource: String,
    /// Only this namespace.
    #[arg(short, long, conflicts_with = "all_namespaces")]
    pub(crate) namespace: Option<String>,
    /// All namespaces (the default when no namespace is given).
    #[arg(short = 'A', long)]
    pub(crate) all_namespaces: bool,
    /// Label selector.
    #[arg(short = 'l', long)]
    pub(crate) selector: Option<String>,
    /// Cache metadata only (`PartialObjectMetadata`: names, labels, annotations, owners,
    /// versions), as client-go's metadata informers do: the server sends nothing else.
    #[arg(long)]
    pub(crate) metadata_only: bool,
    /// Hold the cache in compact form: each object packed (Kubernetes' protobuf for a built-in
    /// type, else JSON), decoded when read (a tenth of the memory, a decode per read).
    #[arg(long, conflicts_with = "tiered")]
    pub(crate) compact: bool,
    /// Hold the cache tiered: packed as with `--compact`, plus the most recently read objects
    /// kept decoded (1,024 by default, `--hot`).
    #[arg(long)]
    pub(crate) tiered: bool,
    /// Compress a packed cache's objects (`--compact`, `--tiered`) with a zstd dictionary
    /// trained on its first 1,000 objects: about a tenth of the bytes, a little more per read.
    #[arg(long, requires = "packed")]
    pub(crate) compress: bool,
    /// How many recently read objects a tiered cache keeps decoded.
    #[arg(long, requires = "tiered", value_parser = clap::value_parser!(NonZeroUsize))]
    pub(crate) hot: Option<NonZeroUsize>,
    /// Keep `metadata.managedFields` (server-side apply's bookkeeping, 20-50% of a real
    /// object's bytes), which the cache drops by default.
    #[arg(long)]
    pub(crate) managed_fields: bool,
}

impl ScopeArgs {
    /// The cache's shape these flags ask for: the library's default otherwise.
    pub(crate) fn shape(&self) -> ObjectShape {
        let mut shape = ObjectShape::default();
        if self.managed_fields {
            shape = shape.with_fields(Fields::All);
        }
        if self.compact {
            shape = shape.with_holding(Holding::Compact);
        }
        if self.tiered {
            let hot = self.hot.unwrap_or(Holding::DEFAULT_HOT);
            shape = shape.with_holding(Holding::Tiered { hot });
        }
        shape
    }

    /// The compression these flags ask for: none unless `--compress`.
    pub(crate) fn compression(&self) -> Option<Compression> {
        self.compress.then(Compression::default)
    }
}

/// `kinformer watch`.
#[derive(Debug, Args)]
pub(crate) struct WatchArgs {
    #[command(flatten)]
    pub(crate) scope: ScopeArgs,
    /// Field selector.
    #[arg(long)]
    pub(crate) field_selector: Option<String>,
    /// Output: one line per event, or JSON objects.
    #[arg(long, short, value_enum, default_value_t = Output::Events)]
    pub(crate) output: Output,
    #[command(flatten)]
    pub(crate) cluster: ClusterArgs,
    /// Stop after this many seconds (default: run until Ctrl-C).
    #[arg(long, value_name = "SECONDS")]
    pub(crate) duration: Option<u64>,
}

/// `kinformer watch --output`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Output {
    /// `ADDED ns/name rv=12`.
    Events,
    /// `{"type":"ADDED","object":{...}}`.
    Json,
}

/// `kinformer mirror`.
#[derive(Debug, Args)]
pub(crate) struct MirrorArgs {
    #[command(flatten)]
    pub(crate) scope: ScopeArgs,
    #[command(flatten)]
    pub(crate) cluster: ClusterArgs,
    /// Streaming list (`sendInitialEvents`) or paginated list+watch.
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub(crate) streaming_list: OnOff,
    /// The delta queue.
    #[arg(long, value_enum, default_value_t = QueueArg::Inorder)]
    pub(crate) queue: QueueArg,
    /// Once synced, stop after this many seconds (default: on SIGINT/SIGTERM).
    #[arg(long, value_name = "SECONDS")]
    pub(crate) duration: Option<f64>,
    /// Where to write the cache, as JSON lines sorted by namespace/name.
    #[arg(long, value_name = "FILE")]
    pub(crate) dump: PathBuf,
    /// Dump only namespace, name, uid and resourceVersion of each object.
    #[arg(long)]
    pub(crate) summary: bool,
    /// Serve the informer's and the REST client's Prometheus metrics (client-go's names:
    /// `reflector_*`, `informer_*`, `rest_client_*`) at `http://ADDR/metrics`.
    #[arg(long, value_name = "ADDR")]
    pub(crate) metrics: Option<std::net::SocketAddr>,
}

/// `on` or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OnOff {
    /// Enabled.
    On,
    /// Disabled.
    Off,
}

/// `--queue`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum QueueArg {
    /// client-go's DeltaFIFO.
    Deltafifo,
    /// client-go's in-order queue (RealFIFO).
    Inorder,
}
