//! [`SingleH2`]: at most one HTTP/2 connection per client, as client-go's transport keeps.
//!
//! hyper-util's pool only learns that a TLS connection speaks HTTP/2 once ALPN has run, so
//! requests that start together (an informer factory starting fifty informers, every watch
//! reconnecting after a server restart) each dial, and all but one connection are thrown away
//! after their handshakes. Here dials take turns, and while an HTTP/2 connection is alive no
//! new one is dialled: the waiting request's pool checkout wins the race with its dial as soon
//! as the live connection is pooled, and the dial, left to run in the background, waits until
//! that connection is gone. Servers that answer ALPN with HTTP/1.1 are not held back.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{Mutex, Notify, OwnedMutexGuard};

/// Dial turns and the count of live HTTP/2 connections of one client.
#[derive(Debug, Default)]
pub(crate) struct SingleH2 {
    live: AtomicUsize,
    gone: Notify,
    dial: Arc<Mutex<()>>,
}

impl SingleH2 {
    /// Waits until no HTTP/2 connection is alive and no other dial is under way; the guard is
    /// this dial's turn.
    pub(crate) async fn turn(&self) -> OwnedMutexGuard<()> {
        loop {
            let gone = self.gone.notified();
            tokio::pin!(gone);
            // Registered before the check, so a connection closing in between still wakes us.
            gone.as_mut().enable();
            if self.live.load(Ordering::Acquire) == 0 {
                let guard = Arc::clone(&self.dial).lock_owned().await;
                if self.live.load(Ordering::Acquire) == 0 {
                    return guard;
                }
                continue;
            }
            gone.await;
        }
    }

    /// Counts a new HTTP/2 connection as alive until the returned token is dropped.
    pub(crate) fn alive(self: &Arc<Self>) -> LiveH2 {
        self.live.fetch_add(1, Ordering::AcqRel);
        LiveH2(Arc::clone(self))
    }
}

/// Held by an HTTP/2 connection's stream: dropping it (the connection closed) lets dials go.
#[derive(Debug)]
pub(crate) struct LiveH2(Arc<SingleH2>);

impl Drop for LiveH2 {
    fn drop(&mut self) {
        if self.0.live.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.gone.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn dials_wait_while_a_connection_lives_and_go_when_it_closes() {
        let gate = Arc::new(SingleH2::default());
        let first = gate.turn().await;
        // A second dial waits for the first's turn to end.
        let waiting = tokio::spawn({
            let gate = gate.clone();
            async move {
                let _turn = gate.turn().await;
            }
        });
        let live = gate.alive();
        drop(first);
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(
            !waiting.is_finished(),
            "dialled while an HTTP/2 connection was alive"
        );
        drop(live);
        tokio::time::timeout(Duration::from_secs(1), waiting)
            .await
            .expect("the dial goes once the connection closed")
            .unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn dials_without_http2_are_not_held_back() {
        let gate = Arc::new(SingleH2::default());
        let first = gate.turn().await;
        drop(first);
        tokio::time::timeout(Duration::from_millis(1), gate.turn())
            .await
            .expect("no live HTTP/2 connection, no wait");
    }
}
