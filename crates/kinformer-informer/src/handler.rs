//! [`EventHandler`]: what an informer calls for every change, plus closure and filtering adapters.

use std::fmt;
use std::sync::Arc;

use kinformer_core::DeletedState;

use crate::error::Error;

/// Receives an informer's notifications, in order, on the handler's own task.
///
/// Every method has a no-op default, so a handler implements only what it needs. Calls are
/// sequential for one handler; different handlers run concurrently. A slow handler only delays
/// itself: its notifications wait in its own unbounded buffer.
///
/// Handlers must not mutate the objects they are given: they are the cache's own copies.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_informer::EventHandler;
/// use kinformer_core::{DeletedState, Object};
///
/// struct Logger;
///
/// impl EventHandler<Pod> for Logger {
///     fn on_add(&self, pod: &Arc<Pod>, is_in_initial_list: bool) {
///         let _ = (pod.name(), is_in_initial_list);
///     }
///     fn on_delete(&self, state: &DeletedState<Pod>) {
///         let _ = (state.object().name(), state.is_tombstone());
///     }
/// }
///
/// Logger.on_add(&Arc::new(Pod::default()), true);
/// ```
#[doc(alias = "ResourceEventHandler")]
pub trait EventHandler<K>: Send + Sync + 'static {
    /// An object appeared. `is_in_initial_list` is true for objects of the first full list (and
    /// for the synthetic adds a handler registered late receives for the current cache).
    fn on_add(&self, _obj: &Arc<K>, _is_in_initial_list: bool) {}

    /// An object changed, or was re-delivered by a resync (then `old` and `new` carry the same
    /// resourceVersion).
    fn on_update(&self, _old: &Arc<K>, _new: &Arc<K>) {}

    /// An object was deleted; a tombstone when the delete was inferred from a relist.
    fn on_delete(&self, _state: &DeletedState<K>) {}

    /// A call this handler was owed could not be made: the object was held by a compact cache
    /// and its copy failed to decode ([`Error::Decode`], naming the key and the call missed).
    /// Only a type whose serde implementations do not round-trip can cause it, and a relist
    /// would not repair it (it keeps the same bytes), so the informer reports it here instead
    /// of skipping the call: a controller typically queues `key` and reads the object from the
    /// API server. The informer has already logged it and counted it
    /// ([`Metrics::decode_failed`](crate::Metrics::decode_failed)).
    fn on_decode_error(&self, _error: &Error) {}
}

impl<K, H: EventHandler<K> + ?Sized> EventHandler<K> for Arc<H> {
    fn on_add(&self, obj: &Arc<K>, is_in_initial_list: bool) {
        (**self).on_add(obj, is_in_initial_list);
    }
    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        (**self).on_update(old, new);
    }
    fn on_delete(&self, state: &DeletedState<K>) {
        (**self).on_delete(state);
    }
    fn on_decode_error(&self, error: &Error) {
        (**self).on_decode_error(error);
    }
}

impl<K, H: EventHandler<K> + ?Sized> EventHandler<K> for Box<H> {
    fn on_add(&self, obj: &Arc<K>, is_in_initial_list: bool) {
        (**self).on_add(obj, is_in_initial_list);
    }
    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        (**self).on_update(old, new);
    }
    fn on_delete(&self, state: &DeletedState<K>) {
        (**self).on_delete(state);
    }
    fn on_decode_error(&self, error: &Error) {
        (**self).on_decode_error(error);
    }
}

type AddFn<K> = Box<dyn Fn(&Arc<K>, bool) + Send + Sync>;
type UpdateFn<K> = Box<dyn Fn(&Arc<K>, &Arc<K>) + Send + Sync>;
type DeleteFn<K> = Box<dyn Fn(&DeletedState<K>) + Send + Sync>;
type DecodeErrorFn = Box<dyn Fn(&Error) + Send + Sync>;

