//! Waiting for Ctrl-C / SIGTERM, or a deadline.
//!
//! The signals are listened for from the start ([`listen`]): a signal that arrives while a
//! command is still finding its resource ends it as one that arrives later does, instead of
//! the operating system's default of killing the process.

use std::sync::OnceLock;
use std::time::Duration;

use tokio::sync::watch;

/// Turns true at the first SIGINT or SIGTERM after [`listen`].
static INTERRUPTED: OnceLock<watch::Receiver<bool>> = OnceLock::new();

/// Starts listening for SIGINT and SIGTERM; call once, inside the runtime, before anything
/// that a signal should interrupt.
pub(crate) fn listen() {
    let (interrupt, interrupted) = watch::channel(false);
    if INTERRUPTED.set(interrupted).is_err() {
        return;
    }
    let signals = Signals::register();
    tokio::spawn(async move {
        signals.first().await;
        interrupt.send_replace(true);
    });
}

/// Resolves on SIGINT or SIGTERM (once [`listen`] was called), or after `limit` when one is
/// given.
pub(crate) async fn interrupted_or(limit: Option<Duration>) {
    let deadline = async {
        match limit {
            Some(d) => tokio::time::sleep(d).await,
            None => std::future::pending().await,
        }
    };
    let interrupted = async {
        match INTERRUPTED.get() {
            Some(interrupted) => {
                let mut interrupted = interrupted.clone();
                if interrupted.wait_for(|signalled| *signalled).await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
            // Not listening: the operating system's default applies.
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        () = deadline => {}
        () = interrupted => {}
    }
}

/// The signal streams, registered when created (so a signal that comes before anything
/// waits is still seen).
struct Signals {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    #[cfg(unix)]
    fn register() -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        Self {
            interrupt: signal(SignalKind::interrupt()).ok(),
            terminate: signal(SignalKind::terminate()).ok(),
        }
    }

    #[cfg(not(unix))]
    fn register() -> Self {
        Self {}
    }

    #[cfg(unix)]
    async fn first(mut self) {
        async fn next(signal: Option<&mut tokio::signal::unix::Signal>) {
            match signal {
                Some(signal) => {
                    signal.recv().await;
                }
                // Without a handler for this one, only the other stops us.
                None => std::future::pending().await,
            }
        }
        tokio::select! {
            () = next(self.interrupt.as_mut()) => {}
            () = next(self.terminate.as_mut()) => {}
        }
    }

    #[cfg(not(unix))]
    async fn first(self) {
        drop(tokio::signal::ctrl_c().await);
    }
}
