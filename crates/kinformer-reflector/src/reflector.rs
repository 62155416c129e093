//! [`Reflector`]: the public face: construction, hooks, and `run`.

use std::fmt;
use std::marker::PhantomData;
use std::pin::pin;
use std::sync::Arc;

use futures_util::future::{Either, select};
use kinformer_core::{ApiError, Lister, ListerWatcher, Object, Store};
use tracing::Instrument;

use crate::classify::Failure;
use crate::config::Config;
use crate::error::{Error, WatchBreak};
use crate::handle::ResourceVersionHandle;
use crate::metrics::{NoMetrics, ReflectorMetrics};
use crate::runner::Runner;
use crate::type_check::TypeCheck;

/// Decides, at each resync tick, whether to call `Store::resync` (client-go's `ShouldResync`).
pub type ShouldResync = Arc<dyn Fn() -> bool + Send + Sync>;

/// Receives every failure the reflector meets, typed by [`Error`]'s variant (client-go's
/// `WatchErrorHandler`, which sees fewer: see [`Reflector::watch_error_handler`]).
pub type WatchErrorHandler<E> = Arc<dyn Fn(&Error<E>) + Send + Sync>;

/// Keeps a [`Store`] equal to the server: lists (or streams a list), then watches, and recovers
/// from every failure with client-go's rules.
///
/// Build it with [`new`](Self::new), attach hooks, keep a
/// [`resource_version_handle`](Self::resource_version_handle) if needed, then drive
/// [`run`](Self::run) (or [`run_until`](Self::run_until)) on a task. The rules it follows:
///
/// - first list `resourceVersion=0&limit=500`; relists at the last synced RV without a limit
///   (served from the watch cache), except that the limit stays when the first RV-`0` list came
///   back paginated; after an `Expired` or too-large-RV list error, an immediate retry at RV `""`;
/// - watches at the last synced RV with `allowWatchBookmarks=true` and a `timeoutSeconds` drawn
///   from `[min, 2 * min]`; a clean end re-watches at once; expiry (HTTP 410, or an `ERROR` event
///   with code 410 / reason `Expired` or `Gone`) relists after backoff; 429, 5xx or a transport
///   failure when opening a watch, and a dropped connection, back off and re-watch at the same
///   RV; a watch closing within 1 s without events, or a malformed frame, relists after backoff;
/// - every failure reaches the [`watch_error_handler`](Self::watch_error_handler), typed by kind;
/// - every accepted event and bookmark advances the last synced RV and is passed to
///   `Store::update_resource_version`; objects failing the [`type_check`](Self::type_check) are
///   skipped without moving it;
/// - one backoff (800 ms doubling with full jitter to a 30 s cap, reset after 2 quiet minutes)
///   paces every relist and re-watch;
/// - streaming lists are tried first when enabled and supported; see [`Config`].
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use kinformer_core::{ApiError, DynamicObject, ListOptions, Lister, ListerWatcher, ObjectList,
///     Status, Store, StoreError, WatchEvent, Watcher};
/// use kinformer_reflector::{Config, Reflector};
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("no server")]
/// struct NoServer;
/// impl ApiError for NoServer {
///     fn status(&self) -> Option<&Status> { None }
/// }
///
/// /// A source with one object that never changes.
/// struct OneObject;
/// impl Lister<DynamicObject> for OneObject {
///     type Error = NoServer;
///     async fn list(&self, _: &ListOptions) -> Result<ObjectList<DynamicObject>, NoServer> {
///         Ok(ObjectList::new("1", vec![Arc::new(DynamicObject::new("only"))]))
///     }
/// }
/// impl Watcher<DynamicObject> for OneObject {
///     type Error = NoServer;
///     type Stream = futures_util::stream::Pending<Result<WatchEvent<DynamicObject>, NoServer>>;
///     async fn watch(&self, _: &ListOptions) -> Result<Self::Stream, NoServer> {
///         Ok(futures_util::stream::pending())
///     }
/// }
/// impl ListerWatcher<DynamicObject> for OneObject {
///     fn supports_streaming_list(&self) -> bool { false }
/// }
///
/// /// A store that only counts.
/// #[derive(Default)]
/// struct Count(std::sync::atomic::AtomicUsize);
/// impl Store<DynamicObject> for Count {
///     fn add(&self, _: Arc<DynamicObject>) -> Result<(), StoreError> { Ok(()) }
///     fn update(&self, _: Arc<DynamicObject>) -> Result<(), StoreError> { Ok(()) }
///     fn delete(&self, _: Arc<DynamicObject>) -> Result<(), StoreError> { Ok(()) }
///     fn replace(&self, list: Vec<Arc<DynamicObject>>, _: &str) -> Result<(), StoreError> {
///         self.0.store(list.len(), std::sync::atomic::Ordering::SeqCst);
///         Ok(())
///     }
///     fn resync(&self) -> Result<(), StoreError> { Ok(()) }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let store = Arc::new(Count::default());
/// let reflector = Reflector::new(OneObject, Arc::clone(&store), Config::default().with_seed(1));
/// let rv = reflector.resource_version_handle();
/// // Stop once the store is filled; cancellation returns without an error.
/// let synced = async {
///     while rv.get().is_empty() {
///         tokio::time::sleep(std::time::Duration::from_millis(1)).await;
///     }
/// };
/// reflector.run_until(synced).await;
/// assert_eq!(rv.get(), "1");
/// assert_eq!(store.0.load(std::sync::atomic::Ordering::SeqCst), 1);
/// # });
/// ```
pub struct Reflector<K, L: ListerWatcher<K>, S> {
    pub(crate) source: L,
    pub(crate) store: S,
    pub(crate) config: Config,
    pub(crate) type_check: Option<TypeCheck<K>>,
    pub(crate) should_resync: Option<ShouldResync>,
    pub(crate) error_handler: WatchErrorHandler<<L as Lister<K>>::Error>,
    pub(crate) metrics: Arc<dyn ReflectorMetrics>,
    pub(crate) last_sync: ResourceVersionHandle,
    _object: PhantomData<fn() -> K>,
}