/// An [`EventHandler`] made of closures; unset callbacks do nothing.
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_informer::HandlerFns;
/// use kinformer_workqueue::Queue;
///
/// let queue: Queue<String> = Queue::new();
/// let (on_add, on_update) = (queue.clone(), queue.clone());
/// let _handler = HandlerFns::<ConfigMap>::new()
///     .add_fn(move |cm, _| on_add.add(kinformer_core::object_key(&**cm)))
///     .update_fn(move |_, cm| on_update.add(kinformer_core::object_key(&**cm)));
/// ```
#[doc(alias = "ResourceEventHandlerDetailedFuncs")]
pub struct HandlerFns<K> {
    add: Option<AddFn<K>>,
    update: Option<UpdateFn<K>>,
    delete: Option<DeleteFn<K>>,
    decode_error: Option<DecodeErrorFn>,
}

impl<K> HandlerFns<K> {
    /// A handler that does nothing until callbacks are set.
    pub fn new() -> Self {
        Self {
            add: None,
            update: None,
            delete: None,
            decode_error: None,
        }
    }

    /// Sets the add callback: `(object, is_in_initial_list)`.
    #[must_use]
    pub fn add_fn(mut self, f: impl Fn(&Arc<K>, bool) + Send + Sync + 'static) -> Self {
        self.add = Some(Box::new(f));
        self
    }

    /// Sets the update callback: `(old, new)`.
    #[must_use]
    pub fn update_fn(mut self, f: impl Fn(&Arc<K>, &Arc<K>) + Send + Sync + 'static) -> Self {
        self.update = Some(Box::new(f));
        self
    }

    /// Sets the delete callback.
    #[must_use]
    pub fn delete_fn(mut self, f: impl Fn(&DeletedState<K>) + Send + Sync + 'static) -> Self {
        self.delete = Some(Box::new(f));
        self
    }

    /// Sets the callback for a call that could not be made (see
    /// [`EventHandler::on_decode_error`]).
    #[must_use]
    pub fn decode_error_fn(mut self, f: impl Fn(&Error) + Send + Sync + 'static) -> Self {
        self.decode_error = Some(Box::new(f));
        self
    }
}

impl<K> Default for HandlerFns<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K> fmt::Debug for HandlerFns<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HandlerFns")
            .field("on_add", &self.add.is_some())
            .field("on_update", &self.update.is_some())
            .field("on_delete", &self.delete.is_some())
            .field("on_decode_error", &self.decode_error.is_some())
            .finish()
    }
}

impl<K: 'static> EventHandler<K> for HandlerFns<K> {
    fn on_add(&self, obj: &Arc<K>, is_in_initial_list: bool) {
        if let Some(f) = &self.add {
            f(obj, is_in_initial_list);
        }
    }
    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        if let Some(f) = &self.update {
            f(old, new);
        }
    }
    fn on_delete(&self, state: &DeletedState<K>) {
        if let Some(f) = &self.delete {
            f(state);
        }
    }
    fn on_decode_error(&self, error: &Error) {
        if let Some(f) = &self.decode_error {
            f(error);
        }
    }
}

/// Passes on only objects that match a filter. An update that starts matching becomes an add
/// (`is_in_initial_list = false`); one that stops matching becomes a delete of the old object
/// (client-go's `FilteringResourceEventHandler`).
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_informer::{EventHandler, FilteringHandler, HandlerFns};
/// use kinformer_core::Object;
///
/// let adds = Arc::new(AtomicUsize::new(0));
/// let counter = adds.clone();
/// let handler = FilteringHandler::new(
///     |pod: &Pod| pod.namespace() == Some("prod"),
///     HandlerFns::new().add_fn(move |_, _| { counter.fetch_add(1, Ordering::Relaxed); }),
/// );
/// let mut pod = Pod::default();
/// pod.metadata.namespace = Some("dev".into());
/// handler.on_add(&Arc::new(pod), true);
/// assert_eq!(adds.load(Ordering::Relaxed), 0);
/// ```
#[doc(alias = "FilteringResourceEventHandler")]
pub struct FilteringHandler<F, H> {
    filter: F,
    inner: H,
}

