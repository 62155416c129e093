//! Running the factory's informers: start, wait for their caches, report, shut down.

use std::collections::BTreeMap;

use super::SharedInformerFactory;

impl SharedInformerFactory {
    /// Starts every informer that is not running yet, each on its own task; safe to call again
    /// after adding informers. Does nothing once [`shutdown`](Self::shutdown) began.
    ///
    /// # Panics
    /// Outside a tokio runtime (it spawns tasks).
    pub fn start(&self) {
        let mut state = self.lock();
        if state.shutting_down {
            return;
        }
        for entry in state.informers.values_mut() {
            if entry.task.is_none() {
                entry.task = Some(tokio::spawn(entry.informer.run()));
            }
        }
    }

    /// Waits until every started informer has synced or stopped, and reports each one by name
    /// (`v1/pods`, `apps/v1/deployments`, ...). Wrap it in a timeout to bound the wait.
    ///
    /// # Cancel safety
    /// Cancel safe: it only observes.
    pub async fn wait_for_cache_sync(&self) -> BTreeMap<String, bool> {
        let waits: Vec<_> = {
            let state = self.lock();
            state
                .informers
                .values()
                .filter(|e| e.task.is_some())
                .map(|e| (e.name.clone(), e.informer.wait_for_cache_sync()))
                .collect()
        };
        let mut synced = BTreeMap::new();
        for (name, wait) in waits {
            synced.insert(name, wait.await);
        }
        synced
    }

    /// Which started informers have synced, now, by name.
    pub fn sync_status(&self) -> BTreeMap<String, bool> {
        let state = self.lock();
        state
            .informers
            .values()
            .filter(|e| e.task.is_some())
            .map(|e| (e.name.clone(), e.informer.has_synced()))
            .collect()
    }

    /// Stops every informer and waits until each has stopped (handler callbacks included).
    /// Informers created afterwards are never started.
    ///
    /// # Cancel safety
    /// Every informer is told to stop at the first poll; dropping only stops the waiting.
    pub async fn shutdown(&self) {
        let tasks: Vec<_> = {
            let mut state = self.lock();
            state.shutting_down = true;
            state
                .informers
                .values_mut()
                .filter_map(|e| {
                    e.informer.shutdown();
                    e.task.take()
                })
                .collect()
        };
        for task in tasks {
            // Finished or cancelled by runtime shutdown: either way it has stopped.
            drop(task.await);
        }
    }
}
