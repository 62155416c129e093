//! Waiting for Ctrl-C / SIGTERM, or a deadline.

use std::time::Duration;

/// Resolves on SIGINT or SIGTERM, or after `limit` when one is given.
pub(crate) async fn interrupted_or(limit: Option<Duration>) {
    let deadline = async {
        match limit {
            Some(d) => tokio::time::sleep(d).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        () = deadline => {}
        () = terminate() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}

#[cfg(unix)]
async fn terminate() {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::terminate()) {
        Ok(mut s) => {
            s.recv().await;
        }
        // Without a SIGTERM handler only Ctrl-C and the deadline stop us.
        Err(_) => std::future::pending().await,
    }
}

#[cfg(not(unix))]
async fn terminate() {
    std::future::pending().await
}
