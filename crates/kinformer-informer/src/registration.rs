//! [`Registration`]: the handle of one handler added to an informer.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::sync::watch;

use super::sync::SyncWatcher;
use crate::Error;

/// How far a handler is through its initial-list adds.
#[derive(Clone, Copy, Debug, Default)]
struct InitialAdds {
    /// Every initial add this handler will get has been enqueued.
    all_enqueued: bool,
    /// Initial adds enqueued and not yet handled.
    pending: usize,
    removed: bool,
}

impl InitialAdds {
    fn done(self) -> bool {
        self.all_enqueued && self.pending == 0
    }
}

/// State shared by a handler's task, the informer's processor and the registration handle.
/// Where a handler's call durations go, once metrics track the handler.
pub(crate) struct DurationSink(Arc<dyn Fn(Duration) + Send + Sync>);

impl fmt::Debug for DurationSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DurationSink")
    }
}

#[derive(Debug)]
pub(crate) struct ListenerShared {
    pub(crate) id: u64,
    pub(crate) informer_id: u64,
    /// Notifications buffered and not yet handled.
    pending: AtomicUsize,
    /// Set on removal: buffered notifications are dropped, not delivered.
    removed: AtomicBool,
    initial: watch::Sender<InitialAdds>,
    informer_synced: SyncWatcher,
    call_durations: OnceLock<DurationSink>,
}

impl ListenerShared {
    pub(crate) fn new(id: u64, informer_id: u64, informer_synced: SyncWatcher) -> Self {
        Self {
            id,
            informer_id,
            pending: AtomicUsize::new(0),
            removed: AtomicBool::new(false),
            initial: watch::Sender::new(InitialAdds::default()),
            informer_synced,
            call_durations: OnceLock::new(),
        }
    }

    /// `calls` handler calls entered the buffer (initial adds when `initial_add`).
    pub(crate) fn enqueued(&self, initial_add: bool, calls: usize) {
        self.pending.fetch_add(calls, Ordering::Relaxed);
        if initial_add {
            self.initial.send_modify(|i| i.pending += calls);
        }
    }

    /// `calls` handler calls left the buffer (made, or dropped after removal).
    pub(crate) fn handled(&self, initial_add: bool, calls: usize) {
        self.pending.fetch_sub(calls, Ordering::Relaxed);
        if initial_add {
            self.initial
                .send_modify(|i| i.pending = i.pending.saturating_sub(calls));
        }
    }

    /// Every initial add this handler will get is enqueued: from now on, zero pending initial
    /// adds (once the informer synced) means synced.
    pub(crate) fn start_sync_tracking(&self) {
        self.initial.send_modify(|i| i.all_enqueued = true);
    }

    /// Notifications buffered and not yet handled.
    pub(crate) fn pending(&self) -> usize {
        self.pending.load(Ordering::Relaxed)
    }

    /// Sends each later call's duration to `sink`; false if a sink was set already.
    #[cfg(feature = "prometheus")]
    pub(crate) fn observe_calls(&self, sink: Arc<dyn Fn(Duration) + Send + Sync>) -> bool {
        self.call_durations.set(DurationSink(sink)).is_ok()
    }

    /// One handler call took `took`.
    pub(crate) fn called(&self, took: Duration) {
        if let Some(DurationSink(sink)) = self.call_durations.get() {
            sink(took);
        }
    }

    pub(crate) fn mark_removed(&self) {
        self.removed.store(true, Ordering::Release);
        self.initial.send_modify(|i| i.removed = true);
    }

    pub(crate) fn is_removed(&self) -> bool {
        self.removed.load(Ordering::Acquire)
    }
}

/// The handle returned when a handler is added to an informer: pass it to
/// `remove_event_handler`, or ask whether this handler has seen the whole initial list.
///
/// Cloning gives another handle to the same registration.
#[doc(alias = "ResourceEventHandlerRegistration")]
#[derive(Clone)]
pub struct Registration {
    pub(crate) shared: Arc<ListenerShared>,
}

impl Registration {
    /// True once the informer has synced AND this handler has handled every add of the initial
    /// list (for a handler added late: every synthetic add for the cache it was given).
    pub fn has_synced(&self) -> bool {
        // The informer marks itself synced only after every initial add was enqueued, so from
        // then on the pending count only goes down.
        self.shared.informer_synced.is_synced() && self.shared.initial.borrow().done()
    }

    /// Waits until [`has_synced`](Self::has_synced).
    ///
    /// # Errors
    /// [`Error::Stopped`] when the informer stopped first, [`Error::HandlerRemoved`] when the
    /// handler was removed first.
    ///
    /// # Cancel safety
    /// Cancel safe: it only observes.
    pub async fn wait_synced(&self) -> Result<(), Error> {
        if !self.shared.informer_synced.wait().await {
            return Err(Error::Stopped);
        }
        let mut rx = self.shared.initial.subscribe();
        let handled = rx
            .wait_for(|i| i.done() || i.removed)
            .await
            .is_ok_and(|i| i.done());
        if handled {
            Ok(())
        } else if self.shared.informer_synced.is_synced() && !self.shared.is_removed() {
            Err(Error::Stopped)
        } else {
            Err(Error::HandlerRemoved)
        }
    }

    /// How many notifications wait in this handler's buffer (including the one being handled).
    pub fn pending(&self) -> usize {
        self.shared.pending()
    }

    /// True once the handler was removed (or its informer shut down).
    pub fn is_removed(&self) -> bool {
        self.shared.is_removed()
    }
}

impl fmt::Debug for Registration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registration")
            .field("id", &self.shared.id)
            .field("has_synced", &self.has_synced())
            .field("pending", &self.pending())
            .field("removed", &self.is_removed())
            .finish()
    }
}
