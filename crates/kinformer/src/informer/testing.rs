//! Test support: a scripted delta queue.

use std::collections::VecDeque;
use std::pin::pin;
use std::sync::{Arc, Mutex};

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_core::{DeletedState, Delta, Store, StoreError};
use tokio::sync::{Notify, watch};

use super::queue::{DeltaQueue, Popped};

/// A minimal in-order queue (no per-key compression): enough to drive the informer loop.
pub(crate) struct ScriptedQueue {
    state: Mutex<QueueState>,
    wake: Notify,
    synced: watch::Sender<bool>,
}

#[derive(Default)]
struct QueueState {
    items: VecDeque<Delta<ConfigMap>>,
    initial_left: Option<usize>,
    closed: bool,
}

impl ScriptedQueue {
    pub(crate) fn new() -> Self {
        Self {
            state: Mutex::default(),
            wake: Notify::new(),
            synced: watch::Sender::new(false),
        }
    }

    fn push(&self, delta: Delta<ConfigMap>) {
        self.state.lock().unwrap().items.push_back(delta);
        self.wake.notify_one();
    }
}

impl Store<ConfigMap> for ScriptedQueue {
    fn add(&self, obj: Arc<ConfigMap>) -> Result<(), StoreError> {
        self.push(Delta::Added(obj));
        Ok(())
    }
    fn update(&self, obj: Arc<ConfigMap>) -> Result<(), StoreError> {
        self.push(Delta::Updated(obj));
        Ok(())
    }
    fn delete(&self, obj: Arc<ConfigMap>) -> Result<(), StoreError> {
        self.push(Delta::Deleted(DeletedState::Known(obj)));
        Ok(())
    }
    fn replace(&self, list: Vec<Arc<ConfigMap>>, _rv: &str) -> Result<(), StoreError> {
        let mut state = self.state.lock().unwrap();
        if state.initial_left.is_none() {
            state.initial_left = Some(list.len());
            if list.is_empty() {
                self.synced.send_replace(true);
            }
        }
        state.items.extend(list.into_iter().map(Delta::Replaced));
        drop(state);
        self.wake.notify_one();
        Ok(())
    }
    fn resync(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

impl DeltaQueue<ConfigMap> for ScriptedQueue {
    async fn pop(&self) -> Option<Popped<ConfigMap>> {
        loop {
            let mut notified = pin!(self.wake.notified());
            notified.as_mut().enable();
            {
                let mut state = self.state.lock().unwrap();
                if let Some(delta) = state.items.pop_front() {
                    let is_in_initial_list = state.initial_left.is_some_and(|n| n > 0);
                    if let Some(n) = state.initial_left.as_mut().filter(|n| **n > 0) {
                        *n -= 1;
                        if *n == 0 {
                            self.synced.send_replace(true);
                        }
                    }
                    return Some(Popped {
                        deltas: vec![delta],
                        is_in_initial_list,
                    });
                }
                if state.closed {
                    return None;
                }
            }
            notified.await;
        }
    }
    fn has_synced(&self) -> bool {
        *self.synced.borrow()
    }
    async fn synced(&self) {
        drop(self.synced.subscribe().wait_for(|s| *s).await);
    }
    fn close(&self) {
        self.state.lock().unwrap().closed = true;
        self.wake.notify_waiters();
    }
}
