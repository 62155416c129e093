//! [`SharedIndexInformer`]: one list-watch, one queue, one indexed cache, many handlers.

use std::error::Error as StdError;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use kinformer_core::{Holding, ListerWatcher, Object, StoreRead as _, Transform};
use kinformer_deltafifo::DeltaQueue;
use kinformer_indexer::{
    CacheLister, Config as IndexerConfig, IndexFunc, Indexer, ReadOnlyIndexer,
};
use kinformer_reflector::Config as ReflectorConfig;
use tokio::sync::watch;

use super::config::Config;
use super::handler::EventHandler;
use super::inner::{Inner, Pipeline, RunParts, Setup, StopOnExit};
use super::pipeline::reflector_pipeline;
use super::processor::Processor;
use super::queues::make_queue;
use super::registration::Registration;
use super::sync::SyncSignal;
use crate::error::{Error, Result};

/// An informer whose cache and watch are shared by any number of event handlers (client-go's
/// `SharedIndexInformer`).
///
/// - The cache is an [`Indexer`] (read it with [`lister`](Self::lister) or
///   [`indexer`](Self::indexer)); handlers hear of a change after the cache has it.
/// - Handlers can be added and removed at any time. A handler added while running first gets a
///   synthetic initial-list add for every cached object. Each handler has its own unbounded,
///   ordered buffer and task: a slow handler delays only itself.
/// - What the cache keeps of each object, and how it holds it, is the config's
///   [`ObjectShape`](kinformer_core::ObjectShape): the source decodes its fields, the cache
///   holds them as it says.
///
/// Cloning gives another handle to the same informer.
pub struct SharedIndexInformer<K> {
    inner: Arc<Inner<K>>,
}

impl<K: Object + Clone> SharedIndexInformer<K> {
    pub(crate) fn from_parts(
        indexer: Indexer<K>,
        default_resync: Duration,
        resource: Arc<str>,
        transform: Option<Transform<K>>,
        pipeline: Pipeline<K>,
    ) -> Self {
        let synced = SyncSignal::new();
        let processor = Processor::new(synced.watcher(), default_resync);
        let indexer = Arc::new(indexer);
        Self {
            inner: Arc::new(Inner {
                reader: ReadOnlyIndexer::new(Arc::clone(&indexer)),
                indexer,
                processor,
                synced,
                deltas: Mutex::new(()),
                resource_version: Mutex::new(None),
                setup: Mutex::new(Setup {
                    pipeline: Some(pipeline),
                    transform,
                    watch_error_handler: None,
                    started: false,
                }),
                default_resync,
                resource,
                stop: watch::Sender::new(false),
            }),
        }
    }

    /// An informer listing and watching `source` with `config`. Nothing happens until
    /// [`run`](Self::run).
    ///
    /// # Errors
    /// [`Error::Fields`] when `source` cannot decode the fields of the config's shape (it is
    /// shared, decodes nothing itself, or was built with other fields).
    ///
    /// # Examples
    /// ```
    /// use k8s_openapi::api::core::v1::ConfigMap;
    /// use kinformer_informer::{Config, HandlerFns, SharedIndexInformer};
    /// use kinformer_listwatch::ListWatch;
    /// use kinformer_rest::Client;
    /// use kinformer_sim::Sim;
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let sim = Sim::builder().configmaps(5).seed(1).start().await?;
    /// let source = ListWatch::<ConfigMap, _>::for_type(Client::new(sim.service()));
    /// let informer = SharedIndexInformer::new(source, Config::default().with_name("configmaps"))?;
    /// informer.add_event_handler(HandlerFns::new().add_fn(|cm: &std::sync::Arc<ConfigMap>, _| {
    ///     let _ = cm;
    /// }))?;
    /// let running = tokio::spawn({
    ///     let informer = informer.clone();
    ///     async move { informer.run().await }
    /// });
    /// informer.wait_for_cache_sync().await.unwrap();
    /// assert_eq!(informer.lister().list(&Default::default()).len(), 5);
    /// informer.shutdown();
    /// running.await??;
    /// # Ok(()) }
    /// ```
    pub fn new<L>(source: L, config: Config<K>) -> Result<Self>
    where
        L: ListerWatcher<K> + 'static,
    {
        let kind = config.queue();
        Self::with_queue(source, config, move |known| make_queue(kind, known))
    }

