//! Starting the simulator ([`Sim::builder`]) and driving it ([`SimHandle`]).

use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;

use crate::churn::Churn;
use crate::generate::Generate;
use crate::handle::SimHandle;
use crate::shared::{Config, Shared};
use crate::status::ApiError;
use crate::{Error, ManagedFieldsShape, Result, server, tls};

/// Entry point: `Sim::builder()...start().await`.
#[derive(Debug)]
pub struct Sim(());

impl Sim {
    /// A builder with defaults: no objects, seed 0, plain HTTP on a free port of 127.0.0.1, no token,
    /// bookmarks every 60 s, compaction every 300 s of the revision seen at the previous compaction.
    ///
    /// # Examples
    /// ```
    /// # #[tokio::main] async fn main() -> Result<(), kinformer_sim::Error> {
    /// let sim = kinformer_sim::Sim::builder().pods(10).namespaces(2).seed(1).start().await?;
    /// assert_eq!(sim.stats().await.objects["pods"], 10);
    /// assert!(sim.url().starts_with("http://127.0.0.1:"));
    /// # Ok(()) }
    /// ```
    pub fn builder() -> SimBuilder {
        SimBuilder::default()
    }
}

/// Settings for a simulator; see [`Sim::builder`].
#[derive(Debug, Clone)]
#[must_use = "call start() to run the simulator"]
pub struct SimBuilder {
    pods: usize,
    configmaps: usize,
    namespaces: usize,
    seed: u64,
    tls: bool,
    token: Option<String>,
    port: u16,
    bookmark_interval: Duration,
    compact_interval: Option<Duration>,
    compact_keep: Option<u64>,
    too_large_wait: Duration,
    watch_timeout: Option<Duration>,
    churn: Option<Churn>,
    max_history: u64,
    gzip: bool,
    audit: bool,
    managed_fields: ManagedFieldsShape,
    max_concurrent_streams: u32,
    protobuf: bool,
    aggregated_discovery: bool,
    garbage_collection: bool,
    /// Namespaces that exist from the start besides the control plane's.
    created_namespaces: Vec<String>,
}

/// kube-apiserver's default `--http2-max-streams-per-connection`.
pub const DEFAULT_MAX_CONCURRENT_STREAMS: u32 = 100;

impl Default for SimBuilder {
    fn default() -> Self {
        Self {
            pods: 0,
            configmaps: 0,
            namespaces: 1,
            seed: 0,
            tls: false,
            token: None,
            port: 0,
            bookmark_interval: Duration::from_secs(60),
            compact_interval: Some(Duration::from_secs(300)),
            garbage_collection: true,
            compact_keep: None,
            too_large_wait: Duration::from_secs(3),
            watch_timeout: None,
            churn: None,
            max_history: 200_000,
            gzip: true,
            audit: false,
            managed_fields: ManagedFieldsShape::default(),
            max_concurrent_streams: DEFAULT_MAX_CONCURRENT_STREAMS,
            protobuf: false,
            aggregated_discovery: true,
            created_namespaces: Vec::new(),
        }
    }
}

impl SimBuilder {
    /// Generates `n` pods at start.
    pub fn pods(mut self, n: usize) -> Self {
        self.pods = n;
        self
    }

    /// Generates `n` configmaps at start.
    pub fn configmaps(mut self, n: usize) -> Self {
        self.configmaps = n;
        self
    }

    /// Spreads generated objects over `k` namespaces (`default`, `ns-1`, ...).
    pub fn namespaces(mut self, k: usize) -> Self {
        self.namespaces = k.max(1);
        self
    }

