//! Test support: a scripted delta queue, the config map the unit tests move around, and a
//! way to let spawned tasks run.

use std::collections::VecDeque;
use std::pin::pin;
use std::sync::{Arc, Mutex};

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_core::{Cached, DeletedState, Delta, KeyFunc, Object, Store, StoreError};
use tokio::sync::{Notify, watch};

use kinformer_deltafifo::{DeltaQueue, Error as QueueError, Popped, PoppedItem};

/// The config map `ns/name` at resourceVersion `rv`.
pub(crate) fn configmap(name: &str, rv: &str) -> ConfigMap {
    let mut cm = ConfigMap::default();
    cm.metadata.namespace = Some("ns".into());
    cm.metadata.name = Some(name.into());
    cm.metadata.resource_version = Some(rv.into());
    cm
}

/// Lets spawned tasks run until each waits on something (a paused clock stays where it is).
pub(crate) async fn settle() {
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
}

/// A minimal in-order queue (no per-key compression): enough to drive the informer loop.
pub(crate) struct ScriptedQueue<K> {
    state: Mutex<QueueState<K>>,
    wake: Notify,
    synced: watch::Sender<bool>,
}

struct QueueState<K> {
    items: VecDeque<Delta<K>>,
    initial_left: Option<usize>,
    closed: bool,
}

impl<K> Default for QueueState<K> {
    fn default() -> Self {
        Self {
            items: VecDeque::new(),
            initial_left: None,
            closed: false,
        }
    }
}

impl<K: Object> ScriptedQueue<K> {
    pub(crate) fn new() -> Self {
        Self {
            state: Mutex::default(),
            wake: Notify::new(),
            synced: watch::Sender::new(false),
        }
    }

    fn push(&self, delta: Delta<K>) {
        self.state.lock().unwrap().items.push_back(delta);
        self.wake.notify_one();
    }
}

impl<K: Object> Store<K> for ScriptedQueue<K> {
    fn add(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.push(Delta::Added(obj.into()));
        Ok(())
    }
    fn update(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.push(Delta::Updated(obj.into()));
        Ok(())
    }
    fn delete(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.push(Delta::Deleted(DeletedState::Known(obj)));
        Ok(())
    }
    fn replace(&self, list: Vec<Arc<K>>, rv: &str) -> Result<(), StoreError> {
        self.replace_admitted(Cached::from_objects(list), rv)
    }
    fn replace_admitted(&self, list: Vec<Cached<K>>, _rv: &str) -> Result<(), StoreError> {
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

impl<K: Object> DeltaQueue<K> for ScriptedQueue<K> {
    async fn pop<R, F>(&self, process: F) -> Result<R, QueueError>
    where
        F: FnOnce(Popped<K>) -> R + Send,
        R: Send,
    {
        loop {
            let mut notified = pin!(self.wake.notified());
            notified.as_mut().enable();
            {
                let mut state = self.state.lock().unwrap();
                if let Some(delta) = state.items.pop_front() {
                    let is_in_initial_list = state.initial_left.is_some_and(|n| n > 0);
                    let key = delta.object().key(&KeyFunc::default()).into_owned();
                    let item = PoppedItem::Deltas {
                        key,
                        deltas: vec![delta],
                    };
                    let result = process(Popped::new(item, is_in_initial_list));
                    if let Some(n) = state.initial_left.as_mut().filter(|n| **n > 0) {
                        *n -= 1;
                        if *n == 0 {
                            self.synced.send_replace(true);
                        }
                    }
                    return Ok(result);
                }
                if state.closed {
                    return Err(QueueError::Closed);
                }
            }
            notified.await;
        }
    }
    fn has_synced(&self) -> bool {
        *self.synced.borrow()
    }
    async fn synced(&self) {
        let mut synced = self.synced.subscribe();
        // An error means the queue is gone, which a test double outlives.
        drop(synced.wait_for(|synced| *synced).await);
    }
    fn close(&self) {
        self.state.lock().unwrap().closed = true;
        self.wake.notify_waiters();
    }
    fn is_closed(&self) -> bool {
        self.state.lock().unwrap().closed
    }
    fn queued(&self) -> usize {
        self.state.lock().unwrap().items.len()
    }
}

/// Runs `informer` on a task of its own, as an application would.
pub(crate) fn spawn_run<K: Object + Clone>(
    informer: &super::shared::SharedIndexInformer<K>,
) -> tokio::task::JoinHandle<crate::error::Result<()>> {
    let informer = informer.clone();
    tokio::spawn(async move { informer.run().await })
}
