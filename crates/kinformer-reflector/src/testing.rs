//! Test doubles: a fully scripted ListerWatcher and a store that records every call.

use std::collections::{BTreeMap, VecDeque};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_core::Stream;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{StatusCause, StatusDetails};
use kinformer_core::{
    ApiError, Bookmark, DynamicObject, ListOptions, Lister, ListerWatcher, ObjectList, Status,
    Store, StoreError, TypeMeta, WatchEvent, Watcher, object_key,
};
use tokio::time::Instant;

/// An API error: a Status, or a transport failure.
#[derive(Debug, Clone, thiserror::Error)]
#[error("scripted error")]
pub(crate) struct TestError {
    status: Option<Status>,
    transport: bool,
}

impl ApiError for TestError {
    fn status(&self) -> Option<&Status> {
        self.status.as_ref()
    }

    fn is_transport(&self) -> bool {
        self.transport
    }
}

pub(crate) fn status(code: i32, reason: &str) -> Status {
    Status {
        code: Some(code),
        reason: Some(reason.to_owned()),
        message: Some(format!("{code} {reason}")),
        ..Status::default()
    }
}

pub(crate) fn api_error(code: i32, reason: &str) -> TestError {
    TestError {
        status: Some(status(code, reason)),
        transport: false,
    }
}

pub(crate) fn too_large() -> TestError {
    let mut s = status(504, "Timeout");
    s.details = Some(StatusDetails {
        causes: Some(vec![StatusCause {
            reason: Some("ResourceVersionTooLarge".to_owned()),
            message: Some("Too large resource version".to_owned()),
            field: None,
        }]),
        ..StatusDetails::default()
    });
    TestError {
        status: Some(s),
        transport: false,
    }
}

pub(crate) fn refused() -> TestError {
    TestError {
        status: None,
        transport: true,
    }
}

/// A malformed frame, as a decoder reports it: no Status, not a transport failure.
pub(crate) fn malformed() -> TestError {
    TestError {
        status: None,
        transport: false,
    }
}

pub(crate) type Obj = DynamicObject;

pub(crate) fn obj(name: &str, rv: &str) -> Arc<Obj> {
    let mut o = DynamicObject::new(name);
    o.metadata.namespace = Some("ns".to_owned());
    o.metadata.resource_version = Some(rv.to_owned());
    o.types = Some(TypeMeta::new("v1", "ConfigMap"));
    Arc::new(o)
}

pub(crate) fn list(rv: &str, names: &[&str]) -> ObjectList<Obj> {
    ObjectList::new(rv, names.iter().map(|n| obj(n, rv)).collect())
}

pub(crate) fn bookmark(rv: &str) -> WatchEvent<Obj> {
    WatchEvent::Bookmark(Bookmark::new(rv, false))
}

pub(crate) fn end_bookmark(rv: &str) -> WatchEvent<Obj> {
    WatchEvent::Bookmark(Bookmark::new(rv, true))
}

/// One step of a scripted watch stream.
#[derive(Clone)]
pub(crate) enum Step {
    Event(WatchEvent<Obj>),
    Fail(Box<TestError>),
    Wait(Duration),
    /// Stay open forever.
    Hang,
}

/// The answer to one request.
pub(crate) enum Reply {
    List(Result<ObjectList<Obj>, TestError>),
    Watch(Result<Vec<Step>, TestError>),
}

/// A request as the source saw it, with the (paused-clock) time since the source was created.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Request {
    List(ListOptions),
    Watch(ListOptions),
}

impl Request {
    pub(crate) fn options(&self) -> &ListOptions {
        match self {
            Self::List(o) | Self::Watch(o) => o,
        }
    }

    pub(crate) fn is_list(&self) -> bool {
        matches!(self, Self::List(_))
    }

    /// The query as the wire would carry it, for compact assertions.
    pub(crate) fn query(&self) -> String {
        let verb = if self.is_list() { "LIST" } else { "WATCH" };
        let pairs: Vec<String> = self
            .options()
            .query_pairs()
            .into_iter()
            .filter(|(k, _)| *k != "timeoutSeconds")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!("{verb} {}", pairs.join("&"))
    }
}

/// Answers requests from a script, in order; when the script runs out (or answers with the wrong
/// kind of reply) the request panics, so a test sees every unexpected request. A script that
/// ends with `hang_after` stops the reflector from sending anything more.
pub(crate) struct ScriptedSource {
    script: Mutex<VecDeque<Reply>>,
    log: Mutex<Vec<(Duration, Request)>>,
    start: Instant,
    streaming: bool,
    /// When the script is exhausted: true = hang, false = panic.
    hang_when_done: bool,
}

impl ScriptedSource {
    pub(crate) fn new(script: Vec<Reply>) -> Arc<Self> {
        Arc::new(Self {
            script: Mutex::new(script.into()),
            log: Mutex::default(),
            start: Instant::now(),
            streaming: false,
            hang_when_done: true,
        })
    }

