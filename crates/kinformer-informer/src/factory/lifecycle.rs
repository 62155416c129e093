//! Running the factory's informers: start, wait for their caches, report, shut down.

use std::collections::BTreeMap;

use super::SharedInformerFactory;
use crate::Error;

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
                entry.started = true;
            }
        }
    }

    /// Waits until every started informer has synced or stopped. Wrap it in a timeout to
    /// bound the wait; [`sync_status`](Self::sync_status) then tells which have synced.
    ///
    /// # Errors
    /// [`Error::NotSynced`] naming (`v1/pods`, `apps/v1/deployments`, ...) each informer that
    /// stopped before its cache synced.
    ///
    /// # Cancel safety
    /// Cancel safe: it only observes.
    pub async fn wait_for_cache_sync(&self) -> Result<(), Error> {
        let waits: Vec<_> = {
            let state = self.lock();
            state
                .informers
                .values()
                .filter(|e| e.started)
                .map(|e| (e.name.clone(), e.informer.wait_for_cache_sync()))
                .collect()
        };
        let mut stopped = Vec::new();
        for (name, wait) in waits {
            if !wait.await {
                stopped.push(name);
            }
        }
        if stopped.is_empty() {
            Ok(())
        } else {
            Err(Error::NotSynced { informers: stopped })
        }
    }

    /// Which started informers have synced, now, by name.
    pub fn sync_status(&self) -> BTreeMap<String, bool> {
        let state = self.lock();
        state
            .informers
            .values()
            .filter(|e| e.started)
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
