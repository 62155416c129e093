//! [`SyncSignal`]: an event-driven "has synced" flag that waiters can await.

use tokio::sync::watch;

/// Where a cache (or a handler) stands: synced yet, and stopped yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Phase {
    pub(crate) synced: bool,
    pub(crate) stopped: bool,
}

/// A flag that becomes synced once and can be awaited without polling.
#[derive(Debug)]
pub(crate) struct SyncSignal {
    tx: watch::Sender<Phase>,
}

impl SyncSignal {
    pub(crate) fn new() -> Self {
        Self {
            tx: watch::Sender::new(Phase::default()),
        }
    }

    pub(crate) fn mark_synced(&self) {
        self.tx
            .send_if_modified(|p| !std::mem::replace(&mut p.synced, true));
    }

    pub(crate) fn mark_stopped(&self) {
        self.tx
            .send_if_modified(|p| !std::mem::replace(&mut p.stopped, true));
    }

    pub(crate) fn is_synced(&self) -> bool {
        self.tx.borrow().synced
    }

    pub(crate) fn watcher(&self) -> SyncWatcher {
        SyncWatcher {
            rx: self.tx.subscribe(),
        }
    }
}

/// The reading side of a [`SyncSignal`].
#[derive(Clone, Debug)]
pub(crate) struct SyncWatcher {
    rx: watch::Receiver<Phase>,
}

impl SyncWatcher {
    pub(crate) fn is_synced(&self) -> bool {
        self.rx.borrow().synced
    }

    /// Waits until synced (true) or stopped first (false).
    pub(crate) async fn wait(&self) -> bool {
        let mut rx = self.rx.clone();
        let outcome = rx
            .wait_for(|p| p.synced || p.stopped)
            .await
            .map(|p| p.synced);
        // An error means the signal is gone: whatever owned it stopped.
        outcome.unwrap_or_else(|_| self.rx.borrow().synced)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn wait_returns_on_sync_or_stop() {
        let signal = SyncSignal::new();
        let w = signal.watcher();
        assert!(!w.is_synced());
        let waiter = tokio::spawn({
            let w = w.clone();
            async move { w.wait().await }
        });
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        signal.mark_synced();
        assert!(waiter.await.unwrap());
        assert!(signal.is_synced() && w.is_synced());

        let never = SyncSignal::new();
        let w = never.watcher();
        never.mark_stopped();
        assert!(!w.wait().await);
        let dropped = SyncSignal::new().watcher();
        assert!(!dropped.wait().await);
    }
}
