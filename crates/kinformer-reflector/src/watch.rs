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
use crate::error::{Error, WatchBreak};
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
            Err(err) => {
                let relist = Failure::of_error(&err) != Failure::Retriable;
                self.report(&Error::from_watch_request(err));
                tracing::debug!(relist, "watch refused; backing off");
                Phase::Backoff { relist }
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
                Next::Item(None) => return self.watch_closed(started, *events, false),
                Next::Item(Some(Err(err))) => {
                    let failure = Failure::of_error(&err);
                    self.report(&Error::from_stream(err));
                    // A broken connection is an end of stream, as client-go's stream watcher
                    // treats a probable EOF: the watch resumes from the last resourceVersion.
                    if failure == Failure::Retriable {
                        return self.watch_closed(started, *events, true);
                    }
                    return self.watch_failed(failure);
                }
                Next::Item(Some(Ok(WatchEvent::Error(status)))) => {
                    let failure = Failure::of_status(&status);
                    self.report(&Error::from_event(status));
                    return self.watch_failed(failure);
                }
                Next::Item(Some(Ok(event))) => event,
            };
            if self.apply(event, &mut propagate_rv) {
                *events += 1;
            }
        }
    }

    /// The stream ended; `reported` says the failure that ended it already reached the handler.
    fn watch_closed(&self, started: Instant, events: u64, reported: bool) -> Phase<K, L> {
        if events == 0 && started.elapsed() < SHORT_WATCH {
            self.parts.metrics.short_watch();
            if !reported {
                self.report(&Error::broken(WatchBreak::ClosedEarly));
            }
            tracing::debug!("very short watch: relisting after backoff");
            return Phase::Backoff { relist: true };
        }
        tracing::debug!(events, "watch ended; re-watching");
        Phase::OpenWatch
    }

    /// The watch ended with a failure the handler has seen; pick the recovery.
    fn watch_failed(&self, failure: Failure) -> Phase<K, L> {
        let relist = failure != Failure::Retriable;
        tracing::debug!(?failure, relist, "watch failed; backing off");
        Phase::Backoff { relist }
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
            self.report(&Error::Store(err));
            tracing::debug!("resync failed; relisting");
        })
    }
}
