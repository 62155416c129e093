//! [`Runner`]: the reflector's state machine. Each [`Phase`] is one step of client-go's
//! `Run` / `ListAndWatch` / `watch` loops; [`Runner::step`] advances it.

use std::pin::Pin;
use std::time::Duration;

use crate::error::Error;
use crate::reflector::Reflector;
use crate::resync::ResyncTimer;
use kinformer_core::{
    Bookmark, Delays, Lister, ListerWatcher, Object, Random, Store, WatchEvent, Watcher,
};

/// The open watch stream of a source.
pub(crate) type WatchStream<K, L> = Pin<Box<<L as Watcher<K>>::Stream>>;

/// Where the reflector is.
pub(crate) enum Phase<K, L: ListerWatcher<K>> {
    /// Get the full state: a streaming list if enabled, else a list.
    Sync,
    /// Open a plain watch at the last synced resourceVersion.
    OpenWatch,
    /// Consume an open watch. `propagate_rv` is false while a watch from `""`/`"0"` still
    /// delivers its synthetic ADDED events, whose RVs are not resume points.
    Watch {
        stream: WatchStream<K, L>,
        propagate_rv: bool,
    },
    /// Wait one backoff delay, then sync (`relist == true`) or re-open the watch.
    Backoff { relist: bool },
}

/// The reflector while it runs: its parts plus the state client-go keeps in the struct.
pub(crate) struct Runner<K, L: ListerWatcher<K>, S> {
    pub(crate) parts: Reflector<K, L, S>,
    /// Draws the jitter of the delays and the watch timeouts.
    pub(crate) random: Random,
    pub(crate) delays: Delays,
    /// The last list or streaming list said the last RV is expired or too large: use `""`.
    pub(crate) rv_unavailable: bool,
    /// A list at RV `"0"` came back paginated: the watch cache is off, keep paginating.
    pub(crate) paginated_result: bool,
    /// Streaming lists are enabled and have not been given up on.
    pub(crate) streaming: bool,
    /// A list or streaming list has completed once.
    pub(crate) synced_once: bool,
    pub(crate) resync: ResyncTimer,
}

impl<K, L, S> Runner<K, L, S>
where
    K: Object,
    L: ListerWatcher<K>,
    S: Store<K>,
{
    pub(crate) fn new(parts: Reflector<K, L, S>) -> Self {
        let streaming = parts.config.streaming_list() && parts.source.supports_streaming_list();
        Self {
            random: parts
                .config
                .seed()
                .map_or_else(Random::default, Random::seeded),
            delays: parts.config.backoff().delays(),
            rv_unavailable: false,
            paginated_result: false,
            streaming,
            synced_once: false,
            resync: ResyncTimer::new(parts.config.resync_period()),
            parts,
        }
    }

    pub(crate) async fn run(mut self) {
        let mut phase = Phase::Sync;
        loop {
            phase = self.step(phase).await;
        }
    }

    async fn step(&mut self, phase: Phase<K, L>) -> Phase<K, L> {
        match phase {
            // Listing and opening a watch are rare and their futures large (the request, the
            // pager, the decoder): boxed, they do not inflate what an idle watch keeps.
            Phase::Sync => Box::pin(self.sync()).await,
            Phase::OpenWatch => Box::pin(self.open_watch()).await,
            Phase::Watch {
                stream,
                propagate_rv,
            } => self.watch(stream, propagate_rv).await,
            Phase::Backoff { relist } => {
                let delay = self.next_delay();
                tracing::debug!(?delay, relist, "backing off");
                tokio::time::sleep(delay).await;
                if relist {
                    Phase::Sync
                } else {
                    Phase::OpenWatch
                }
            }
        }
    }

    async fn sync(&mut self) -> Phase<K, L> {
        if self.streaming
            && let Some(stream) = self.streaming_list().await
        {
            self.after_sync();
            return Phase::Watch {
                stream,
                propagate_rv: true,
            };
        }
        match self.list().await {
            Ok(()) => {
                self.after_sync();
                Phase::OpenWatch
            }
            Err(err) => {
                self.report(&err);
                Phase::Backoff { relist: true }
            }
        }
    }

    fn after_sync(&mut self) {
        self.synced_once = true;
        self.resync.restart();
    }

    pub(crate) fn next_delay(&mut self) -> Duration {
        let now = tokio::time::Instant::now().into_std();
        self.delays.next(now, &mut self.random)
    }

    /// `timeoutSeconds` for a watch: uniform in `[min, 2 * min)` whole seconds, as client-go
    /// draws it (`minWatchTimeout * (1 + rand.Float64())`).
    pub(crate) fn watch_timeout_seconds(&mut self) -> u32 {
        let min = self.parts.config.min_watch_timeout();
        let drawn = self.random.jitter(min, 1.0);
        u32::try_from(drawn.as_secs()).unwrap_or(u32::MAX)
    }

    pub(crate) fn report(&self, err: &Error<<L as Lister<K>>::Error>) {
        (self.parts.error_handler)(err);
    }

    pub(crate) fn accepts(&self, obj: &K) -> bool {
        self.parts
            .type_check
            .as_ref()
            .is_none_or(|check| check(obj))
    }

    /// Records `rv` as the last synced resourceVersion, for the store's updater hook too.
    pub(crate) fn advance(&self, rv: &str) {
        if rv.is_empty() {
            return;
        }
        self.parts.last_sync.set(rv);
        self.parts.store.update_resource_version(rv);
        self.parts.metrics.last_resource_version(rv);
    }

    /// Applies one object event or bookmark to the store; false when it was skipped.
    pub(crate) fn apply(&self, event: WatchEvent<K>, propagate_rv: &mut bool) -> bool {
        let store = &self.parts.store;
        // Only the resourceVersion outlives the store call: holding another Arc of the object would
        // make every copy-on-write transform downstream (managedFields stripping) deep-clone it.
        let (rv, result, added) = match event {
            WatchEvent::Added(obj) => {
                if !self.accepts(&obj) {
                    return self.skip(&obj);
                }
                (owned_rv(obj.as_ref()), store.add(obj), true)
            }
            WatchEvent::Modified(obj) => {
                if !self.accepts(&obj) {
                    return self.skip(&obj);
                }
                (owned_rv(obj.as_ref()), store.update(obj), false)
            }
            WatchEvent::Deleted(obj) => {
                if !self.accepts(&obj) {
                    return self.skip(&obj);
                }
                (owned_rv(obj.as_ref()), store.delete(obj), false)
            }
            WatchEvent::Bookmark(Bookmark {
                resource_version, ..
            }) => {
                *propagate_rv = true;
                self.parts.metrics.event();
                self.advance(&resource_version);
                return true;
            }
            // The watch loop turns ERROR events into the end of the watch before applying; an
            // event type this version does not know is skipped.
            _ => return false,
        };
        if let Err(err) = result {
            tracing::warn!(error = %crate::reflector::ErrorChain(&err), "store rejected a watch event");
        }
        self.parts.metrics.event();
        *propagate_rv |= !added;
        if *propagate_rv {
            self.advance(&rv);
        }
        true
    }

    fn skip(&self, obj: &K) -> bool {
        tracing::warn!(
            name = obj.name(),
            namespace = obj.namespace(),
            "skipping watch object of an unexpected type"
        );
        false
    }
}

/// The object's resourceVersion, copied so the object itself can be handed on.
fn owned_rv<K: Object>(obj: &K) -> String {
    obj.resource_version().unwrap_or("").to_owned()
}
