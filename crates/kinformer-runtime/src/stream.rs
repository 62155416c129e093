//! [`ResultStream`]: a running controller's outcomes, one per reconcile.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;
use kinformer_workqueue::RateLimitingQueue;
use tokio::sync::mpsc;

use crate::{Action, Error, ObjectRef};

/// One reconcile's outcome: the object and what it asked for next, or the failure.
pub type Outcome<E> = Result<(ObjectRef, Action), Error<E>>;

/// Takes one of the controller's handlers off its informer.
pub(crate) type Detach = Box<dyn FnOnce() + Send>;

/// The outcomes of a running controller ([`Controller::stream`](crate::Controller::stream)),
/// a [`Stream`]; [`next`](Self::next) reads one without a stream combinator crate.
///
/// Dropping it stops the controller: no reconcile starts after, those under way finish, and
/// the controller's handlers are taken off the informers (which keep running for their other
/// users).
pub struct ResultStream<E> {
    received: mpsc::Receiver<Outcome<E>>,
    queue: RateLimitingQueue<ObjectRef>,
    detach: Vec<Detach>,
}

impl<E> ResultStream<E> {
    pub(crate) fn new(
        received: mpsc::Receiver<Outcome<E>>,
        queue: RateLimitingQueue<ObjectRef>,
        detach: Vec<Detach>,
    ) -> Self {
        Self {
            received,
            queue,
            detach,
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
