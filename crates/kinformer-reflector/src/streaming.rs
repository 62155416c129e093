//! The streaming list step (client-go's `watchList`, KEP-3157): a watch with
//! `sendInitialEvents=true` whose initial events build a temporary store until the bookmark
//! annotated `k8s.io/initial-events-end: "true"`; then one `Store::replace`, and the same stream
//! carries on as the watch.

use std::collections::HashMap;
use std::time::Duration;

use futures_util::StreamExt;
use kinformer_core::{
    Cached, ListOptions, ListerWatcher, Object, ResourceVersionMatch, Store, WatchEvent, object_key,
};
use tokio::time::Instant;
use tracing::Instrument;

use crate::classify::Failure;
use crate::error::{Error, WatchBreak};
use crate::runner::{Runner, WatchStream};
use crate::watch::SHORT_WATCH;

/// How often a streaming list still waiting for its end bookmark logs a warning.
const WAITING_WARNING_EVERY: Duration = Duration::from_secs(10);

/// What one streaming-list attempt came to.
enum Attempt<K, L: ListerWatcher<K>> {
    /// The initial state is in the store; the stream continues as the watch.
    Synced(WatchStream<K, L>),
    /// Try the streaming list again, after a backoff delay when `backoff` is set.
    Retry { backoff: bool },
    /// Give up for this round and list instead.
    FallBack,
}

