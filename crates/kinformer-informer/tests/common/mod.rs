//! Helpers shared by the informer's integration tests.

#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeMap;
use std::time::Duration;

use kinformer_core::{Object, StoreRead as _, object_key};
use kinformer_informer::SharedIndexInformer;
use kinformer_sim::SimHandle;

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

/// The informer's cache as key -> resourceVersion, as `SimHandle::versions` gives the truth.
pub fn cached_versions<K: Object + Clone>(
    informer: &SharedIndexInformer<K>,
) -> BTreeMap<String, String> {
    informer
        .indexer()
        .list()
        .iter()
        .map(|o| {
            let rv = o.resource_version().unwrap_or("").to_owned();
            (object_key(&**o), rv)
        })
        .collect()
}

/// Asserts that the informer's cache of pods comes to hold exactly the sim's pods, each at its
/// current resourceVersion, within 15 s.
pub async fn converges_to_the_sims_pods<K: Object + Clone>(
    sim: &SimHandle,
    informer: &SharedIndexInformer<K>,
) {
    let truth = sim.versions("pods").await.unwrap();
    let same = wait_until(Duration::from_secs(15), || {
        cached_versions(informer) == truth
    })
    .await;
    assert!(same, "the cache never converged on the sim's pods");
}
