//! Starting the simulator ([`Sim::builder`]) and driving it ([`SimHandle`]).

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::churn::{Churn, ChurnStatus};
use crate::control::{
    Compact, DropMode, ObjectOp, OpResult, RequestRecord, State, Stats, record_value,
};
use crate::faults::Fault;
use crate::generate::Generate;
use crate::resource::CustomResource;
use crate::service::SimService;
use crate::shared::{Config, Shared};
use crate::status::ApiError;
use crate::{Error, Result, kubeconfig, server, tls};

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
}

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
            compact_keep: None,
            too_large_wait: Duration::from_secs(3),
            watch_timeout: None,
            churn: None,
            max_history: 200_000,
            gzip: true,
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
        });
        if let Some(ns) = shared.resource("namespaces") {
            for name in ["default", "kube-system", "kube-public"] {
                let obj = serde_json::json!({"metadata": {"name": name}, "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}});
                if let Value::Object(m) = obj {
                    shared.store.create(&ns, None, m)?;
                }
            }
        }
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
        let server = tokio::spawn(server::serve(
            listener,
            shared.clone(),
            material.as_ref().map(|m| m.config.clone()),
        ));
        let compactor = self.compact_interval.map(|every| {
            tokio::spawn(compact_periodically(
                shared.clone(),
                every,
                self.compact_keep,
            ))
        });
        if let Some(churn) = self.churn {
            shared.start_churn(churn)?;
        }
        Ok(SimHandle {
            url: format!("{scheme}://{addr}"),
            addr,
            ca_pem: material.map(|m| m.ca_pem),
            token: self.token,
            shared,
            tasks: vec![server].into_iter().chain(compactor).collect(),
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

/// A running simulator. Dropping it stops the server, churn and compaction, and ends every stream.
///
/// Every control operation is a method here and a route under `/_control/` (see the crate docs).
///
/// # Examples
/// ```
/// use kinformer_sim::{Churn, Compact, CustomResource, DropMode, Fault, FaultKind, Generate, ObjectOp, OpKind, Scope, Sim};
/// use serde_json::json;
///
/// # #[tokio::main] async fn main() -> Result<(), kinformer_sim::Error> {
/// let sim = Sim::builder().seed(3).start().await?;
/// sim.generate(Generate::new("pods", 20).namespaces(2)).await?;
/// let cm = sim.apply(ObjectOp::new(OpKind::Create, "configmaps", json!({"metadata": {"name": "a"}}))).await?;
/// assert_eq!(cm["metadata"]["namespace"], "default");
/// sim.apply(ObjectOp::new(OpKind::Patch, "configmaps", json!({"data": {"k": "v"}})).name("a")).await?;
/// assert_eq!(sim.state("configmaps", false).await?.items[0]["data"]["k"], "v");
///
/// sim.churn_start(Churn::new(1000.0).count(10)).await?;
/// sim.churn_stop().await;
/// let compacted = sim.compact(Compact::keep(5)).await;
/// assert_eq!(sim.stats().await.compacted_revision, compacted);
///
/// sim.add_faults([Fault::new(FaultKind::WatchDrop { after_events: 3 }).resources(["pods"])]).await;
/// sim.clear_faults().await;
/// assert_eq!(sim.drop_watches(DropMode::Clean).await, 0);
/// sim.register(CustomResource::new("example.com", "v1", "widgets", "Widget", Scope::Namespaced)).await?;
/// assert!(sim.requests().await.is_empty());
/// sim.reset().await;
/// assert_eq!(sim.stats().await.objects.values().sum::<usize>(), 0);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct SimHandle {
    url: String,
    addr: SocketAddr,
    ca_pem: Option<String>,
    token: Option<String>,
    shared: Arc<Shared>,
    tasks: Vec<JoinHandle<()>>,
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
        self.shared.stop_churn();
        self.shared.watches.drop_all(&DropMode::Clean);
    }
}

impl SimHandle {
    /// The base URL, `http://127.0.0.1:PORT` or `https://...`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The CA certificate (PEM) that signed the server certificate, when serving TLS.
    pub fn ca_pem(&self) -> Option<&str> {
        self.ca_pem.as_deref()
    }

    /// The bearer token API requests need, if any.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// A kubeconfig for this simulator (CA data and token included), as YAML.
    pub fn kubeconfig(&self) -> String {
        kubeconfig::render(&self.url, self.ca_pem.as_deref(), self.token.as_deref())
    }

    /// Writes [`kubeconfig`](Self::kubeconfig) to `path`.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be written.
    pub fn write_kubeconfig(&self, path: impl AsRef<Path>) -> Result<()> {
        std::fs::write(path, self.kubeconfig()).map_err(Error::Io)
    }

    /// An in-process `tower_service::Service` over the same state (no socket).
    pub fn service(&self) -> SimService {
        SimService::new(self.shared.clone())
    }

    /// Revision, compaction revision, object counts and open watches.
    pub async fn stats(&self) -> Stats {
        self.shared.stats()
    }

    /// Every object of `resource` at the latest revision (`summary`: identity fields only).
    ///
    /// # Errors
    /// [`Error::Api`] 404 for an unknown resource.
    pub async fn state(&self, resource: &str, summary: bool) -> Result<State> {
        Ok(self.shared.state(resource, summary)?)
    }

    /// Applies writes in order; each gets its own result.
    pub async fn objects(&self, ops: &[ObjectOp]) -> Vec<OpResult> {
        self.shared.apply_ops(ops)
    }

    /// Applies one write and returns the stored object.
    ///
    /// # Errors
    /// [`Error::Api`] with the Status the write failed with (404, 409, ...).
    pub async fn apply(&self, op: ObjectOp) -> Result<Value> {
        let (_, record) = self.shared.apply_op(&op)?;
        Ok(record_value(&record))
    }

    /// Generates objects; returns how many.
    ///
    /// # Errors
    /// [`Error::Api`] 400 for an unknown resource.
    pub async fn generate(&self, g: Generate) -> Result<usize> {
        Ok(self.shared.generate(&g)?)
    }

    /// Starts (or replaces) the churn writer.
    ///
    /// # Errors
    /// [`Error::Api`] 400 for a bad rate or resource.
    pub async fn churn_start(&self, churn: Churn) -> Result<()> {
        Ok(self.shared.start_churn(churn)?)
    }

    /// Stops churn.
    pub async fn churn_stop(&self) {
        self.shared.stop_churn();
    }

    /// What churn is doing.
    pub async fn churn_status(&self) -> ChurnStatus {
        self.shared.churn_status()
    }

    /// Compacts; returns the new compaction revision.
    pub async fn compact(&self, req: Compact) -> u64 {
        self.shared.compact(req)
    }

    /// Adds fault rules.
    pub async fn add_faults(&self, faults: impl IntoIterator<Item = Fault>) {
        self.shared.faults.add(faults);
    }

    /// The active fault rules.
    pub async fn faults(&self) -> Vec<Fault> {
        self.shared.faults.list()
    }

    /// Removes every fault rule.
    pub async fn clear_faults(&self) {
        self.shared.faults.clear();
    }

    /// Applies `mode` to every open watch; returns how many.
    pub async fn drop_watches(&self, mode: DropMode) -> usize {
        self.shared.watches.drop_all(&mode)
    }

    /// The request log (method, path with query, status), oldest first.
    pub async fn requests(&self) -> Vec<RequestRecord> {
        self.shared.requests()
    }

    /// Empties the request log.
    pub async fn clear_requests(&self) {
        self.shared.clear_requests();
    }

    /// Stops churn, ends watches, clears faults, objects and the request log.
    pub async fn reset(&self) {
        self.shared.reset();
    }

    /// Serves a custom resource from now on.
    ///
    /// # Errors
    /// [`Error::Api`] 400 when a field is empty.
    pub async fn register(&self, cr: CustomResource) -> Result<()> {
        Ok(self.shared.register(&cr)?)
    }

    /// Stops serving (the same as dropping the handle).
    pub fn shutdown(self) {}
}

impl Shared {
    pub(crate) fn register(&self, cr: &CustomResource) -> Result<(), ApiError> {
        self.registry
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .register(cr)
            .map(|_| ())
            .map_err(ApiError::bad_request)
    }
}
