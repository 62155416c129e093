//! [`Callbacks`]: what an elector calls as leadership comes and goes.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use tokio_util::sync::CancellationToken;

pub(crate) type LeadingFuture = Pin<Box<dyn Future<Output = ()> + Send>>;
type StartedFn = Box<dyn Fn(CancellationToken) -> LeadingFuture + Send + Sync>;
type StoppedFn = Box<dyn Fn() + Send + Sync>;
type NewLeaderFn = Box<dyn Fn(Option<&str>) + Send + Sync>;

/// The elector's callbacks (client-go `LeaderCallbacks`).
///
/// - `on_started_leading(token)`: the leader's work. Its future is polled inside
///   [`run`](crate::LeaderElector::run) next to the renewals; `token` fires the moment
///   leadership ends (no renewal succeeded within the renew deadline, `run`'s token was
///   cancelled, or `run` was dropped). The work must stop when it fires: `run` waits for the
///   future to return before it releases the lease and returns. Work spawned elsewhere must
///   watch the token too.
/// - `on_stopped_leading()`: once per `run`, when it ends however it ends (as client-go's
///   deferred call, also when this candidate never led), after the work returned.
/// - `on_new_leader(identity)`: each time the observed holder changes, this candidate
///   included; `None` when a lease that had a holder was released. Called on the elector's task
///   (client-go calls it on a goroutine of its own): keep it short.
///
/// # Examples
/// ```
/// use std::sync::{Arc, Mutex};
/// use kinformer_leaderelection::Callbacks;
/// use tokio_util::sync::CancellationToken;
///
/// let leaders = Arc::new(Mutex::new(Vec::<Option<String>>::new()));
/// let seen = leaders.clone();
/// let callbacks = Callbacks::new(|token: CancellationToken| async move {
///     // Run the controller until leadership ends.
///     token.cancelled().await;
/// })
/// .on_stopped_leading(|| eprintln!("stopped leading"))
/// .on_new_leader(move |identity| seen.lock().unwrap().push(identity.map(str::to_owned)));
/// # drop((callbacks, leaders));
/// ```
#[doc(alias = "LeaderCallbacks")]
pub struct Callbacks {
    pub(crate) started: StartedFn,
    pub(crate) stopped: Option<StoppedFn>,
    pub(crate) new_leader: Option<NewLeaderFn>,
}

impl Callbacks {
    /// Callbacks with the leader's work (client-go `OnStartedLeading`), and neither of the
    /// other two.
    pub fn new<F, Fut>(on_started_leading: F) -> Self
    where
        F: Fn(CancellationToken) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        Self {
            started: Box::new(move |token| Box::pin(on_started_leading(token))),
            stopped: None,
            new_leader: None,
        }
    }

    /// Sets client-go's `OnStoppedLeading`: called when `run` ends.
    #[must_use]
    pub fn on_stopped_leading(mut self, f: impl Fn() + Send + Sync + 'static) -> Self {
        self.stopped = Some(Box::new(f));
        self
    }

    /// Sets client-go's `OnNewLeader`: called with the holder's identity when it changes,
    /// `None` when the lease was released (client-go passes `""`).
    #[must_use]
    pub fn on_new_leader(mut self, f: impl Fn(Option<&str>) + Send + Sync + 'static) -> Self {
        self.new_leader = Some(Box::new(f));
        self
    }
}

impl fmt::Debug for Callbacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Callbacks")
            .field("on_stopped_leading", &self.stopped.is_some())
            .field("on_new_leader", &self.new_leader.is_some())
            .finish_non_exhaustive()
    }
}