    pub(crate) fn streaming(script: Vec<Reply>) -> Arc<Self> {
        Arc::new(Self {
            script: Mutex::new(script.into()),
            log: Mutex::default(),
            start: Instant::now(),
            streaming: true,
            hang_when_done: true,
        })
    }

    pub(crate) fn requests(&self) -> Vec<Request> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .map(|(_, r)| r.clone())
            .collect()
    }

    pub(crate) fn queries(&self) -> Vec<String> {
        self.requests().iter().map(Request::query).collect()
    }

    pub(crate) fn times(&self) -> Vec<Duration> {
        self.log.lock().unwrap().iter().map(|(t, _)| *t).collect()
    }

    pub(crate) fn remaining(&self) -> usize {
        self.script.lock().unwrap().len()
    }

    fn next(&self, request: Request) -> Option<Reply> {
        self.log
            .lock()
            .unwrap()
            .push((self.start.elapsed(), request));
        let reply = self.script.lock().unwrap().pop_front();
        assert!(
            reply.is_some() || self.hang_when_done,
            "request beyond the script"
        );
        reply
    }
}

type EventStream = Pin<Box<dyn Stream<Item = Result<WatchEvent<Obj>, TestError>> + Send>>;

fn scripted_stream(steps: Vec<Step>) -> EventStream {
    Box::pin(futures_util::stream::unfold(
        VecDeque::from(steps),
        |mut steps| async move {
            loop {
                match steps.pop_front()? {
                    Step::Event(e) => return Some((Ok(e), steps)),
                    Step::Fail(e) => return Some((Err(*e), steps)),
                    Step::Wait(d) => tokio::time::sleep(d).await,
                    Step::Hang => std::future::pending::<()>().await,
                }
            }
        },
    ))
}

impl Lister<Obj> for ScriptedSource {
    type Error = TestError;

    async fn list(&self, options: &ListOptions) -> Result<ObjectList<Obj>, TestError> {
        match self.next(Request::List(options.clone())) {
            Some(Reply::List(result)) => result,
            Some(Reply::Watch(_)) => panic!("script expected a watch, got a list: {options:?}"),
            None => std::future::pending().await,
        }
    }
}

impl Watcher<Obj> for ScriptedSource {
    type Error = TestError;
    type Stream = EventStream;

    async fn watch(&self, options: &ListOptions) -> Result<EventStream, TestError> {
        match self.next(Request::Watch(options.clone())) {
            Some(Reply::Watch(result)) => result.map(scripted_stream),
            Some(Reply::List(_)) => panic!("script expected a list, got a watch: {options:?}"),
            None => std::future::pending().await,
        }
    }
}

impl ListerWatcher<Obj> for ScriptedSource {
    fn supports_streaming_list(&self) -> bool {
        self.streaming
    }
}

/// A call the store received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Call {
    Add(String),
    Update(String),
    Delete(String),
    Replace(Vec<String>, String),
    Resync,
    ResourceVersion(String),
}

/// A map-backed store that records its calls.
#[derive(Default)]
pub(crate) struct RecordingStore {
    pub(crate) calls: Mutex<Vec<Call>>,
    pub(crate) objects: Mutex<BTreeMap<String, Arc<Obj>>>,
}

impl RecordingStore {
    pub(crate) fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    pub(crate) fn keys(&self) -> Vec<String> {
        self.objects.lock().unwrap().keys().cloned().collect()
    }

    fn record(&self, call: Call) {
        self.calls.lock().unwrap().push(call);
    }
}

impl Store<Obj> for RecordingStore {
    fn add(&self, o: Arc<Obj>) -> Result<(), StoreError> {
        let key = object_key(o.as_ref());
        self.record(Call::Add(key.clone()));
        self.objects.lock().unwrap().insert(key, o);
        Ok(())
    }

    fn update(&self, o: Arc<Obj>) -> Result<(), StoreError> {
        let key = object_key(o.as_ref());
        self.record(Call::Update(key.clone()));
        self.objects.lock().unwrap().insert(key, o);
        Ok(())
    }

    fn delete(&self, o: Arc<Obj>) -> Result<(), StoreError> {
        let key = object_key(o.as_ref());
        self.record(Call::Delete(key.clone()));
        self.objects.lock().unwrap().remove(&key);
        Ok(())
    }

    fn replace(&self, list: Vec<Arc<Obj>>, rv: &str) -> Result<(), StoreError> {
        let mut keys: Vec<String> = list.iter().map(|o| object_key(o.as_ref())).collect();
        keys.sort();
        self.record(Call::Replace(keys, rv.to_owned()));
        *self.objects.lock().unwrap() = list
            .into_iter()
            .map(|o| (object_key(o.as_ref()), o))
            .collect();
        Ok(())
    }

    fn resync(&self) -> Result<(), StoreError> {
        self.record(Call::Resync);
        Ok(())
    }

    fn update_resource_version(&self, rv: &str) {
        self.record(Call::ResourceVersion(rv.to_owned()));
    }
}
