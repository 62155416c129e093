//! [`shutdown_signal`]: the signals that ask a controller process to stop.

/// Completes at the first SIGTERM (what the kubelet sends a pod it stops) or SIGINT
/// (Ctrl-C); pass it to [`Controller::run_until`](crate::Controller::run_until). On other
/// platforms than Unix, at Ctrl-C.
///
/// A signal that cannot be listened for (no signal driver in this runtime) is logged and
/// never completes this future, so the controller keeps running rather than stopping at once.
pub async fn shutdown_signal() {
    let interrupt = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::warn!(%error, "cannot listen for SIGINT");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                terminate.recv().await;
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => tracing::info!("SIGINT: stopping"),
        () = terminate => tracing::info!("SIGTERM: stopping"),
    }
}
