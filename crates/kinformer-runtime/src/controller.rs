//! [`Controller`]: a primary resource's informer, the informers mapped to it, one work queue,
//! and the workers that reconcile what the queue hands out.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use kinformer_core::{ApiResource, Object, StoreRead as _};
use kinformer_informer::{EventHandler, SharedIndexInformer};
use kinformer_workqueue::{QueueConfig, RateLimitingQueue, default_controller_rate_limiter};
use tokio::sync::mpsc;

use crate::mapping::{Mapped, Primary, controller_owner};
use crate::own_writes::OwnWrites;
use crate::stream::{Detach, Outcome, ResultStream};
use crate::worker::Worker;
use crate::{Action, Check, ControllerConfig, Error, ObjectRef, Predicate};

/// A wait for one informer's cache.
type SyncWait = Pin<Box<dyn Future<Output = Result<(), kinformer_informer::Error>> + Send>>;

/// Reconciles the objects of one primary resource.
///
/// Every change to a primary object, to an object it owns ([`owns`](Self::owns)) or to one a
/// mapper relates to it ([`watches`](Self::watches)) queues the primary's [`ObjectRef`] on
/// one rate-limited work queue; workers take keys from it and call the reconcile function
/// with the object as the primary's cache holds it at that moment. What the queue
/// guarantees, the controller does:
/// - one object is never reconciled twice at once;
/// - changes while an object waits are one reconcile; a change while it is being reconciled
///   queues exactly one more, after the current one;
/// - at most [`ControllerConfig::concurrency`] reconciles run at once;
/// - a failed reconcile is retried as the error policy's [`Action`] says
///   ([`Action::backoff`]: client-go's default controller rate limiter), and a success
///   starts the object's backoff over;
/// - an object no longer in the cache (deleted) is not reconciled;
/// - an owned or watched object's event that is the echo of a reconcile's own write (through
///   `kinformer-api`, with the `rest` feature: the very state that write stored) does not
///   reconcile that primary again.
///
/// Informers come from the caller (a shared factory's, typically), so two controllers in one
/// process share one watch and one cache per resource.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
/// use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
/// use kinformer_rest::Client;
/// use kinformer_runtime::{Action, Controller, ControllerConfig};
/// use kinformer_sim::Sim;
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("never")]
/// struct Never;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let sim = Sim::builder().start().await?;
/// let factory = SharedInformerFactory::new(Client::new(sim.service()), FactoryConfig::default());
/// let controller = Controller::for_type(factory.informer_for::<Deployment>(), ControllerConfig::default())
///     .owns(&factory.informer_for::<ReplicaSet>());
/// factory.start();
///
/// let reconcile = |deployment: Arc<Deployment>, _ctx: Arc<()>| async move {
///     let _ = deployment; // make the world as the deployment asks
///     Ok::<_, Never>(Action::await_change())
/// };
/// let results = controller.stream(reconcile, |_, _, _| Action::backoff(), Arc::new(()));
/// drop(results); // stops the workers; `Controller::run` drives the stream instead
/// factory.shutdown().await;
/// # Ok(()) }
/// ```
pub struct Controller<K> {
    primary: SharedIndexInformer<K>,
    resource: ApiResource,
    config: ControllerConfig,
    queue: RateLimitingQueue<ObjectRef>,
    waits: Vec<SyncWait>,
    detach: Vec<Detach>,
    failed: Option<kinformer_informer::Error>,
    predicate: Predicate<K>,
    ready: Option<Check>,
    own: Arc<OwnWrites>,
}

impl<K: Object + Clone> Controller<K> {
    /// A controller of the objects `primary` caches, whose type the server calls `resource`
    /// (needed to recognise owner references to it; [`for_type`](Self::for_type) finds it
    /// for a k8s-openapi type).
    pub fn new(
        primary: SharedIndexInformer<K>,
        resource: ApiResource,
        config: ControllerConfig,
    ) -> Self {
        let queue = RateLimitingQueue::with_rate_limiter(
            default_controller_rate_limiter(),
            QueueConfig::default()
                .with_name(config.name())
                .with_metrics(Arc::clone(config.queue_metrics())),
        );
        Self {
            primary,
            resource,
            config,
            queue,
            waits: Vec::new(),
            detach: Vec::new(),
            failed: None,
            predicate: Predicate::default(),
            ready: None,
            own: Arc::default(),
        }
    }