    /// An informer listing and watching `source`, through the queue `make_queue` builds over
    /// the cache (which it may use as its known objects). The source decodes the fields of the
    /// config's shape.
    pub(crate) fn with_queue<L, Q>(
        mut source: L,
        config: Config<K>,
        make_queue: impl FnOnce(Arc<Indexer<K>>) -> Q + Send + 'static,
    ) -> Result<Self>
    where
        L: ListerWatcher<K> + 'static,
        Q: DeltaQueue<K> + Send + Sync + 'static,
    {
        let config = config.into_parts();
        source.set_fields(config.shape.fields())?;
        let mut indexes = config
            .indexes
            .into_iter()
            .fold(IndexerConfig::default(), |c, (name, func)| {
                c.with_index(name, func)
            });
        if let Some(codec) = config.codec {
            indexes = indexes.with_compact(codec);
        }
        if let Holding::Tiered { hot } = config.shape.holding() {
            indexes = indexes.with_hot_objects(hot);
        }
        let mut reflector = config.reflector;
        if reflector.name() == ReflectorConfig::default().name() && !config.name.is_empty() {
            reflector = reflector.with_name(config.name.to_string());
        }
        // Objects that come exactly sized are held as they come: copying them changes nothing.
        let exact_copy =
            config.shape.holding() == Holding::Exact && !source.decodes_exactly_sized();
        let pipeline = reflector_pipeline(
            source,
            reflector,
            config.type_check,
            config.metrics,
            exact_copy,
            make_queue,
        );
        Ok(Self::from_parts(
            Indexer::new(indexes),
            config.resync_period,
            config.name,
            config.transform,
            pipeline,
        ))
    }

    /// Adds a handler with the informer's default resync period.
    ///
    /// # Errors
    /// [`Error::Stopped`] once the informer has stopped.
    pub fn add_event_handler(&self, handler: impl EventHandler<K>) -> Result<Registration> {
        self.add_event_handler_with_resync(handler, self.inner.default_resync)
    }

    /// Adds a handler that also wants every cached object re-delivered (as an update with an
    /// unchanged resourceVersion) every `resync` (`Duration::ZERO`: never).
    ///
    /// Periods below [`MINIMUM_RESYNC_PERIOD`](super::MINIMUM_RESYNC_PERIOD) are raised to it.
    /// A period shorter than the informer's check period lowers the check period before start,
    /// and is raised to it after start. An informer created without resync resyncs no handler.
    ///
    /// # Errors
    /// [`Error::Stopped`] once the informer has stopped.
    pub fn add_event_handler_with_resync(
        &self,
        handler: impl EventHandler<K>,
        resync: Duration,
    ) -> Result<Registration> {
        let _no_delta_in_flight = self.inner.lock_deltas();
        self.inner
            .processor
            .add_listener(Arc::new(handler), resync, || {
                self.inner.indexer.list_cached()
            })
    }

    /// Removes a handler: it receives nothing more (its buffered notifications are dropped),
    /// though a callback may still be running. Idempotent; a handle of another informer is
    /// ignored.
    pub fn remove_event_handler(&self, registration: &Registration) {
        drop(self.inner.processor.remove_listener(registration));
    }

    /// Removes a handler and waits until its callback in progress, if any, returned. Never call
    /// it from inside that handler.
    ///
    /// # Cancel safety
    /// Cancel safe: the handler is removed at the first poll; dropping only stops the waiting.
    pub async fn shutdown_event_handler(&self, registration: &Registration) {
        if let Some(task) = self.inner.processor.remove_listener(registration) {
            // The task ends by finishing or by runtime shutdown; either way it is gone.
            drop(task.await);
        }
    }

    /// Sets a transform applied to every object as it enters the queue, after managedFields
    /// stripping.
    ///
    /// # Errors
    /// [`Error::AlreadyStarted`] once [`run`](Self::run) was called.
    pub fn set_transform(&self, transform: Transform<K>) -> Result<()> {
        let mut setup = self.inner.setup();
        if setup.started {
            return Err(Error::AlreadyStarted);
        }
        setup.transform = Some(transform);
        Ok(())
    }

