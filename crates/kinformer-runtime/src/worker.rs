//! One worker: takes a key from the queue, reconciles the cache's latest state of it, and
//! schedules what the reconcile (or the error policy) asked for.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use kinformer_core::Object;
use kinformer_informer::SharedIndexInformer;
use kinformer_workqueue::RateLimitingQueue;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tracing::Instrument as _;

use crate::controller::latest;
use crate::metrics::{ControllerMetrics, ReconcileResult};
use crate::stream::Outcome;
use crate::{Action, Error, ObjectRef};

/// What every worker of one controller shares.
pub(crate) struct Worker<K, C, E, R, P> {
    pub(crate) name: String,
    pub(crate) metrics: Arc<dyn ControllerMetrics>,
    pub(crate) cache: SharedIndexInformer<K>,
    pub(crate) queue: RateLimitingQueue<ObjectRef>,
    pub(crate) reconcile: R,
    pub(crate) error_policy: P,
    pub(crate) context: Arc<C>,
    pub(crate) outcomes: mpsc::Sender<Outcome<E>>,
    /// Where the reconciles' own writes are recorded.
    pub(crate) own: Arc<crate::own_writes::OwnWrites>,
}

impl<K, C, E, R, Fut, P> Worker<K, C, E, R, P>
where
    K: Object + Clone,
    C: Send + Sync + 'static,
    E: fmt::Debug + fmt::Display + Send + Sync + 'static,
    R: Fn(Arc<K>, Arc<C>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Action, E>> + Send + 'static,
    P: Fn(Arc<K>, &E, Arc<C>) -> Action + Send + Sync + 'static,
{
    /// Reconciles keys until the queue shuts down.
    pub(crate) async fn run(self: Arc<Self>) {
        while let Some(object) = self.queue.get().await {
            let outcome = self.reconcile_one(&object).await;
            // Done before the outcome is handed on: a slow reader holds up this worker, not
            // the object's next reconcile.
            self.queue.done(&object);
            if let Some(outcome) = outcome
                && self.outcomes.send(outcome).await.is_err()
            {
                // The stream was dropped: the controller is stopping.
                self.queue.shutdown();
            }
        }
    }

    /// Reconciles `object` as the cache holds it now; `None` when it is gone.
    async fn reconcile_one(&self, object: &ObjectRef) -> Option<Outcome<E>> {
        let Some(current) = latest(&self.cache, object) else {
            // Deleted: nothing to reconcile, and no backoff to keep.
            self.queue.forget(object);
            return None;
        };
        let span = tracing::info_span!("reconcile", controller = %self.name, object = %object);
        self.metrics.reconcile_started();
        let started = Instant::now();
        let reconcile = (self.reconcile)(Arc::clone(&current), Arc::clone(&self.context));
        let reconciling = self.own.begin(object);
        let result = self
            .observed(object, reconcile)
            .instrument(span.clone())
            .await;
        if let Some(priority) = reconciling.end() {
            // Before `done`: a change that came meanwhile is exactly one more reconcile.
            self.queue.add_with_priority(object.clone(), priority);
        }
        let took = started.elapsed();
        Some(match result {
            Ok(action) => {
                self.metrics.reconcile_finished(result_of(action), took);
                self.queue.forget(object);
                self.schedule(object, action);
                span.in_scope(|| tracing::debug!(?action, "reconciled"));
                Ok((object.clone(), action))
            }
            Err(error) => {
                self.metrics
                    .reconcile_finished(ReconcileResult::Error, took);
                let action = (self.error_policy)(current, &error, Arc::clone(&self.context));
                self.schedule(object, action);
                span.in_scope(|| tracing::debug!(?action, %error, "reconcile failed"));
                Err(Error::Reconcile {
                    object: object.clone(),
                    error,
                })
            }
        })
    }

    /// `reconcile`, with its writes through `kinformer-api` recorded as the controller's own.
    #[cfg(feature = "rest")]
    async fn observed(&self, object: &ObjectRef, reconcile: Fut) -> Fut::Output {
        let recorder = crate::own_writes::Recorder {
            own: Arc::clone(&self.own),
            primary: object.clone(),
        };
        kinformer_api::observe_writes(Arc::new(recorder), reconcile).await
    }

    /// `reconcile` (without `kinformer-api`, no write is recorded).
    #[cfg(not(feature = "rest"))]
    async fn observed(&self, _object: &ObjectRef, reconcile: Fut) -> Fut::Output {
        reconcile.await
    }

    fn schedule(&self, object: &ObjectRef, action: Action) {
        if action.is_backoff() {
            self.queue.add_rate_limited(object.clone());
        } else if let Some(after) = action.requeue_after() {
            self.queue.add_after(object.clone(), after);
        }
    }
}

/// The `result` label of a successful reconcile's action.
fn result_of(action: Action) -> ReconcileResult {
    if action.is_backoff() {
        ReconcileResult::Requeue
    } else if action.requeue_after().is_some() {
        ReconcileResult::RequeueAfter
    } else {
        ReconcileResult::Success
    }
}