    /// Sets which updates of a primary object queue a reconcile (default
    /// [`Predicate::spec_or_metadata_changed`]: not a status-only write). Changes of owned
    /// and watched objects are not filtered.
    #[must_use]
    pub fn with_predicate(mut self, predicate: Predicate<K>) -> Self {
        self.predicate = predicate;
        self
    }

    /// Marks `check` ready once every informer the controller reads has synced and its
    /// workers run, and not ready when it stops (a [`Health`](crate::Health) check, which
    /// `/readyz` reports).
    #[must_use]
    pub fn with_ready_check(mut self, check: Check) -> Self {
        self.ready = Some(check);
        self
    }

    /// A controller of a k8s-openapi type's objects.
    pub fn for_type(primary: SharedIndexInformer<K>, config: ControllerConfig) -> Self
    where
        K: k8s_openapi::Resource,
    {
        Self::new(primary, ApiResource::of::<K>(), config)
    }

    /// Also reconciles the primary that controls an object `owned` caches: the owner
    /// reference with `controller: true` and the primary's apiVersion and kind. The owned
    /// informer may hold metadata only (`PartialObjectMetadata`): owner references are all the
    /// mapping reads.
    #[must_use]
    pub fn owns<C: Object + Clone>(self, owned: &SharedIndexInformer<C>) -> Self {
        let owner = self.resource.clone();
        self.watches(owned, move |child: &C| controller_owner(&owner, child))
    }

    /// Also reconciles the primaries `mapper` names for each object `other` caches (any
    /// number: an `Option`, a `Vec`, an iterator), before and after each change.
    #[must_use]
    pub fn watches<O, F, I>(mut self, other: &SharedIndexInformer<O>, mapper: F) -> Self
    where
        O: Object + Clone,
        F: Fn(&O) -> I + Send + Sync + 'static,
        I: IntoIterator<Item = ObjectRef>,
    {
        let handler = Mapped {
            queue: self.queue.clone(),
            mapper,
            own: Arc::clone(&self.own),
        };
        self.watch(other, handler);
        self
    }

    /// The controller's settings.
    pub fn config(&self) -> &ControllerConfig {
        &self.config
    }

    /// Queues `object` for a reconcile, as a change to it would.
    pub fn enqueue(&self, object: ObjectRef) {
        self.queue.add(object);
    }

    fn watch<O: Object + Clone>(
        &mut self,
        informer: &SharedIndexInformer<O>,
        handler: impl EventHandler<O>,
    ) {
        match informer.add_event_handler(handler) {
            Ok(registration) => {
                let remover = informer.clone();
                self.detach.push(Box::new(move || {
                    remover.remove_event_handler(&registration);
                }));
                let waiter = informer.clone();
                self.waits
                    .push(Box::pin(async move { waiter.wait_for_cache_sync().await }));
            }
            Err(error) => {
                self.failed.get_or_insert(error);
            }
        }
    }

