//! [`LeaderElected`]: a controller that reconciles only while its replica leads.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use kinformer_core::Object;
use kinformer_leaderelection::{Callbacks, Config, LeaderElector, LeaseLock};
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use crate::{Action, Check, Controller};

/// What readiness waits for: the caches synced (true) or never will (false).
type Synced = Pin<Box<dyn Future<Output = bool> + Send>>;

/// A replica's candidacy for a controller's Lease: while it leads, a fresh [`Controller`]
/// reconciles (it waits for its caches, which every replica keeps warm, before the first
/// reconcile); when leadership is lost, that controller stops at once and reconciles under
/// way are dropped, so a replica that no longer leads writes nothing more; the replica then
/// stands again. On shutdown, the leader's reconciles under way get the controller's
/// [`drain_timeout`](crate::ControllerConfig::drain_timeout), then the lease is released
/// (client-go's `ReleaseOnCancel`), so the next leader takes over at once.
///
/// A replica standing by is a ready one: [`with_ready_check`](Self::with_ready_check) marks
/// a readiness check ready once the caches are synced, whether the replica leads or waits,
/// and not ready when shutdown begins (a rolling update waits for the new replica's
/// readiness before it stops the leader, and the new replica cannot lead before then).
///
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
/// use kinformer_leaderelection::{Config, RestLeaseLock};
/// use kinformer_rest::Client;
/// use kinformer_runtime::{Action, Controller, ControllerConfig, LeaderElected};
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("never")]
/// struct Never;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let sim = kinformer_sim::Sim::builder().configmaps(2).start().await?;
/// let client = Client::new(sim.service());
/// let factory = SharedInformerFactory::new(client.clone(), FactoryConfig::default());
/// let configmaps = factory.informer_for::<ConfigMap>();
/// factory.start();
/// let lock = RestLeaseLock::new(client, "default", "configmap-controller")?;
/// let elected = LeaderElected::new(lock, "replica-a", Config::default())?;
/// let controller = move || Controller::for_type(configmaps.clone(), ControllerConfig::default());
/// let reconcile = |_: Arc<ConfigMap>, _: Arc<()>| async { Ok::<_, Never>(Action::await_change()) };
/// // In a process: `shutdown_signal()`; here, a short while.
/// let shutdown = tokio::time::sleep(std::time::Duration::from_millis(300));
/// elected.run(controller, reconcile, |_, _, _| Action::backoff(), Arc::new(()), shutdown).await;
/// factory.shutdown().await;
/// # Ok(()) }
/// ```
pub struct LeaderElected<L> {
    lock: L,
    identity: String,
    config: Config,
    ready: Option<(Check, Synced)>,
}

impl<L: LeaseLock + 'static> LeaderElected<L> {
    /// The candidacy of `identity` for `lock`'s Lease, with `config`'s timings (the lease is
    /// released on shutdown whatever `config` says).
    ///
    /// # Errors
    /// An empty identity.
    pub fn new(
        lock: L,
        identity: impl Into<String>,
        config: Config,
    ) -> Result<Self, kinformer_leaderelection::Error> {
        let identity = identity.into();
        if identity.is_empty() {
            return Err(kinformer_leaderelection::Error::EmptyIdentity);
        }
        Ok(Self {
            lock,
            identity,
            config: config.with_release_on_cancel(true),
            ready: None,
        })
    }

    /// Marks `check` ready once `synced` succeeds (the caches the controller reads, say a
    /// clone of the factory's `wait_for_cache_sync()`), whether this replica leads or stands
    /// by, and not ready once shutdown begins; a `synced` that fails leaves it not ready.
    #[must_use]
    pub fn with_ready_check<E>(
        mut self,
        check: Check,
        synced: impl Future<Output = Result<(), E>> + Send + 'static,
    ) -> Self {
        self.ready = Some((check, Box::pin(async move { synced.await.is_ok() })));
        self
    }

    /// Stands for election until `shutdown` completes, running `controller()`'s controller
    /// with `reconcile`, `error_policy` and `context` through each term of leadership.
    pub async fn run<K, C, E, R, Fut, P>(
        self,
        controller: impl Fn() -> Controller<K> + Send + Sync + 'static,
        reconcile: R,
        error_policy: P,
        context: Arc<C>,
        shutdown: impl Future<Output = ()>,
    ) where
        K: Object + Clone,
        C: Send + Sync + 'static,
        E: fmt::Debug + fmt::Display + Send + Sync + 'static,
        R: Fn(Arc<K>, Arc<C>) -> Fut + Clone + Send + Sync + 'static,
        Fut: Future<Output = Result<Action, E>> + Send + 'static,
        P: Fn(Arc<K>, &E, Arc<C>) -> Action + Clone + Send + Sync + 'static,
    {
        let draining = CancellationToken::new();
        // Held by a term's controller while it runs: shutdown waits on it for the drain.
        let term = Arc::new(Mutex::new(()));
        let callbacks = Callbacks::new({
            let (draining, term) = (draining.clone(), Arc::clone(&term));
            move |leading: CancellationToken| {
                let controller = controller();
                let (reconcile, error_policy) = (reconcile.clone(), error_policy.clone());
                let (context, draining, term) =
                    (Arc::clone(&context), draining.clone(), Arc::clone(&term));
                async move {
                    let _running = term.lock().await;
                    let drained = draining.cancelled_owned();
                    tokio::select! {
                        () = leading.cancelled() => {}
                        () = controller.run_until(reconcile, error_policy, context, drained) => {}
                    }
                }
            }
        });
        let elector = match LeaderElector::new(self.lock, self.identity, self.config, callbacks) {
            Ok(elector) => elector,
            // `new` checked the identity: nothing else can be refused.
            Err(error) => {
                tracing::error!(%error, "leader election could not start");
                return;
            }
        };
        let stop = CancellationToken::new();
        let (check, synced) = self.ready.unzip();
        let readiness = async {
            let Some(synced) = synced else { return };
            // One task polls this and `stopping`: a shutdown seen first is never undone here.
            tokio::select! {
                biased;
                () = draining.cancelled() => {}
                ok = synced => {
                    if let Some(check) = &check {
                        check.set_ready(ok);
                    }
                }
            }
        };
        let candidacy = async {
            // Leadership lost (renewals failed) is not the end: the replica stands again.
            while !stop.is_cancelled() {
                elector.run(stop.clone()).await;
            }
        };
        let stopping = async {
            shutdown.await;
            draining.cancel();
            if let Some(check) = &check {
                check.set_ready(false);
            }
            // The term under way (if this replica leads) drains, then the lease goes.
            drop(term.lock().await);
            stop.cancel();
        };
        tokio::join!(readiness, candidacy, stopping);
    }
}

impl<L> fmt::Debug for LeaderElected<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LeaderElected")
            .field("identity", &self.identity)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}
