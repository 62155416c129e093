//! Where handler tasks return the notifications they delivered, to be dropped on the
//! informer's task.
//!
//! The informer's task decodes objects, so its thread allocated them. When another thread
//! frees them, glibc's allocator takes the owning arena's lock and its thread cache never
//! gets the memory back: under a watch burst the allocator's locks and consolidation cost more
//! than the informer itself. Freeing where they were allocated avoids both.
//!
//! A vector behind a lock rather than a channel: it allocates nothing until the first
//! notification comes back, where a channel's first block (32 notifications) was kept by every
//! informer, idle or not.

use std::sync::{Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

use super::notification::Notification;

/// Delivered notifications on their way back to the informer's task.
pub(crate) struct Spent<K> {
    state: Mutex<State<K>>,
    returned: Notify,
}

struct State<K> {
    queue: Vec<Notification<K>>,
    /// The informer's task is gone: senders drop what they deliver themselves.
    closed: bool,
}

impl<K> Spent<K> {
    pub(crate) fn new() -> Self {
        Self {
            state: Mutex::new(State {
                queue: Vec::new(),
                closed: false,
            }),
            returned: Notify::new(),
        }
    }

    /// Hands a delivered notification back (or drops it here once the informer's task is gone).
    pub(crate) fn send(&self, notification: Notification<K>) {
        let mut state = self.lock();
        if state.closed {
            drop(state);
            drop(notification);
            return;
        }
        state.queue.push(notification);
        drop(state);
        // Stores a permit when the informer's task is not waiting, so no return is missed.
        self.returned.notify_one();
    }

    /// Waits for returned notifications and takes them all.
    ///
    /// # Cancel safety
    /// Cancel safe: notifications are taken only in the poll that returns them.
    pub(crate) async fn take(&self) -> Vec<Notification<K>> {
        loop {
            let returned = self.returned.notified();
            {
                let mut state = self.lock();
                if !state.queue.is_empty() {
                    return std::mem::take(&mut state.queue);
                }
            }
            returned.await;
        }
    }

    /// The informer's task stops taking: what is queued is dropped now, later returns at once.
    pub(crate) fn close(&self) {
        let queued = {
            let mut state = self.lock();
            state.closed = true;
            std::mem::take(&mut state.queue)
        };
        drop(queued);
    }

    fn lock(&self) -> MutexGuard<'_, State<K>> {
        // A push or a take: every section leaves the state consistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;

    fn note(n: u32) -> Notification<u32> {
        Notification::Add {
            obj: Arc::new(n).into(),
            initial: false,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn returns_wake_the_taker_and_arrive_in_order() {
        let spent = Arc::new(Spent::new());
        let taker = tokio::spawn({
            let spent = Arc::clone(&spent);
            async move { spent.take().await.len() }
        });
        tokio::time::sleep(Duration::from_millis(1)).await;
        spent.send(note(1));
        spent.send(note(2));
        assert!((1..=2).contains(&taker.await.unwrap()));
        spent.send(note(3));
        assert!(!spent.take().await.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn after_close_nothing_is_kept() {
        let spent = Spent::new();
        spent.send(note(1));
        spent.close();
        spent.send(note(2));
        assert!(spent.lock().queue.is_empty());
        assert!(spent.lock().closed);
    }
}