    /// Starts the workers and hands out each reconcile's outcome: `Ok((object, action))`
    /// or [`Error::Reconcile`]. Nothing is reconciled before every informer the controller
    /// reads has synced ([`Error::NotSynced`] ends the stream if one stopped first).
    ///
    /// The workers wait while outcomes are not read (at most one unread outcome per worker):
    /// read the stream, or use [`run`](Self::run). Dropping the stream stops the controller at
    /// once ([`ResultStream`] says how; [`ResultStream::drain`] stops it gracefully).
    ///
    /// # Panics
    /// Outside a tokio runtime (it spawns the workers).
    pub fn stream<C, E, R, Fut, P>(
        mut self,
        reconcile: R,
        error_policy: P,
        context: Arc<C>,
    ) -> ResultStream<E>
    where
        C: Send + Sync + 'static,
        E: fmt::Debug + fmt::Display + Send + Sync + 'static,
        R: Fn(Arc<K>, Arc<C>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Action, E>> + Send + 'static,
        P: Fn(Arc<K>, &E, Arc<C>) -> Action + Send + Sync + 'static,
    {
        let primary = Primary {
            queue: self.queue.clone(),
            predicate: self.predicate.clone(),
        };
        let informer = self.primary.clone();
        self.watch(&informer, primary);
        let Self {
            primary,
            config,
            queue,
            waits,
            detach,
            failed,
            ready,
            own,
            ..
        } = self;
        let workers = config.concurrency().get();
        let (outcomes, received) = mpsc::channel::<Outcome<E>>(workers);
        if let Some(error) = failed {
            // The stream ends after this: the controller cannot see its informers.
            drop(outcomes.try_send(Err(Error::Informer(error))));
            queue.shutdown();
            return ResultStream::new(received, queue, detach, None);
        }
        let stream_queue = queue.clone();
        let worker = Arc::new(Worker {
            name: config.name().to_owned(),
            metrics: Arc::clone(config.metrics()),
            cache: primary,
            queue,
            reconcile,
            error_policy,
            context,
            outcomes,
            own,
        });
        let driver = tokio::spawn(async move {
            let outcomes = worker.outcomes.clone();
            let synced = async {
                for wait in waits {
                    wait.await?;
                }
                Ok::<(), kinformer_informer::Error>(())
            };
            tokio::select! {
                // The stream was dropped before the caches synced.
                () = outcomes.closed() => return,
                synced = synced => {
                    if let Err(error) = synced {
                        drop(outcomes.send(Err(Error::NotSynced(error))).await);
                        worker.queue.shutdown();
                        return;
                    }
                }
            }
            worker.metrics.started(workers);
            // Not ready again once the workers stop, however the driver ends.
            let _ready = ready.map(ReadyWhileRunning::new);
            let mut running = tokio::task::JoinSet::new();
            for _ in 0..workers {
                running.spawn(Arc::clone(&worker).run());
            }
            while running.join_next().await.is_some() {}
        });
        ResultStream::new(received, stream_queue, detach, Some(driver.abort_handle()))
    }

    /// Drives [`stream`](Self::stream), logging each failed reconcile, until the controller
    /// stops; dropping the future stops it at once (in-flight reconciles are dropped too,
    /// which is what a replica that lost its leadership must do: see the crate's example).
    ///
    /// # Panics
    /// Outside a tokio runtime (it spawns the workers).
    pub async fn run<C, E, R, Fut, P>(self, reconcile: R, error_policy: P, context: Arc<C>)
    where
        C: Send + Sync + 'static,
        E: fmt::Debug + fmt::Display + Send + Sync + 'static,
        R: Fn(Arc<K>, Arc<C>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Action, E>> + Send + 'static,
        P: Fn(Arc<K>, &E, Arc<C>) -> Action + Send + Sync + 'static,
    {
        self.run_until(reconcile, error_policy, context, std::future::pending())
            .await;
    }

    /// As [`run`](Self::run), until `stop` completes (a shutdown signal: see
    /// [`shutdown_signal`](crate::shutdown_signal)); then no new reconcile starts, and those
    /// under way get [`ControllerConfig::drain_timeout`] to finish before they are dropped.
    ///
    /// # Panics
    /// Outside a tokio runtime (it spawns the workers).
    pub async fn run_until<C, E, R, Fut, P>(
        self,
        reconcile: R,
        error_policy: P,
        context: Arc<C>,
        stop: impl Future<Output = ()>,
    ) where
        C: Send + Sync + 'static,
        E: fmt::Debug + fmt::Display + Send + Sync + 'static,
        R: Fn(Arc<K>, Arc<C>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Action, E>> + Send + 'static,
        P: Fn(Arc<K>, &E, Arc<C>) -> Action + Send + Sync + 'static,
    {
        let name = self.config.name().to_owned();
        let drain = self.config.drain_timeout();
        let mut results = self.stream(reconcile, error_policy, context);
        let mut stop = std::pin::pin!(stop);
        loop {
            tokio::select! {
                () = &mut stop => break,
                outcome = results.next() => match outcome {
                    None => return,
                    Some(Err(error)) => tracing::warn!(controller = %name, %error, "reconcile failed"),
                    Some(Ok(_)) => {}
                },
            }
        }
        results.drain(drain).await;
    }
}

impl<K> fmt::Debug for Controller<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Controller")
            .field("resource", &self.resource)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// The cache's latest state of `object`, if it is still there.
pub(crate) fn latest<K: Object + Clone>(
    cache: &SharedIndexInformer<K>,
    object: &ObjectRef,
) -> Option<Arc<K>> {
    cache.indexer().get_by_key(&object.cache_key())
}

/// Keeps a readiness check ready while it lives (the driver's workers run).
struct ReadyWhileRunning(Check);

impl ReadyWhileRunning {
    fn new(check: Check) -> Self {
        check.set_ready(true);
        Self(check)
    }
}

impl Drop for ReadyWhileRunning {
    fn drop(&mut self) {
        self.0.set_ready(false);
    }
}
