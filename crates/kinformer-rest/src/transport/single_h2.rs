//! [`SingleH2`]: one HTTP/2 connection per client, not one per request that started together.
//!
//! hyper-util's pool only learns that a TLS connection speaks HTTP/2 once ALPN has run, so
//! requests that start together (an informer factory starting fifty informers, every watch
//! reconnecting after a server restart) each dial, and the extra connections linger. Here TLS
//! dials take turns. A dial that started while the newest HTTP/2 connection was still being set
//! up is superseded by it: the pool hands that connection to the dial's request, and the dial
//! ends without connecting. A dial that starts once the newest connection has been up for
//! [`GRACE`] is one the pool asked for because it will not use that connection (the server sent
//! GOAWAY and the connection only finishes its streams), so it goes ahead at once. Servers that
//! answer ALPN with HTTP/1.1 are never held back.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{Mutex as AsyncMutex, Notify, OwnedMutexGuard};
use tokio::time::Instant;

/// How long after the newest HTTP/2 connection answered a dial can still be one that raced it.
/// Past this, the pool has had that connection, and a dial means the pool will not use it.
pub(crate) const GRACE: Duration = Duration::from_secs(1);

/// Dial turns and the newest HTTP/2 connection of one client.
#[derive(Debug, Default)]
pub(crate) struct SingleH2 {
    state: Mutex<State>,
    changed: Notify,
    dial: Arc<AsyncMutex<()>>,
}

#[derive(Debug, Default)]
struct State {
    live: usize,
    newest_id: u64,
    newest: Newest,
}

#[derive(Debug, Default, Clone, Copy)]
enum Newest {
    /// No HTTP/2 connection yet, or the newest one closed.
    #[default]
    Gone,
    /// Connected; the server has not answered yet.
    SettingUp,
    /// The server first answered at this instant.
    AnsweredAt(Instant),
}

/// The dial is not needed: the newest HTTP/2 connection serves its request.
#[derive(Debug, thiserror::Error)]
#[error("superseded by the client's HTTP/2 connection")]
pub(crate) struct Superseded;

enum Decision {
    Dial,
    Wait,
    SupersededAt(Instant),
}

impl SingleH2 {
    /// Waits for this dial's turn; the guard is held while dialling. `Err` when the newest
    /// HTTP/2 connection makes the dial unnecessary.
    pub(crate) async fn turn(&self) -> Result<OwnedMutexGuard<()>, Superseded> {
        let started = Instant::now();
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            // Registered before the state is read, so no change is missed in between.
            changed.as_mut().enable();
            match self.decide(started) {
                Decision::Dial => {
                    let guard = Arc::clone(&self.dial).lock_owned().await;
                    // Another dial may have connected while this one waited for the lock.
                    if matches!(self.decide(started), Decision::Dial) {
                        return Ok(guard);
                    }
                }
                Decision::Wait => changed.await,
                Decision::SupersededAt(at) => {
                    tokio::select! {
                        () = tokio::time::sleep_until(at) => return Err(Superseded),
                        () = &mut changed => {}
                    }
                }
            }
        }
    }

    fn decide(&self, started: Instant) -> Decision {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.live == 0 {
            return Decision::Dial;
        }
        match state.newest {
            Newest::Gone => Decision::Dial,
            Newest::SettingUp => Decision::Wait,
            Newest::AnsweredAt(at) if started > at + GRACE => Decision::Dial,
            Newest::AnsweredAt(at) => Decision::SupersededAt(at + GRACE),
        }
    }

    /// Counts a new HTTP/2 connection, now the newest, as alive until the token is dropped.
    pub(crate) fn alive(self: &Arc<Self>) -> LiveH2 {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.live += 1;
        state.newest_id += 1;
        state.newest = Newest::SettingUp;
        LiveH2 {
            gate: Arc::clone(self),
            id: state.newest_id,
            answered: AtomicBool::new(false),
        }
    }

    fn update(&self, f: impl FnOnce(&mut State)) {
        f(&mut self.state.lock().unwrap_or_else(PoisonError::into_inner));
        self.changed.notify_waiters();
    }
}

/// Held by an HTTP/2 connection's stream: marks when the server first answered, and lets dials
/// go when dropped (the connection closed).
#[derive(Debug)]
pub(crate) struct LiveH2 {
    gate: Arc<SingleH2>,
    id: u64,
    answered: AtomicBool,
}

impl LiveH2 {
    /// The connection read from the server (its HTTP/2 settings): the pool has it, or is about to.
    pub(crate) fn answered(&self) {
        if self.answered.swap(true, Ordering::Relaxed) {
            return;
        }
        self.gate.update(|state| {
            if state.newest_id == self.id {
                state.newest = Newest::AnsweredAt(Instant::now());
            }
        });
    }
}

impl Drop for LiveH2 {
    fn drop(&mut self) {
        self.gate.update(|state| {
            state.live -= 1;
            if state.newest_id == self.id {
                state.newest = Newest::Gone;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_dial_racing_a_new_connection_is_superseded_by_it() {
        let gate = Arc::new(SingleH2::default());
        let first = gate.turn().await.unwrap();
        let racing = tokio::spawn({
            let gate = gate.clone();
            async move { gate.turn().await.map(drop) }
        });
        let live = gate.alive();
        drop(first);
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(
            !racing.is_finished(),
            "waits while the connection is set up"
        );
        live.answered();
        let result = tokio::time::timeout(GRACE * 2, racing)
            .await
            .unwrap()
            .unwrap();
        assert!(result.is_err(), "superseded, not dialled");
    }

    #[tokio::test(start_paused = true)]
    async fn a_dial_long_after_the_connection_answered_goes_at_once() {
        // The pool asks for a connection although one lives: it will not use that one (GOAWAY).
        let gate = Arc::new(SingleH2::default());
        let live = gate.alive();
        live.answered();
        tokio::time::sleep(GRACE * 3).await;
        let turn = tokio::time::timeout(Duration::from_millis(1), gate.turn()).await;
        assert!(matches!(turn, Ok(Ok(_))));
        drop(live);
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiting_dial_goes_when_the_connection_closes() {
        let gate = Arc::new(SingleH2::default());
        let live = gate.alive();
        let waiting = tokio::spawn({
            let gate = gate.clone();
            async move { gate.turn().await.map(drop) }
        });
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(!waiting.is_finished());
        drop(live);
        let result = tokio::time::timeout(Duration::from_secs(1), waiting)
            .await
            .unwrap()
            .unwrap();
        assert!(result.is_ok(), "dials once the connection is gone");
    }

    #[tokio::test(start_paused = true)]
    async fn dials_without_http2_are_not_held_back() {
        let gate = Arc::new(SingleH2::default());
        drop(gate.turn().await.unwrap());
        let turn = tokio::time::timeout(Duration::from_millis(1), gate.turn()).await;
        assert!(matches!(turn, Ok(Ok(_))));
    }
}