impl<K, L, S> Reflector<K, L, S>
where
    K: Object,
    L: ListerWatcher<K>,
    S: Store<K>,
{
    /// A reflector from `source` into `store`.
    pub fn new(source: L, store: S, config: Config) -> Self {
        Self {
            source,
            store,
            config,
            type_check: None,
            should_resync: None,
            error_handler: Arc::new(default_error_handler::<<L as Lister<K>>::Error>),
            metrics: Arc::new(NoMetrics),
            last_sync: ResourceVersionHandle::default(),
            _object: PhantomData,
        }
    }

    /// Skips watch objects for which `check` is false, without moving the resourceVersion
    /// (client-go's expected type / GVK check). See [`expect_kind`](crate::expect_kind).
    #[must_use]
    pub fn type_check(mut self, check: TypeCheck<K>) -> Self {
        self.type_check = Some(check);
        self
    }

    /// Consulted at each resync tick; `Store::resync` runs only when it returns true.
    #[must_use]
    pub fn should_resync(
        mut self,
        should_resync: impl Fn() -> bool + Send + Sync + 'static,
    ) -> Self {
        self.should_resync = Some(Arc::new(should_resync));
        self
    }

    /// Replaces the default handler (which logs each failure at a level that suits its kind).
    ///
    /// The handler sees every failure, each once, as an [`Error`] whose variant says which kind:
    /// a failed list ([`List`](Error::List)), a failed watch request
    /// ([`WatchOpen`](Error::WatchOpen)), a watch stream that broke
    /// ([`WatchBroken`](Error::WatchBroken): dropped, malformed, stalled, closed at once), an
    /// expired resourceVersion ([`Expired`](Error::Expired)), an `ERROR` event
    /// ([`ErrorEvent`](Error::ErrorEvent)), a 429 ([`Throttled`](Error::Throttled)), a store
    /// failure ([`Store`](Error::Store)). client-go's handler sees only the list failures and the
    /// watch requests that are not retried in place; the failures that end an open watch it only
    /// logs. A watch that ends cleanly is not reported by either.
    ///
    /// The handler only observes: the recovery (backoff, re-watch, relist) is the same without
    /// it. It runs on the reflector's task, so it should return quickly.
    #[must_use]
    pub fn watch_error_handler(
        mut self,
        handler: impl Fn(&Error<<L as Lister<K>>::Error>) + Send + Sync + 'static,
    ) -> Self {
        self.error_handler = Arc::new(handler);
        self
    }

    /// Installs metrics hooks, for example an `Arc<`[`Counters`](crate::Counters)`>`.
    #[must_use]
    pub fn metrics(mut self, metrics: Arc<dyn ReflectorMetrics>) -> Self {
        self.metrics = metrics;
        self
    }

    /// A handle that reads the last synced resourceVersion at any time, also while running.
    pub fn resource_version_handle(&self) -> ResourceVersionHandle {
        self.last_sync.clone()
    }

    /// The last synced resourceVersion (`""` before the first sync).
    pub fn last_sync_resource_version(&self) -> String {
        self.last_sync.get()
    }

    /// Lists and watches forever.
    ///
    /// # Cancel safety
    /// Drop the future to stop: the open request or watch is dropped with it, and the store keeps
    /// what it had.
    // Not an `async fn`: the reflector moves into the runner before the future exists, so the
    // future holds it once instead of also keeping the argument's slot (a few KB per informer
    // for its whole life).
    pub fn run(self) -> impl Future<Output = ()> {
        let span = tracing::info_span!("reflector", name = %self.config.name());
        Runner::new(self).run().instrument(span)
    }

    /// Runs until `shutdown` completes (for example a cancellation token's `cancelled()`), then
    /// returns without an error.
    ///
    /// # Cancel safety
    /// As [`run`](Self::run).
    pub fn run_until(self, shutdown: impl Future<Output = ()>) -> impl Future<Output = ()> {
        let run = self.run();
        async move {
            let run = pin!(run);
            let shutdown = pin!(shutdown);
            match select(run, shutdown).await {
                Either::Left(((), _)) | Either::Right(((), _)) => {}
            }
        }
    }
}

impl<K, L: ListerWatcher<K>, S> fmt::Debug for Reflector<K, L, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reflector")
            .field("config", &self.config)
            .field("last_sync_resource_version", &self.last_sync.get())
            .finish_non_exhaustive()
    }
}

/// client-go's `DefaultWatchErrorHandler` and its watch loop's logs: expiry, throttling, a dropped
/// connection and a refused watch that is retried in place are routine; anything else is worth a
/// warning.
fn default_error_handler<E: ApiError>(err: &Error<E>) {
    let routine = match err {
        Error::Expired(_)
        | Error::Throttled { .. }
        | Error::WatchBroken {
            how: WatchBreak::Dropped,
            ..
        } => true,
        Error::WatchOpen(err) => Failure::of_error(err) == Failure::Retriable,
        _ => false,
    };
    if routine {
        tracing::debug!(error = %ErrorChain(err), "watch interrupted");
    } else {
        tracing::warn!(error = %ErrorChain(err), "failed to watch");
    }
}

/// Displays an error with its causes, for logs.
pub(crate) struct ErrorChain<'a>(pub(crate) &'a (dyn std::error::Error + 'static));

impl fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(err) = source {
            write!(f, ": {err}")?;
            source = err.source();
        }
        Ok(())
    }
}
