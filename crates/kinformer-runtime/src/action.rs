//! [`Action`]: what a reconcile, or the error policy after a failed one, asks for next.

use std::time::Duration;

/// What to do with an object after it was reconciled.
///
/// ```
/// use std::time::Duration;
/// use kinformer_runtime::Action;
///
/// assert_eq!(Action::await_change().requeue_after(), None);
/// assert_eq!(
///     Action::requeue(Duration::from_secs(30)).requeue_after(),
///     Some(Duration::from_secs(30))
/// );
/// assert!(Action::backoff().is_backoff());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Action(Next);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    AwaitChange,
    Requeue(Duration),
    Backoff,
}

impl Action {
    /// Reconcile the object again after `after`, even if nothing changes (a periodic check,
    /// or waiting on something outside the cluster). A change before then reconciles it sooner.
    pub const fn requeue(after: Duration) -> Self {
        Self(Next::Requeue(after))
    }

    /// Reconcile the object again only when it or an object mapped to it changes.
    pub const fn await_change() -> Self {
        Self(Next::AwaitChange)
    }

    /// Reconcile the object again after the controller's per-object backoff, which grows with
    /// each failure in a row and starts over after a reconcile succeeds (client-go's default
    /// controller rate limiter: 5 ms doubling up to 1000 s per object, 10 per second with a
    /// burst of 100 overall). What an error policy usually answers.
    pub const fn backoff() -> Self {
        Self(Next::Backoff)
    }

    /// The fixed delay before the object is reconciled again without a change, if any.
    pub const fn requeue_after(&self) -> Option<Duration> {
        match self.0 {
            Next::Requeue(after) => Some(after),
            Next::AwaitChange | Next::Backoff => None,
        }
    }

    /// Whether the object is retried after the controller's backoff.
    pub const fn is_backoff(&self) -> bool {
        matches!(self.0, Next::Backoff)
    }
}