    /// Starts with namespace `name` created (besides `default`, `kube-system`, `kube-public`
    /// and `kube-node-lease`, which a cluster always has). As on a real cluster, a namespaced
    /// object can only be created in a namespace that exists (else 404 `namespaces "<name>" not
    /// found`); this saves a test the create.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let sim = kinformer_sim::Sim::builder().create_namespace("team-a").start().await?;
    /// assert!(sim.versions("namespaces").await?.contains_key("team-a"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn create_namespace(mut self, name: impl Into<String>) -> Self {
        self.created_namespaces.push(name.into());
        self
    }

    /// The seed of generated objects and churn.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Serves HTTPS with a generated CA (see [`SimHandle::ca_pem`]).
    pub fn tls(mut self, on: bool) -> Self {
        self.tls = on;
        self
    }

    /// Requires `Authorization: Bearer <token>` on API requests (401 otherwise).
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// The port on 127.0.0.1 (0, the default, picks a free one).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// How often watches with `allowWatchBookmarks=true` get a bookmark.
    pub fn bookmark_interval(mut self, every: Duration) -> Self {
        self.bookmark_interval = every;
        self
    }

    /// How often to compact (`None`: only on demand).
    pub fn compact_interval(mut self, every: Option<Duration>) -> Self {
        self.compact_interval = every;
        self
    }

    /// Periodic compaction keeps this many recent revisions (default: compact to the revision seen
    /// at the previous compaction, as kube-apiserver does).
    pub fn compact_keep(mut self, revisions: u64) -> Self {
        self.compact_keep = Some(revisions);
        self
    }

    /// How long a request for a future resourceVersion waits before 504 (the apiserver waits 3 s).
    pub fn too_large_wait(mut self, wait: Duration) -> Self {
        self.too_large_wait = wait;
        self
    }

    /// The timeout of watches that send no `timeoutSeconds` (default random in [30, 60) minutes).
    pub fn watch_timeout(mut self, timeout: Duration) -> Self {
        self.watch_timeout = Some(timeout);
        self
    }

    /// Keeps at most this many revisions of history (default 200,000; 0: unbounded). Beyond it,
    /// older history is compacted as writes arrive, the way the watch cache's capacity bounds its
    /// window; this also bounds memory under heavy churn.
    pub fn max_history(mut self, revisions: u64) -> Self {
        self.max_history = revisions;
        self
    }

    /// Whether responses over 128 KiB are gzipped for clients that send `Accept-Encoding: gzip`
    /// (default on, as kube-apiserver does).
    pub fn gzip(mut self, on: bool) -> Self {
        self.gzip = on;
        self
    }

    /// The managedFields generated pods carry: [`ManagedFieldsShape::Realistic`] (the default),
    /// per manager the full set of fields it wrote, as a real API server records them, or the
    /// earlier [`ManagedFieldsShape::Small`] shape, for comparing with older measurements.
    pub fn managed_fields(mut self, shape: ManagedFieldsShape) -> Self {
        self.managed_fields = shape;
        self
    }

    /// Encodes each revision's protobuf form (`application/vnd.kubernetes.protobuf`) as it is
    /// written, from the start (default off: from the first protobuf request on). With it, even
    /// the first protobuf list of objects generated at start only copies stored bytes, as a JSON
    /// list does; without it, writes cost what JSON alone costs, and the first protobuf read of
    /// a revision written before encodes it (parsing its JSON back). Turn it on for a sim that
    /// serves protobuf clients from the start, such as a benchmark of them.
    pub fn protobuf(mut self, on: bool) -> Self {
        self.protobuf = on;
        self
    }

    /// Whether `/api` and `/apis` answer in the aggregated form (`apidiscovery.k8s.io` v2 and
    /// v2beta1) to clients that ask for it (default on, as kube-apiserver does). Off, the sim
    /// answers as servers before aggregated discovery, and proxies that strip it, do: the legacy
    /// documents whatever `Accept` asks for, and one `APIResourceList` per group version.
    pub fn aggregated_discovery(mut self, on: bool) -> Self {
        self.aggregated_discovery = on;
        self
    }

    /// Keeps the write audit ([`SimHandle::audit`]): every revision's identity and labels,
    /// forever (default off; it grows with every write).
    pub fn audit(mut self, on: bool) -> Self {
        self.audit = on;
        self
    }

    /// The concurrent streams each HTTP/2 connection allows (`SETTINGS_MAX_CONCURRENT_STREAMS`;
    /// default 100, kube-apiserver's `--http2-max-streams-per-connection`). A client with more
    /// open requests than this on one connection waits, as it would on a real server. Values
    /// below 1 are raised to 1.
    pub fn max_concurrent_streams(mut self, streams: u32) -> Self {
        self.max_concurrent_streams = streams.max(1);
        self
    }

    /// Whether the sim collects garbage as kube-controller-manager does (on by default): the
    /// dependents of a deleted owner are deleted (background and foreground propagation) or
    /// released (orphan). Off, deletions with `Orphan` or `Foreground` propagation keep the
    /// owner with its finalizer, as a server without the collector does.
    pub fn garbage_collection(mut self, on: bool) -> Self {
        self.garbage_collection = on;
        self
    }

    /// Starts churn as soon as the server is up.
    pub fn churn(mut self, churn: Churn) -> Self {
        self.churn = Some(churn);
        self
    }

    /// Generates the objects, binds the port and starts serving.
    ///
    /// # Errors
    /// [`Error::Bind`] when the port is taken, [`Error::Tls`] when certificate generation fails.
    ///
    /// # Panics
    /// Needs a Tokio runtime (it spawns the server).
    pub async fn start(self) -> Result<SimHandle> {
        let shared = Shared::new(Config {
            token: self.token.clone(),
            bookmark_interval: self.bookmark_interval,
            too_large_wait: self.too_large_wait,
            seed: self.seed,
            default_watch_timeout: self.watch_timeout,
            max_history: self.max_history,
            gzip: self.gzip,
            audit: self.audit,
            managed_fields: self.managed_fields,
            max_concurrent_streams: self.max_concurrent_streams,
            protobuf: self.protobuf,
            aggregated_discovery: self.aggregated_discovery,
            created_namespaces: self.created_namespaces.clone(),
        });
        if self.garbage_collection {
            // Before anything is stored, so every owner reference is indexed.
            shared.store.start_collecting();
        }
        shared.seed_cluster()?;
        for (resource, count) in [("pods", self.pods), ("configmaps", self.configmaps)] {
            if count > 0 {
                let g = Generate::new(resource, count)
                    .namespaces(self.namespaces)
                    .seed(self.seed);
                shared.generate(&g)?;
            }
        }
        let listener = TcpListener::bind(("127.0.0.1", self.port))
            .await
            .map_err(Error::Bind)?;
        let addr = listener.local_addr().map_err(Error::Bind)?;
        let material = if self.tls {
            Some(tls::generate()?)
        } else {
            None
        };
        let scheme = if material.is_some() { "https" } else { "http" };
        let tls_config = material.as_ref().map(|m| m.config.clone());
        let server = tokio::spawn(server::serve(listener, shared.clone(), tls_config.clone()));
        let compactor = self.compact_interval.map(|every| {
            tokio::spawn(compact_periodically(
                shared.clone(),
                every,
                self.compact_keep,
            ))
        });
        let collector = self
            .garbage_collection
            .then(|| tokio::spawn(crate::gc::collect(shared.clone())));
        let crds = tokio::spawn(crate::crd::controller::run(shared.clone()));
        let namespaces = tokio::spawn(crate::namespace_lifecycle::run(shared.clone()));
        if let Some(churn) = self.churn {
            shared.start_churn(churn)?;
        }
        Ok(SimHandle {
            url: format!("{scheme}://{addr}"),
            addr,
            ca_pem: material.map(|m| m.ca_pem),
            token: self.token,
            shared,
            tls: tls_config,
            server: std::sync::Mutex::new(Some(server)),
            tasks: compactor
                .into_iter()
                .chain(collector)
                .chain([crds, namespaces])
                .collect(),
        })
    }
}

async fn compact_periodically(shared: Arc<Shared>, every: Duration, keep: Option<u64>) {
    let mut previous = shared.store.revision();
    loop {
        tokio::time::sleep(every).await;
        let current = shared.store.revision();
        let target = match keep {
            Some(k) => current.saturating_sub(k),
            None => previous,
        };
        shared.store.compact(target);
        previous = current;
    }
}

impl From<ApiError> for Error {
    fn from(e: ApiError) -> Self {
        let e = e.into_inner();
        Self::Api {
            code: e.code,
            reason: e.reason,
            message: e.message,
        }
    }
}
