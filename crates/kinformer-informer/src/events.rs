//! [`EventStream`]: an informer's notifications as a [`Stream`].

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_core::Stream;
use kinformer_core::DeletedState;
use tokio::sync::mpsc;

use kinformer_core::Object;

use crate::{Error, EventHandler, Missed, Registration, SharedIndexInformer};

/// One notification of an informer, as [`SharedIndexInformer::events`] hands it out.
#[derive(Debug)]
#[non_exhaustive]
pub enum Event<K> {
    /// An object appeared; `in_initial_list` is true for the objects of the first full list
    /// (and for the cache's objects when the stream was opened after it).
    Added {
        /// The object.
        object: Arc<K>,
        /// True for the initial list's objects.
        in_initial_list: bool,
    },
    /// An object changed (or was re-delivered by a resync: the same resourceVersion).
    Updated {
        /// Its state before.
        old: Arc<K>,
        /// Its state now.
        new: Arc<K>,
    },
    /// An object was deleted: its final state, or a tombstone when the delete was inferred
    /// from a relist.
    Deleted(DeletedState<K>),
    /// A notification owed could not be made: a compact cache's copy of the object failed to
    /// decode (see [`EventHandler::on_decode_error`]); read the object from the API server.
    Missed {
        /// The object's key.
        key: String,
        /// The event it would have been.
        missed: Missed,
    },
}

/// The handler behind an [`EventStream`]: each call is one message, never a wait.
struct Forward<K>(mpsc::UnboundedSender<Event<K>>);

impl<K: Send + Sync + 'static> EventHandler<K> for Forward<K> {
    fn on_add(&self, obj: &Arc<K>, is_in_initial_list: bool) {
        let _ = self.0.send(Event::Added {
            object: Arc::clone(obj),
            in_initial_list: is_in_initial_list,
        });
    }
    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        let _ = self.0.send(Event::Updated {
            old: Arc::clone(old),
            new: Arc::clone(new),
        });
    }
    fn on_delete(&self, state: &DeletedState<K>) {
        let _ = self.0.send(Event::Deleted(state.clone()));
    }
    fn on_decode_error(&self, error: &Error) {
        if let Error::Decode { key, missed, .. } = error {
            let _ = self.0.send(Event::Missed {
                key: key.clone(),
                missed: *missed,
            });
        }
    }
}

/// An informer's notifications, in the order its handlers get them: a [`Stream`] of
/// [`Event`]s (kube-rs's `watcher()` events, from a shared informer's cache instead of a
/// watch of its own).
///
/// Backpressure: the informer never waits for the stream. Like every handler, the stream has
/// a buffer of its own, which grows while the reader is behind (objects are shared `Arc`s: an
/// event costs a few pointers, not a copy), so a slow reader delays nothing else — neither the
/// informer's cache nor its other handlers. The stream ends when the informer stops; dropping
/// it removes its handler.
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_informer::{Config, Event, SharedIndexInformer};
/// use kinformer_listwatch::ListWatch;
/// use kinformer_rest::Client;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let sim = kinformer_sim::Sim::builder().configmaps(2).start().await?;
/// let source = ListWatch::<ConfigMap, _>::for_type(Client::new(sim.service()));
/// let informer = SharedIndexInformer::new(source, Config::default())?;
/// let mut events = informer.events()?;
/// let running = tokio::spawn({
///     let informer = informer.clone();
///     async move { informer.run().await }
/// });
/// for _ in 0..2 {
///     let Some(Event::Added { object, in_initial_list: true }) = events.next().await else {
///         panic!("expected the initial list");
///     };
///     println!("{}", object.metadata.name.as_deref().unwrap_or_default());
/// }
/// informer.shutdown();
/// running.await??;
/// assert!(events.next().await.is_none(), "the stream ends with the informer");
/// # Ok(()) }
/// ```
pub struct EventStream<K: Object + Clone> {
    events: mpsc::UnboundedReceiver<Event<K>>,
    informer: SharedIndexInformer<K>,
    registration: Registration,
}

impl<K: Object + Clone> SharedIndexInformer<K> {
    /// This informer's notifications as a [`Stream`]: a handler whose calls become
    /// [`Event`]s (see [`EventStream`] for backpressure).
    ///
    /// # Errors
    /// [`Error::Stopped`] once the informer has stopped.
    pub fn events(&self) -> Result<EventStream<K>, Error> {
        let (sender, events) = mpsc::unbounded_channel();
        let registration = self.add_event_handler(Forward(sender))?;
        Ok(EventStream {
            events,
            informer: self.clone(),
            registration,
        })
    }
}

impl<K: Object + Clone> EventStream<K> {
    /// The next event; `None` once the informer stopped.
    ///
    /// # Cancel safety
    /// Cancel safe: an event is taken only when it is returned.
    pub async fn next(&mut self) -> Option<Event<K>> {
        self.events.recv().await
    }

    /// The handler's registration (its [`has_synced`](Registration::has_synced): every event
    /// of the initial list has been queued on this stream).
    pub fn registration(&self) -> &Registration {
        &self.registration
    }
}

impl<K: Object + Clone> Stream for EventStream<K> {
    type Item = Event<K>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event<K>>> {
        self.events.poll_recv(cx)
    }
}

impl<K: Object + Clone> Drop for EventStream<K> {
    fn drop(&mut self) {
        self.informer.remove_event_handler(&self.registration);
    }
}

impl<K: Object + Clone> fmt::Debug for EventStream<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventStream")
            .field("buffered", &self.events.len())
            .finish_non_exhaustive()
    }
}
