//! [`ResultStream`]: a running controller's outcomes, one per reconcile.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;
use kinformer_workqueue::RateLimitingQueue;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use crate::{Action, Error, ObjectRef};

/// One reconcile's outcome: the object and what it asked for next, or the failure.
pub type Outcome<E> = Result<(ObjectRef, Action), Error<E>>;

/// Takes one of the controller's handlers off its informer.
pub(crate) type Detach = Box<dyn FnOnce() + Send>;

/// The outcomes of a running controller ([`Controller::stream`](crate::Controller::stream)),
/// a [`Stream`]; [`next`](Self::next) reads one without a stream combinator crate.
///
/// Dropping it stops the controller at once: no reconcile starts after, those under way are
/// dropped at their next await, and the controller's handlers are taken off the informers
/// (which keep running for their other users). [`drain`](Self::drain) stops it gracefully.
pub struct ResultStream<E> {
    received: mpsc::Receiver<Outcome<E>>,
    queue: RateLimitingQueue<ObjectRef>,
    detach: Vec<Detach>,
    /// The task that waits for the caches and then runs the workers; aborting it drops them.
    driver: Option<AbortHandle>,
}

impl<E> ResultStream<E> {
    pub(crate) fn new(
        received: mpsc::Receiver<Outcome<E>>,
        queue: RateLimitingQueue<ObjectRef>,
        detach: Vec<Detach>,
        driver: Option<AbortHandle>,
    ) -> Self {
        Self {
            received,
            queue,
            detach,
            driver,
        }
    }

    /// Stops the controller gracefully: no new reconcile starts, and those under way (and
    /// objects already queued) get up to `timeout` to finish before they are dropped. The
    /// outcomes meanwhile are discarded.
    pub async fn drain(mut self, timeout: Duration) {
        self.queue.shutdown();
        let finished = async { while self.received.recv().await.is_some() {} };
        if tokio::time::timeout(timeout, finished).await.is_err() {
            tracing::warn!(
                ?timeout,
                "reconciles still running after the drain timeout are dropped"
            );
        }
    }

    /// The next outcome; `None` once the controller has stopped.
    ///
    /// # Cancel safety
    /// Cancel safe: an outcome is taken only when it is returned.
    pub async fn next(&mut self) -> Option<Outcome<E>> {
        self.received.recv().await
    }
}

impl<E> Stream for ResultStream<E> {
    type Item = Outcome<E>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.received.poll_recv(cx)
    }
}

impl<E> Drop for ResultStream<E> {
    fn drop(&mut self) {
        self.queue.shutdown();
        if let Some(driver) = &self.driver {
            driver.abort();
        }
        for detach in self.detach.drain(..) {
            detach();
        }
    }
}

impl<E> fmt::Debug for ResultStream<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResultStream")
            .field("queued", &self.queue.len())
            .finish_non_exhaustive()
    }
}
