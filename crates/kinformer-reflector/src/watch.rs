//! The watch steps (client-go's `watch` and `handleWatch`): open a watch at the last synced
//! resourceVersion, apply its events, and decide what its end means.

use std::future::poll_fn;
use std::task::Poll;
use std::time::Duration;

use futures_core::Stream;
use kinformer_core::{ListOptions, ListerWatcher, Object, Store, WatchEvent};
use tokio::time::Instant;
use tracing::Instrument;

use crate::classify::Failure;
use crate::error::Error;
use crate::reflector::ErrorChain;
use crate::runner::{Phase, Runner, WatchStream};

/// A watch that ends sooner than this without delivering an event is an error.
pub(crate) const SHORT_WATCH: Duration = Duration::from_secs(1);

/// The next thing that happened while watching.
enum Next<T> {
    Item(Option<T>),
    Resync,
}

impl<K, L, S> Runner<K, L, S>
where
    K: Object,
    L: ListerWatcher<K>,
    S: Store<K>,
{
    pub(crate) async fn open_watch(&mut self) -> Phase<K, L> {
        let rv = self.parts.last_sync.get();
        let timeout = self.watch_timeout_seconds();
        let mut options = ListOptions::default()
            .timeout_seconds(timeout)
            .bookmarks(true);
        if !rv.is_empty() {
            options.resource_version = Some(rv.clone());
        }
        self.parts.metrics.watch_started();
        let span = tracing::debug_span!("watch", resource_version = %rv, timeout);
        match self.parts.source.watch(&options).instrument(span).await {
            Ok(stream) => Phase::Watch {
                stream: Box::pin(stream),
                propagate_rv: !(rv.is_empty() || rv == "0"),
            },
            Err(err) if Failure::of_error(&err) == Failure::Retriable => {
                tracing::debug!(error = %ErrorChain(&err), "watch refused; backing off and re-watching");
                Phase::Backoff { relist: false }
            }
            Err(err) => {
                self.report(&Error::WatchOpen(err));
                Phase::Backoff { relist: true }
            }
        }
    }

    /// Consumes `stream` until it ends, then picks the next phase.
    pub(crate) async fn watch(
        &mut self,
        stream: WatchStream<K, L>,
        propagate_rv: bool,
    ) -> Phase<K, L> {
        let started = Instant::now();
        let mut events = 0_u64;
        let next = self
            .consume(stream, propagate_rv, started, &mut events)
            .await;
        self.parts.metrics.watch_done(started.elapsed(), events);
        next
    }

    async fn consume(
        &mut self,
        mut stream: WatchStream<K, L>,
        mut propagate_rv: bool,
        started: Instant,
        events: &mut u64,
    ) -> Phase<K, L> {
        loop {
            let next = poll_fn(|cx| {
                if let Poll::Ready(item) = stream.as_mut().poll_next(cx) {
                    return Poll::Ready(Next::Item(item));
                }
                self.resync.poll_due(cx).map(|()| Next::Resync)
            })
            .await;
            let event = match next {
                Next::Resync => {
                    if self.resync_now().is_err() {
                        return Phase::Backoff { relist: true };
                    }
                    continue;
                }
                // A broken connection is an end of stream, as client-go's stream watcher treats
                // a probable EOF.
                Next::Item(None) => return self.watch_closed(started, *events),
                Next::Item(Some(Err(err))) if Failure::of_error(&err) == Failure::Retriable => {
                    tracing::debug!(error = %ErrorChain(&err), "watch stream broke");
                    return self.watch_closed(started, *events);
                }
                Next::Item(Some(Err(err))) => {
                    return self.watch_failed(Failure::of_error(&err), &ErrorChain(&err));
                }
                Next::Item(Some(Ok(WatchEvent::Error(status)))) => {
                    let message = status.message.clone().unwrap_or_default();
                    return self.watch_failed(Failure::of_status(&status), &message);
                }
                Next::Item(Some(Ok(event))) => event,
            };
            if self.apply(event, &mut propagate_rv) {
                *events += 1;
            }
        }
    }

    fn watch_closed(&self, started: Instant, events: u64) -> Phase<K, L> {
        if events == 0 && started.elapsed() < SHORT_WATCH {
            self.parts.metrics.short_watch();
            tracing::warn!(
                "very short watch: unexpected watch close - watch lasted less than a second and no items received"
            );
            return Phase::Backoff { relist: true };
        }
        tracing::debug!(events, "watch ended; re-watching");
        Phase::OpenWatch
    }

    fn watch_failed(&self, failure: Failure, error: &dyn std::fmt::Display) -> Phase<K, L> {
        match failure {
            Failure::Expired => {
                tracing::debug!(%error, "watch expired; relisting at the last resourceVersion");
                Phase::Backoff { relist: true }
            }
            Failure::Retriable => {
                tracing::debug!(%error, "watch throttled; re-watching after backoff");
                Phase::Backoff { relist: false }
            }
            Failure::TooLarge | Failure::Other => {
                tracing::warn!(%error, "watch ended with an error; relisting");
                Phase::Backoff { relist: true }
            }
        }
    }

    /// A resync tick: ask `should_resync`, then `Store::resync`. An error ends the watch.
    pub(crate) fn resync_now(&self) -> Result<(), ()> {
        if !self
            .parts
            .should_resync
            .as_ref()
            .is_none_or(|should| should())
        {
            return Ok(());
        }
        tracing::trace!("resync");
        self.parts.store.resync().map_err(|err| {
            tracing::warn!(error = %ErrorChain(&err), "resync failed; relisting");
        })
    }
}
