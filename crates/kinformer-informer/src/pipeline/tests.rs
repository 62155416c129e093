//! Tests of the reflector pipeline over a scripted list-watch source.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::stream::{self, BoxStream, StreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry;
use kinformer_core::{
    ApiError, Fields, FieldsError, ListOptions, Lister, ObjectList, Status, StoreRead, WatchEvent,
    Watcher,
};
use tokio::sync::mpsc;

use super::super::config::Config;
use super::super::handler::HandlerFns;
use super::super::shared::SharedIndexInformer;
use super::super::testing::{ScriptedQueue, configmap, spawn_run};
use super::*;
use kinformer_reflector::Counters;

#[derive(Debug, thiserror::Error)]
#[error("scripted failure")]
struct Failure;

impl ApiError for Failure {
    fn status(&self) -> Option<&Status> {
        None
    }
}

type Events = mpsc::UnboundedReceiver<Result<WatchEvent<ConfigMap>, Failure>>;

/// Lists `items` at resourceVersion 10 (after `failures` failed lists); the first watch streams
/// what the test sends, later watches never yield.
struct Source {
    items: Vec<Arc<ConfigMap>>,
    failures: AtomicUsize,
    events: Mutex<Option<Events>>,
}

impl Lister<ConfigMap> for Source {
    type Error = Failure;
    async fn list(&self, _: &ListOptions) -> Result<ObjectList<ConfigMap>, Failure> {
        let failed = self
            .failures
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        if failed.is_ok() {
            return Err(Failure);
        }
        Ok(ObjectList::new("10", self.items.clone()))
    }
}

impl Watcher<ConfigMap> for Source {
    type Error = Failure;
    type Stream = BoxStream<'static, Result<WatchEvent<ConfigMap>, Failure>>;
    async fn watch(&self, _: &ListOptions) -> Result<Self::Stream, Failure> {
        match self.events.lock().unwrap().take() {
            Some(rx) => Ok(stream::unfold(rx, |mut rx| async move {
                rx.recv().await.map(|event| (event, rx))
            })
            .boxed()),
            None => Ok(stream::pending().boxed()),
        }
    }
}

impl ListerWatcher<ConfigMap> for Source {
    fn supports_streaming_list(&self) -> bool {
        false
    }

    /// Serves ready objects: whatever fields the informer wants, it gets them as they are.
    fn set_fields(&mut self, _: &Fields) -> Result<(), FieldsError> {
        Ok(())
    }
}

fn cm(name: &str, rv: &str) -> Arc<ConfigMap> {
    let mut cm = configmap(name, rv);
    cm.metadata.managed_fields = Some(vec![ManagedFieldsEntry::default()]);
    Arc::new(cm)
}

fn informer(
    failures: usize,
    metrics: Arc<Counters>,
) -> (
    SharedIndexInformer<ConfigMap>,
    mpsc::UnboundedSender<Result<WatchEvent<ConfigMap>, Failure>>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let source = Source {
        items: vec![cm("a", "5"), cm("b", "6")],
        failures: AtomicUsize::new(failures),
        events: Mutex::new(Some(rx)),
    };
    let informer = SharedIndexInformer::with_queue(
        source,
        Config::default()
            .with_name("configmaps")
            .with_reflector(ReflectorConfig::default().with_seed(1))
            .with_metrics(metrics),
        |_known| ScriptedQueue::new(),
    )
    .unwrap();
    (informer, tx)
}

#[tokio::test(start_paused = true)]
async fn lists_then_watches_into_cache_and_handlers() {
    let (informer, events) = informer(0, Arc::default());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    informer
        .add_event_handler(
            HandlerFns::new().add_fn(move |o: &Arc<ConfigMap>, initial| {
                log.lock().unwrap().push((o.name().to_owned(), initial));
            }),
        )
        .unwrap();
    let running = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();
    assert_eq!(informer.last_sync_resource_version(), "10");
    events.send(Ok(WatchEvent::Added(cm("c", "11")))).unwrap();
    for _ in 0..100 {
        if informer.last_sync_resource_version() == "11" && seen.lock().unwrap().len() == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(informer.last_sync_resource_version(), "11");
    assert!(informer.indexer().get_by_key("ns/c").is_some());
    let mut seen = seen.lock().unwrap().clone();
    seen.sort();
    assert_eq!(
        seen,
        [("a".into(), true), ("b".into(), true), ("c".into(), false)]
    );
    informer.shutdown();
    running.await.unwrap().unwrap();
}

#[tokio::test(start_paused = true)]
async fn list_failures_reach_the_watch_error_handler_and_are_retried() {
    let counters = Arc::new(Counters::default());
    let (informer, _events) = informer(2, Arc::clone(&counters));
    let errors = Arc::new(AtomicUsize::new(0));
    let counter = errors.clone();
    informer
        .set_watch_error_handler(move |error| {
            assert_eq!(error.to_string(), "list failed");
            counter.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    let running = spawn_run(&informer);
    informer.wait_for_cache_sync().await.unwrap();
    assert_eq!(errors.load(Ordering::SeqCst), 2);
    let seen = counters.snapshot();
    assert_eq!(seen.lists, 3, "two failed lists, then one that worked");
    assert_eq!(informer.indexer().len(), 2);
    informer.shutdown();
    running.await.unwrap().unwrap();
}

/// Lists one fresh object per list (no one else holds it), remembering where it lives; says
/// whether its objects come exactly sized.
struct Fresh {
    exact: bool,
    listed: Arc<Mutex<Vec<usize>>>,
}

impl Lister<ConfigMap> for Fresh {
    type Error = Failure;
    async fn list(&self, _: &ListOptions) -> Result<ObjectList<ConfigMap>, Failure> {
        let object = Arc::new(configmap("a", "5"));
        self.listed
            .lock()
            .unwrap()
            .push(Arc::as_ptr(&object) as usize);
        Ok(ObjectList::new("10", vec![object]))
    }
}

impl Watcher<ConfigMap> for Fresh {
    type Error = Failure;
    type Stream = BoxStream<'static, Result<WatchEvent<ConfigMap>, Failure>>;
    async fn watch(&self, _: &ListOptions) -> Result<Self::Stream, Failure> {
        Ok(stream::pending().boxed())
    }
}

impl ListerWatcher<ConfigMap> for Fresh {
    fn supports_streaming_list(&self) -> bool {
        false
    }

    fn set_fields(&mut self, _: &Fields) -> Result<(), FieldsError> {
        Ok(())
    }

    fn decodes_exactly_sized(&self) -> bool {
        self.exact
    }
}

#[tokio::test(start_paused = true)]
async fn objects_that_come_exactly_sized_are_held_as_they_come() {
    for exact in [false, true] {
        let listed = Arc::new(Mutex::new(Vec::new()));
        let source = Fresh {
            exact,
            listed: Arc::clone(&listed),
        };
        let informer = SharedIndexInformer::with_queue(
            source,
            Config::default().with_name("configmaps"),
            |_known| ScriptedQueue::new(),
        )
        .unwrap();
        let running = spawn_run(&informer);
        informer.wait_for_cache_sync().await.unwrap();
        let held = informer.indexer().get_by_key("ns/a").unwrap();
        let listed = listed.lock().unwrap()[0];
        // The default shape holds exact copies: a copy unless the source says it needs none.
        assert_eq!(
            Arc::as_ptr(&held) as usize == listed,
            exact,
            "exact: {exact}"
        );
        informer.shutdown();
        running.await.unwrap().unwrap();
    }
}