impl<F, H> FilteringHandler<F, H> {
    /// Wraps `inner` so it sees only objects for which `filter` returns true.
    pub fn new(filter: F, inner: H) -> Self {
        Self { filter, inner }
    }
}

impl<F, H: fmt::Debug> fmt::Debug for FilteringHandler<F, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FilteringHandler")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

impl<K, F, H> EventHandler<K> for FilteringHandler<F, H>
where
    K: 'static,
    F: Fn(&K) -> bool + Send + Sync + 'static,
    H: EventHandler<K>,
{
    fn on_add(&self, obj: &Arc<K>, is_in_initial_list: bool) {
        if (self.filter)(obj) {
            self.inner.on_add(obj, is_in_initial_list);
        }
    }

    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        match ((self.filter)(old), (self.filter)(new)) {
            (true, true) => self.inner.on_update(old, new),
            (false, true) => self.inner.on_add(new, false),
            (true, false) => self.inner.on_delete(&DeletedState::Known(Arc::clone(old))),
            (false, false) => {}
        }
    }

    fn on_delete(&self, state: &DeletedState<K>) {
        if (self.filter)(state.object()) {
            self.inner.on_delete(state);
        }
    }

    /// Passed on: without the object the filter cannot tell, and a lost call must not vanish.
    fn on_decode_error(&self, error: &Error) {
        self.inner.on_decode_error(error);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[derive(Default)]
    struct Recorder(Mutex<Vec<String>>);

    impl EventHandler<i32> for Recorder {
        fn on_add(&self, obj: &Arc<i32>, initial: bool) {
            self.0.lock().unwrap().push(format!("add {obj} {initial}"));
        }
        fn on_update(&self, old: &Arc<i32>, new: &Arc<i32>) {
            self.0.lock().unwrap().push(format!("update {old}->{new}"));
        }
        fn on_delete(&self, state: &DeletedState<i32>) {
            let tomb = state.is_tombstone();
            self.0
                .lock()
                .unwrap()
                .push(format!("delete {} {tomb}", state.object()));
        }
    }

    #[test]
    fn filtering_turns_updates_into_adds_and_deletes() {
        let recorder = Arc::new(Recorder::default());
        let handler = FilteringHandler::new(|n: &i32| n % 2 == 0, Arc::clone(&recorder));
        handler.on_add(&Arc::new(1), true);
        handler.on_add(&Arc::new(2), true);
        handler.on_update(&Arc::new(2), &Arc::new(4));
        handler.on_update(&Arc::new(4), &Arc::new(5));
        handler.on_update(&Arc::new(5), &Arc::new(6));
        handler.on_update(&Arc::new(7), &Arc::new(9));
        handler.on_delete(&DeletedState::Known(Arc::new(6)));
        handler.on_delete(&DeletedState::Unknown {
            key: "k".into(),
            last: Arc::new(3),
        });
        assert_eq!(
            *recorder.0.lock().unwrap(),
            [
                "add 2 true",
                "update 2->4",
                "delete 4 false",
                "add 6 false",
                "delete 6 false"
            ]
        );
    }

    #[test]
    fn handler_fns_call_only_what_is_set() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = Arc::clone(&seen);
        let handler = HandlerFns::new().update_fn(move |o: &Arc<i32>, n: &Arc<i32>| {
            s.lock().unwrap().push((**o, **n));
        });
        handler.on_add(&Arc::new(1), false);
        handler.on_update(&Arc::new(1), &Arc::new(2));
        handler.on_delete(&DeletedState::Known(Arc::new(2)));
        assert_eq!(*seen.lock().unwrap(), [(1, 2)]);
        assert!(format!("{handler:?}").contains("on_update: true"));
    }
}