    /// Sets a callback for every list or watch failure (they are recovered from either way; the
    /// callback only observes).
    ///
    /// The error is a [`kinformer_reflector::Error`] over the source's error type (for a
    /// `ListWatch`, `kinformer_reflector::Error<kinformer_rest::Error>`; downcast to read it),
    /// whose variant says which kind of failure it was:
    /// - `List`: a list failed;
    /// - `WatchOpen`: the request opening a watch failed (no connection, 5xx, 403, ...);
    /// - `WatchBroken`: an open watch broke: the connection dropped, an event could not be
    ///   decoded, a streaming list stalled, or the watch closed within a second without events;
    /// - `Expired`: the resourceVersion expired (410), as an answer or an `ERROR` event;
    /// - `ErrorEvent`: any other `ERROR` event, with the server's `Status`;
    /// - `Throttled`: 429, with the server's retry-after when it gave one;
    /// - `Store`: the cache rejected a list or a resync.
    ///
    /// A watch that ends cleanly (the server's timeout, a normal close) is not a failure.
    /// client-go's handler sees only the list failures and the watch requests not retried in
    /// place; kinformer's sees every kind.
    ///
    /// # Errors
    /// [`Error::AlreadyStarted`] once [`run`](Self::run) was called.
    pub fn set_watch_error_handler(
        &self,
        handler: impl Fn(&(dyn StdError + 'static)) + Send + Sync + 'static,
    ) -> Result<()> {
        let mut setup = self.inner.setup();
        if setup.started {
            return Err(Error::AlreadyStarted);
        }
        setup.watch_error_handler = Some(Arc::new(handler));
        Ok(())
    }

    /// Adds indexes to the cache (existing objects are indexed at once).
    ///
    /// # Errors
    /// [`Error::Stopped`] once stopped; [`Error::Indexer`] on a name conflict or an index
    /// function failure.
    pub fn add_indexers(
        &self,
        indexers: impl IntoIterator<Item = (String, IndexFunc<K>)>,
    ) -> Result<()> {
        if self.inner.processor.is_stopped() {
            return Err(Error::Stopped);
        }
        self.inner
            .indexer
            .add_indexers(indexers)
            .map_err(Error::Indexer)
    }

    /// True once the cache holds the first full list (says nothing about handlers: see
    /// [`Registration::has_synced`]).
    pub fn has_synced(&self) -> bool {
        self.inner.synced.is_synced()
    }

    /// Waits until [`has_synced`](Self::has_synced). Event-driven: no polling.
    ///
    /// # Errors
    /// [`Error::Stopped`] when the informer stopped before its cache synced.
    ///
    /// # Cancel safety
    /// Cancel safe: it only observes.
    pub async fn wait_for_cache_sync(&self) -> Result<(), Error> {
        if self.inner.synced.watcher().wait().await {
            Ok(())
        } else {
            Err(Error::Stopped)
        }
    }

    /// The resourceVersion the reflector last synced to; empty before the first list.
    pub fn last_sync_resource_version(&self) -> String {
        let rv = self
            .inner
            .resource_version
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        rv.as_ref().map(|f| f()).unwrap_or_default()
    }

    /// The cache, read-only: only the informer's loop writes to it.
    pub fn indexer(&self) -> &ReadOnlyIndexer<K> {
        &self.inner.reader
    }

    /// A typed lister over the cache.
    pub fn lister(&self) -> CacheLister<K> {
        CacheLister::new(
            Arc::clone(&self.inner.indexer),
            Arc::clone(&self.inner.resource),
        )
    }

    /// Runs the informer until [`shutdown`](Self::shutdown): lists and watches, fills the
    /// cache, notifies handlers. On shutdown it stops the watch, stops every handler (dropping
    /// buffered notifications) and returns once their callbacks in progress returned.
    ///
    /// # Errors
    /// [`Error::AlreadyStarted`] if it runs already or ran; [`Error::Stopped`] after shutdown.
    ///
    /// # Cancel safety
    /// Dropping the future stops the informer at once, without waiting for handler callbacks.
    pub async fn run(&self) -> Result<()> {
        let parts = {
            let mut setup = self.inner.setup();
            if self.inner.processor.is_stopped() {
                return Err(Error::Stopped);
            }
            let pipeline = setup.pipeline.take().ok_or(Error::AlreadyStarted)?;
            setup.started = true;
            let parts = RunParts {
                inner: Arc::clone(&self.inner),
                transform: setup.transform.clone(),
                watch_error_handler: setup.watch_error_handler.clone(),
                stop: self.inner.stop.subscribe(),
            };
            (pipeline, parts)
        };
        let (pipeline, parts) = parts;
        let stopped_on_exit = StopOnExit(&self.inner);
        pipeline(parts).await;
        drop(stopped_on_exit);
        Ok(())
    }

    /// Asks the informer to stop; [`run`](Self::run) returns once it has. An informer that
    /// never ran is stopped at once.
    pub fn shutdown(&self) {
        self.inner.stop.send_replace(true);
        let never_ran = self.inner.setup().pipeline.take().is_some();
        if never_ran {
            drop(self.inner.processor.close());
            self.inner.synced.mark_stopped();
        }
    }

    /// True once the informer has stopped (or was shut down before running).
    pub fn is_stopped(&self) -> bool {
        self.inner.processor.is_stopped()
    }
}

impl<K> Clone for SharedIndexInformer<K> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<K> fmt::Debug for SharedIndexInformer<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedIndexInformer")
            .field("resource", &self.inner.resource)
            .field("synced", &self.inner.synced)
            .finish_non_exhaustive()
    }
}
