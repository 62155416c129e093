//! Helpers shared by the informer's integration tests.

#![allow(dead_code, unreachable_pub)]

use std::time::Duration;

use kinformer_core::Object;
use kinformer_informer::SharedIndexInformer;

/// Runs `informer` on a task of its own, as an application would.
pub fn spawn_run<K: Object + Clone>(
    informer: &SharedIndexInformer<K>,
) -> tokio::task::JoinHandle<kinformer_informer::Result<()>> {
    let informer = informer.clone();
    tokio::spawn(async move { informer.run().await })
}

/// Waits until `condition` holds, checking every 25 ms for at most `limit`; true if it held.
pub async fn wait_until(limit: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if condition() {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}
