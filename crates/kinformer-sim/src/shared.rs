//! The state every request handler and control operation shares.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use tokio::sync::mpsc;

use crate::churn::ChurnTask;
use crate::control::{DropMode, RequestRecord};
use crate::faults::Faults;
use crate::resource::{Registry, ResourceDef};
use crate::store::Store;

/// Server settings fixed at start.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) token: Option<String>,
    pub(crate) bookmark_interval: Duration,
    /// How long a request for a future resourceVersion waits before 504 (the apiserver: 3 s).
    pub(crate) too_large_wait: Duration,
    pub(crate) seed: u64,
    /// Watch timeout when the client sends no `timeoutSeconds` (`None`: random in [30, 60) min).
    pub(crate) default_watch_timeout: Option<Duration>,
    /// Revisions of history kept at most (0: unbounded).
    pub(crate) max_history: u64,
    /// Gzip large non-watch responses for clients that send `Accept-Encoding: gzip`.
    pub(crate) gzip: bool,
    /// Keep the write audit ([`crate::SimHandle::audit`]).
    pub(crate) audit: bool,
    /// The managedFields of generated pods.
    pub(crate) managed_fields: crate::ManagedFieldsShape,
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` of every HTTP/2 connection.
    pub(crate) max_concurrent_streams: u32,
    /// Encode protobuf on every write from the start ([`Store::start_protobuf`]).
    pub(crate) protobuf: bool,
    /// Answer `/api` and `/apis` in the aggregated form to clients that ask for it.
    pub(crate) aggregated_discovery: bool,
    /// Namespaces that exist from the start besides the control plane's.
    pub(crate) created_namespaces: Vec<String>,
}

/// The most requests the request log keeps.
const REQUEST_LOG_CAP: usize = 100_000;

#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) store: Store,
    pub(crate) registry: RwLock<Registry>,
    pub(crate) config: Config,
    pub(crate) faults: Faults,
    pub(crate) watches: Arc<WatchRegistry>,
    requests: Mutex<VecDeque<RequestRecord>>,
    pub(crate) churn: Mutex<Option<ChurnTask>>,
    /// TCP connections accepted since start, and those still open: how a test sees that
    /// many informers share one HTTP/2 connection.
    pub(crate) connections: ConnectionCounts,
    /// Bumped to send GOAWAY on every connection open at that moment.
    pub(crate) goaway: tokio::sync::watch::Sender<u64>,
    /// When the sim started, for the request log's times.
    started: tokio::time::Instant,
    /// When each OpenAPI document last changed, for its `Last-Modified`.
    pub(crate) openapi_dates: crate::http::DocumentDates,
}

/// Counters of the listener's connections.
#[derive(Debug, Default)]
pub(crate) struct ConnectionCounts {
    pub(crate) accepted: AtomicU64,
    pub(crate) open: AtomicU64,
}

/// Keeps a connection counted as open until it is dropped, however the connection ends.
pub(crate) struct OpenConnection(pub(crate) Arc<Shared>);

impl OpenConnection {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        shared.connections.accepted.fetch_add(1, Ordering::Relaxed);
        shared.connections.open.fetch_add(1, Ordering::Relaxed);
        Self(shared)
    }
}

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.0.connections.open.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Shared {
    /// Sends GOAWAY on every open connection: their streams in flight carry on, new requests
    /// need a new connection. Returns how many connections were open.
    pub(crate) fn goaway(&self) -> u64 {
        self.goaway.send_modify(|generation| *generation += 1);
        self.connections.open.load(Ordering::Relaxed)
    }

    pub(crate) fn new(config: Config) -> Arc<Self> {
        let store = Store::new(config.seed, config.max_history).with_audit(config.audit);
        if config.protobuf {
            store.start_protobuf();
        }
        Arc::new(Self {
            store,
            registry: RwLock::new(Registry::default()),
            config,
            faults: Faults::default(),
            watches: Arc::default(),
            requests: Mutex::new(VecDeque::new()),
            churn: Mutex::new(None),
            connections: ConnectionCounts::default(),
            goaway: tokio::sync::watch::Sender::new(0),
            started: tokio::time::Instant::now(),
            openapi_dates: crate::http::DocumentDates::default(),
        })
    }

    pub(crate) fn registry(&self) -> Registry {
        // Registry updates are single pushes; a poisoned lock still holds a consistent registry.
        self.registry
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub(crate) fn resource(&self, name: &str) -> Option<Arc<ResourceDef>> {
        self.registry
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .by_name(name)
    }

    pub(crate) fn log_request(&self, method: &str, path: &str, status: u16) {
        let mut log = lock(&self.requests);
        if log.len() >= REQUEST_LOG_CAP {
            log.pop_front();
        }
        log.push_back(RequestRecord {
            method: method.to_owned(),
            path: path.to_owned(),
            status,
            at_ms: self.uptime_ms(),
        });
    }

    pub(crate) fn uptime_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    pub(crate) fn requests(&self) -> Vec<RequestRecord> {
        lock(&self.requests).iter().cloned().collect()
    }

    pub(crate) fn clear_requests(&self) {
        lock(&self.requests).clear();
    }
}

/// Locks a mutex whose data stays consistent even if a holder panicked.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Open watches, each reachable through a command channel for `watches/drop`.
#[derive(Debug, Default)]
pub(crate) struct WatchRegistry {
    next: AtomicU64,
    open: Mutex<HashMap<u64, mpsc::UnboundedSender<DropMode>>>,
}

impl WatchRegistry {
    pub(crate) fn register(self: &Arc<Self>) -> (WatchGuard, mpsc::UnboundedReceiver<DropMode>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.open).insert(id, tx);
        (
            WatchGuard {
                id,
                registry: self.clone(),
            },
            rx,
        )
    }

    pub(crate) fn open(&self) -> usize {
        lock(&self.open).len()
    }

    /// Sends `mode` to every open watch; returns how many got it.
    pub(crate) fn drop_all(&self, mode: &DropMode) -> usize {
        lock(&self.open)
            .values()
            .filter(|tx| tx.send(mode.clone()).is_ok())
            .count()
    }
}

/// Unregisters a watch when its stream ends.
#[derive(Debug)]
pub(crate) struct WatchGuard {
    id: u64,
    registry: Arc<WatchRegistry>,
}

impl Drop for WatchGuard {
    fn drop(&mut self) {
        lock(&self.registry.open).remove(&self.id);
    }
}
