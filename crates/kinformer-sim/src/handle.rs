//! A running simulator: its address, kubeconfig, in-process service and control operations.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustls::ServerConfig;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::audit::AuditEntry;
use crate::churn::{Churn, ChurnStatus};
use crate::control::{
    Compaction, DropMode, ObjectOp, OpResult, RequestRecord, SimStats, State, record_value,
};
use crate::faults::Fault;
use crate::generate::Generate;
use crate::resource::CustomResource;
use crate::service::SimService;
use crate::shared::{Shared, lock};
use crate::status::ApiError;
use crate::{Error, Result, kubeconfig, server};

/// A running simulator. Dropping it stops the server, churn and compaction, and ends every stream.
///
/// Every control operation is a method here and a route under `/_control/` (see the crate docs),
/// except [`restart`](Self::restart) and [`audit`](Self::audit), which only a process that holds
/// the handle can use.
///
/// # Examples
/// ```
/// use kinformer_core::Scope;
/// use kinformer_sim::{Churn, Compaction, CustomResource, DropMode, Fault, FaultKind, Generate, ObjectOp, OpKind, Sim};
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
/// let compacted = sim.compact(Compaction::keep(5)).await;
/// assert_eq!(sim.stats().await.compacted_revision, compacted);
///
/// sim.add_faults([Fault::new(FaultKind::WatchDrop { after_events: 3 }).resources(["pods"])]).await;
/// sim.clear_faults().await;
/// assert_eq!(sim.drop_watches(DropMode::Clean).await, 0);
/// sim.register(CustomResource::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced)).await?;
/// assert!(sim.requests().await.is_empty());
/// sim.reset().await;
/// // What every cluster has is all that is left: its four namespaces, its component statuses.
/// assert_eq!(sim.stats().await.objects["namespaces"], 4);
/// assert!(sim.stats().await.objects.get("configmaps").is_none_or(|n| *n == 0));
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct SimHandle {
    pub(crate) url: String,
    pub(crate) addr: SocketAddr,
    pub(crate) ca_pem: Option<String>,
    pub(crate) token: Option<String>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) tls: Option<Arc<ServerConfig>>,
    /// The listener's task; aborting it drops every connection. `None` while restarting.
    pub(crate) server: Mutex<Option<JoinHandle<()>>>,
    pub(crate) tasks: Vec<JoinHandle<()>>,
}

/// How long a restart keeps trying to bind its port again.
const REBIND_ATTEMPTS: u32 = 50;

impl Drop for SimHandle {
    fn drop(&mut self) {
        if let Some(server) = lock(&self.server).take() {
            server.abort();
        }
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
    pub async fn stats(&self) -> SimStats {
        self.shared.stats()
    }

    /// Every object of `resource` at the latest revision (`summary`: identity fields and labels only).
    ///
    /// # Errors
    /// [`Error::Api`] 404 for an unknown resource.
    pub async fn state(&self, resource: &str, summary: bool) -> Result<State> {
        Ok(self.shared.state(resource, summary)?)
    }

    /// The ground truth a cache is compared with: `namespace/name` (or `name` at cluster scope)
    /// to resourceVersion, for every object of `resource` at the latest revision.
    ///
    /// # Errors
    /// [`Error::Api`] 404 for an unknown resource.
    pub async fn versions(&self, resource: &str) -> Result<BTreeMap<String, String>> {
        let state = self.shared.state(resource, true)?;
        Ok(state
            .items
            .iter()
            .map(|item| {
                let field = |k: &str| item[k].as_str().unwrap_or_default();
                let key = match field("namespace") {
                    "" => field("name").to_owned(),
                    ns => format!("{ns}/{}", field("name")),
                };
                (key, field("resourceVersion").to_owned())
            })
            .collect())
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
    pub async fn compact(&self, req: Compaction) -> u64 {
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

    /// Sends GOAWAY on every open connection, as an API server does when it shuts down or under
    /// `--goaway-chance`: streams in flight (watches among them) carry on, new requests need a new
    /// connection. Returns how many connections were open.
    pub async fn goaway(&self) -> u64 {
        self.shared.goaway()
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

    /// Stops churn, ends watches, clears faults, objects and the request log; what every
    /// cluster has (its namespaces, including those of
    /// [`create_namespace`](crate::SimBuilder::create_namespace)) is created again.
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

    /// Every write to `resource` since start (or the last reset), oldest first, when the builder
    /// enabled [`audit`](crate::SimBuilder::audit); empty otherwise. Compaction does not shorten it.
    pub async fn audit(&self, resource: &str) -> Vec<AuditEntry> {
        let id = self.shared.resource(resource).map(|d| d.id.clone());
        match (&self.shared.store.audit, id) {
            (Some(audit), Some(id)) => audit.entries(&id),
            _ => Vec::new(),
        }
    }

    /// Restarts the server as an apiserver rollout does, keeping the data: every connection (and
    /// with it every watch) is cut, nothing listens on the port for `down`, then the same port
    /// serves again from the same store, revisions and faults.
    ///
    /// # Errors
    /// [`Error::Bind`] when the port cannot be bound again (another process took it).
    pub async fn restart(&self, down: Duration) -> Result<()> {
        let old = lock(&self.server).take();
        if let Some(server) = old {
            server.abort();
            // Cancelled is the expected outcome; the listener and connections are gone either way.
            let _ = server.await;
        }
        // In-process services have no connection to cut: end their watches too.
        self.shared.watches.drop_all(&DropMode::Abrupt);
        tokio::time::sleep(down).await;
        let mut attempt = 0;
        let listener = loop {
            match TcpListener::bind(self.addr).await {
                Ok(listener) => break listener,
                Err(_) if attempt < REBIND_ATTEMPTS => {
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => return Err(Error::Bind(e)),
            }
        };
        let task = tokio::spawn(server::serve(
            listener,
            self.shared.clone(),
            self.tls.clone(),
        ));
        *lock(&self.server) = Some(task);
        Ok(())
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
