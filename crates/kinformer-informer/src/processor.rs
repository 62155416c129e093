//! [`Processor`]: fans notifications out to listeners (client-go's `sharedProcessor`), with the
//! resync bookkeeping.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::runtime::Handle;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use kinformer_core::Cached;

use super::handler::EventHandler;
use super::listener::{Listener, SpentSender};
use super::metrics::Metrics;
use super::notification::Notification;
use super::registration::{ListenerShared, Registration};
use super::sync::SyncWatcher;
use crate::error::{Error, Result};

/// The shortest resync period a handler can get; shorter requests are raised to it.
pub const MINIMUM_RESYNC_PERIOD: Duration = Duration::from_secs(1);

static NEXT_INFORMER_ID: AtomicU64 = AtomicU64::new(1);

/// Every handler of one informer.
pub(crate) struct Processor<K> {
    informer_id: u64,
    informer_synced: SyncWatcher,
    state: Mutex<State<K>>,
}

struct State<K> {
    listeners: Vec<Listener<K>>,
    /// Set when the informer starts: where handler tasks are spawned.
    runtime: Option<Handle>,
    /// Where handler tasks send delivered notifications, so their objects are freed by the
    /// informer's task (see [`SpentSender`]); without it, handler tasks drop them.
    spent: Option<SpentSender<K>>,
    /// Where handler tasks count notifications they could not deliver.
    metrics: Option<Arc<dyn Metrics>>,
    stopped: bool,
    next_listener_id: u64,
    /// How often the informer asks whether any handler is due for resync; 0 = never.
    check_period: Duration,
}

impl<K: Send + Sync + 'static> Processor<K> {
    pub(crate) fn new(informer_synced: SyncWatcher, check_period: Duration) -> Self {
        Self {
            informer_id: NEXT_INFORMER_ID.fetch_add(1, Ordering::Relaxed),
            informer_synced,
            state: Mutex::new(State {
                listeners: Vec::new(),
                runtime: None,
                spent: None,
                metrics: None,
                stopped: false,
                next_listener_id: 1,
                check_period,
            }),
        }
    }

    /// The informer's resync check period (lowered by handlers added before start).
    pub(crate) fn check_period(&self) -> Duration {
        self.lock().check_period
    }

    /// Registers `handler` with the resync period it asks for (`Duration::ZERO` = none).
    ///
    /// After start, `cache` must hold the current cache content, read while no delta is being
    /// processed: the handler first receives a synthetic initial-list add for each object.
    pub(crate) fn add_listener(
        &self,
        handler: Arc<dyn EventHandler<K>>,
        resync: Duration,
        cache: impl FnOnce() -> Vec<Cached<K>>,
    ) -> Result<Registration> {
        let mut state = self.lock();
        if state.stopped {
            return Err(Error::Stopped);
        }
        let started = state.runtime.is_some();
        let mut requested = resync;
        if !requested.is_zero() {
            requested = requested.max(MINIMUM_RESYNC_PERIOD);
            if requested < state.check_period {
                if started {
                    tracing::warn!(
                        ?requested,
                        check_period = ?state.check_period,
                        "resync period is shorter than the informer's check period; raised to it"
                    );
                    requested = state.check_period;
                } else {
                    state.check_period = requested;
                    let check = state.check_period;
                    for l in &mut state.listeners {
                        l.resync = effective_resync(l.requested_resync, check);
                    }
                }
            }
        }
        let id = state.next_listener_id;
        state.next_listener_id += 1;
        let shared = Arc::new(ListenerShared::new(
            id,
            self.informer_id,
            self.informer_synced.clone(),
        ));
        let effective = effective_resync(requested, state.check_period);
        let mut listener = Listener::new(Arc::clone(&shared), handler, requested, effective);
        if let Some(runtime) = &state.runtime {
            listener.push_listed(Arc::new(cache()), true);
            listener.start(runtime, state.spent.clone(), state.metrics.clone());
        }
        shared.start_sync_tracking();
        state.listeners.push(listener);
        Ok(Registration { shared })
    }

    /// Removes a handler: it gets no further notifications (buffered ones are dropped). Returns
    /// its task so the caller may wait for a callback in progress. A handle of another informer,
    /// or one already removed, is ignored.
    pub(crate) fn remove_listener(&self, registration: &Registration) -> Option<JoinHandle<()>> {
        if registration.shared.informer_id != self.informer_id {
            return None;
        }
        let mut state = self.lock();
        let index = state
            .listeners
            .iter()
            .position(|l| l.shared.id == registration.shared.id)?;
        state.listeners.swap_remove(index).stop()
    }

    /// Queues an add of each of `objects`, in order, for every handler, as one buffer entry.
    pub(crate) fn distribute_listed(&self, objects: &Arc<Vec<Cached<K>>>, initial: bool) {
        let state = self.lock();
        for l in &state.listeners {
            l.push_listed(Arc::clone(objects), initial);
        }
    }

    /// Queues `notification` for every handler, or with `sync` only for handlers due for resync.
    pub(crate) fn distribute(&self, notification: &Notification<K>, sync: bool) {
        let state = self.lock();
        for l in state.listeners.iter().filter(|l| !sync || l.syncing) {
            l.push(notification.clone());
        }
    }

    /// Marks the handlers due for resync at `now`; true if any is.
    pub(crate) fn should_resync(&self, now: Instant) -> bool {
        let mut state = self.lock();
        let mut any = false;
        for l in &mut state.listeners {
            any |= l.check_resync(now);
        }
        any
    }

    /// Starts every handler task on `runtime`; later handlers start as they are added.
    pub(crate) fn start(&self, runtime: Handle) {
        let mut state = self.lock();
        let spent = state.spent.clone();
        let metrics = state.metrics.clone();
        for l in &mut state.listeners {
            l.start(&runtime, spent.clone(), metrics.clone());
        }
        state.runtime = Some(runtime);
    }

    /// Has handler tasks started from now on send what they delivered to `spent`.
    pub(crate) fn return_spent_to(&self, spent: SpentSender<K>) {
        self.lock().spent = Some(spent);
    }

    /// Has handler tasks started from now on count undeliverable notifications in `metrics`.
    pub(crate) fn report_to(&self, metrics: Arc<dyn Metrics>) {
        self.lock().metrics = Some(metrics);
    }

    /// Stops every handler (buffered notifications are dropped) without waiting; returns the
    /// handler tasks. No handler can be added afterwards.
    pub(crate) fn close(&self) -> Vec<JoinHandle<()>> {
        let mut state = self.lock();
        state.stopped = true;
        state
            .listeners
            .drain(..)
            .filter_map(Listener::stop)
            .collect()
    }

    /// [`close`](Self::close), then waits for the callbacks in progress to return.
    pub(crate) async fn stop(&self) {
        for task in self.close() {
            // A task only ends by finishing or by a runtime shutdown; either way it is done.
            drop(task.await);
        }
    }

    pub(crate) fn is_stopped(&self) -> bool {
        self.lock().stopped
    }

    fn lock(&self) -> MutexGuard<'_, State<K>> {
        // Every section leaves the listener list consistent; handler code never runs under it.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// client-go's `determineResyncPeriod`: no resync stays none; an informer that never checks
/// gives none; otherwise at least the check period.
fn effective_resync(requested: Duration, check_period: Duration) -> Duration {
    if requested.is_zero() {
        return Duration::ZERO;
    }
    if check_period.is_zero() {
        tracing::warn!(
            ?requested,
            "the informer does not resync, so the handler's resync period is ignored"
        );
        return Duration::ZERO;
    }
    requested.max(check_period)
}

#[cfg(test)]
mod tests;