impl<K, L, S> Runner<K, L, S>
where
    K: Object,
    L: ListerWatcher<K>,
    S: Store<K>,
{
    /// Streams the initial state into the store. `None` means "fall back to list+watch".
    ///
    /// Retries in place (as client-go) on 429 or a refused connection (after backoff), on an
    /// expired or too-large RV (at once, with RV `""`), and on a stream that closed before the
    /// end bookmark (after backoff, so a server that keeps cutting streams is not hammered).
    /// Any other failure, including a 400/422 rejection, falls back. A server that never sends
    /// the end bookmark makes the reflector give up on streaming lists for good.
    pub(crate) async fn streaming_list(&mut self) -> Option<WatchStream<K, L>> {
        loop {
            match self.streaming_attempt().await {
                Attempt::Synced(stream) => return Some(stream),
                Attempt::FallBack => return None,
                Attempt::Retry { backoff: false } => {}
                Attempt::Retry { backoff: true } => {
                    let delay = self.next_delay();
                    tracing::debug!(?delay, "retrying the streaming list after backoff");
                    tokio::time::sleep(delay).await;
                }
            }
        }
    }

    /// client-go's `rewatchResourceVersion`: `""` first and after an unusable RV, else the last
    /// synced RV (never `"0"`).
    fn streaming_resource_version(&self) -> String {
        if self.rv_unavailable {
            String::new()
        } else {
            self.parts.last_sync.get()
        }
    }

    async fn streaming_attempt(&mut self) -> Attempt<K, L> {
        let rv = self.streaming_resource_version();
        let timeout = self.watch_timeout_seconds();
        let mut options = ListOptions::default()
            .send_initial_events(true)
            .resource_version_match(ResourceVersionMatch::NotOlderThan)
            .bookmarks(true)
            .timeout_seconds(timeout);
        if !rv.is_empty() {
            options.resource_version = Some(rv.clone());
        }
        self.parts.metrics.list_started(self.synced_once);
        self.parts.metrics.watch_started();
        let span = tracing::debug_span!("streaming_list", resource_version = %rv);
        let opened = self.parts.source.watch(&options).instrument(span).await;
        let stream = match opened {
            Ok(stream) => Box::pin(stream),
            Err(err) => {
                let failure = Failure::of_error(&err);
                self.report(&Error::from_watch_request(err));
                return self.attempt_failed(failure);
            }
        };
        self.initial_events(stream).await
    }

    /// Reads initial events into a temporary store until the end bookmark.
    async fn initial_events(&mut self, mut stream: WatchStream<K, L>) -> Attempt<K, L> {
        let started = Instant::now();
        let mut last_activity = started;
        let mut last_warning = started;
        let mut initial: HashMap<String, Cached<K>> = HashMap::new();
        let mut events = 0_u64;
        let patience = self.parts.config.initial_events_timeout();
        loop {
            // A patience too long to add to the clock (`Duration::MAX`) means: never give up.
            let give_up_at = last_activity.checked_add(patience);
            let warn_at = last_warning + WAITING_WARNING_EVERY;
            let wake_at = give_up_at.map_or(warn_at, |give_up_at| give_up_at.min(warn_at));
            let next = match tokio::time::timeout_at(wake_at, stream.next()).await {
                Ok(next) => next,
                Err(_) if give_up_at.is_some_and(|give_up_at| Instant::now() >= give_up_at) => {
                    tracing::warn!(
                        waited = ?patience,
                        "no initial-events-end bookmark: the server does not seem to support streaming lists; using list+watch from now on"
                    );
                    self.report(&Error::broken(WatchBreak::Stalled));
                    self.streaming = false;
                    return Attempt::FallBack;
                }
                Err(_) => {
                    last_warning = Instant::now();
                    tracing::warn!(
                        since_last_event = ?last_activity.elapsed(),
                        "awaiting the initial-events-end bookmark"
                    );
                    continue;
                }
            };
            let event = match next {
                None => return self.closed_early(started, events, false),
                Some(Err(err)) => {
                    let failure = Failure::of_error(&err);
                    self.report(&Error::from_stream(err));
                    if failure == Failure::Retriable {
                        return self.closed_early(started, events, true);
                    }
                    return self.attempt_failed(failure);
                }
                Some(Ok(event)) => event,
            };
            match event {
                WatchEvent::Added(obj) | WatchEvent::Modified(obj) if self.accepts(&obj) => {
                    // On a relist, an unchanged object is the store's copy; the fresh one drops
                    // here, so the relist never holds a second cache. Keyed before the store
                    // takes it in: what it hands back may be packed.
                    let key = object_key(obj.as_ref());
                    initial.insert(key, self.parts.store.admit(obj));
                }
                WatchEvent::Deleted(obj) if self.accepts(&obj) => {
                    initial.remove(&object_key(obj.as_ref()));
                }
                WatchEvent::Added(_) | WatchEvent::Modified(_) | WatchEvent::Deleted(_) => {
                    tracing::warn!("skipping streaming-list object of an unexpected type");
                    continue;
                }
                WatchEvent::Bookmark(bookmark) if bookmark.initial_events_end => {
                    self.parts
                        .metrics
                        .list_done(started.elapsed(), initial.len());
                    return self.initial_events_done(stream, initial, &bookmark.resource_version);
                }
                // Only the end bookmark matters before the initial state is complete.
                WatchEvent::Bookmark(_) => continue,
                WatchEvent::Error(status) => {
                    let failure = Failure::of_status(&status);
                    self.report(&Error::from_event(status));
                    return self.attempt_failed(failure);
                }
                _ => continue,
            }
            events += 1;
            self.parts.metrics.event();
            last_activity = Instant::now();
        }
    }

    fn initial_events_done(
        &mut self,
        stream: WatchStream<K, L>,
        initial: HashMap<String, Cached<K>>,
        rv: &str,
    ) -> Attempt<K, L> {
        let items: Vec<Cached<K>> = initial.into_values().collect();
        tracing::debug!(
            items = items.len(),
            resource_version = rv,
            "streaming list complete"
        );
        if let Err(err) = self.parts.store.replace_admitted(items, rv) {
            self.report(&Error::Store(err));
            tracing::debug!("store rejected the streaming list result; listing instead");
            return Attempt::FallBack;
        }
        self.rv_unavailable = false;
        self.parts.last_sync.set(rv);
        self.parts.metrics.last_resource_version(rv);
        Attempt::Synced(stream)
    }

    /// The stream ended before the end bookmark; `reported` says the failure that ended it
    /// already reached the handler.
    fn closed_early(&self, started: Instant, events: u64, reported: bool) -> Attempt<K, L> {
        if events == 0 && started.elapsed() < SHORT_WATCH {
            self.parts.metrics.short_watch();
            if !reported {
                self.report(&Error::broken(WatchBreak::ClosedEarly));
            }
            tracing::debug!(
                "very short streaming list: closed within a second without events; listing instead"
            );
            return Attempt::FallBack;
        }
        tracing::debug!(
            events,
            "streaming list closed before the end bookmark; retrying"
        );
        Attempt::Retry { backoff: true }
    }

    /// The attempt failed with a failure the handler has seen; pick the recovery.
    fn attempt_failed(&mut self, failure: Failure) -> Attempt<K, L> {
        match failure {
            Failure::Retriable => {
                tracing::debug!("streaming list refused; retrying after backoff");
                Attempt::Retry { backoff: true }
            }
            Failure::Expired | Failure::TooLarge => {
                tracing::debug!("streaming list resourceVersion unavailable; retrying at \"\"");
                let already_consistent = self.rv_unavailable;
                self.rv_unavailable = true;
                // A consistent read cannot be too old; if it still fails, list instead rather
                // than loop.
                if already_consistent {
                    Attempt::FallBack
                } else {
                    Attempt::Retry { backoff: false }
                }
            }
            Failure::Other => {
                tracing::debug!("streaming list rejected; falling back to list+watch");
                Attempt::FallBack
            }
        }
    }
}
