//! [`Recorder`]: what a controller calls; the queue and the background task behind it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use kinformer_rest::Client;
use tokio::sync::mpsc::{self, error::TrySendError};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::event::{EventType, Occurrence};
use crate::regarding::Regarding;
use crate::reporter::Reporter;
use crate::sink::Sink;
use crate::stats::{Counters, Stats};
use crate::worker::Worker;

/// What every recorder of one background task shares.
#[derive(Debug)]
struct Shared {
    queue: mpsc::Sender<Occurrence>,
    counters: Arc<Counters>,
    /// The queue was full at the last attempt: warn once per overflow, not once per event.
    overflowing: AtomicBool,
    stop: CancellationToken,
    /// The background task, until a shutdown has waited for it.
    task: tokio::sync::Mutex<Option<JoinHandle<()>>>,
}

/// Records `events.k8s.io/v1` Events as one [`Reporter`] (client-go's `tools/events`
/// `EventRecorder` and the `EventBroadcaster` behind it, started with
/// `StartRecordingToSink`).
///
/// [`event`](Self::event) never blocks and never fails: it puts the event on a bounded queue
/// that a background task takes from. That task drops events by the spam filter, folds
/// repeats into series, and writes with a few workers, retrying while the API server is
/// unreachable; what does not fit in the queue meanwhile is dropped and counted in
/// [`stats`](Self::stats). Clones (and [`for_reporter`](Self::for_reporter)) share the queue
/// and the task. [`shutdown`](Self::shutdown) writes what is queued and stops the task;
/// dropping every recorder does the same in the background.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use k8s_openapi::api::core::v1::Pod;
/// use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
/// use kinformer_events::{EventType, Recorder, Reporter};
/// use kinformer_rest::Client;
///
/// let sim = kinformer_sim::Sim::builder().create_namespace("shop").start().await?;
/// let recorder = Recorder::new(Client::new(sim.service()), Reporter::new("example.com/web-controller")?);
/// let pod = Pod {
///     metadata: ObjectMeta { name: Some("web-0".into()), namespace: Some("shop".into()), ..Default::default() },
///     ..Default::default()
/// };
/// recorder.event(&pod, EventType::Normal, "Scheduled", "Scheduling", "assigned shop/web-0 to node-1");
/// let stats = recorder.shutdown().await;
/// assert_eq!((stats.recorded, stats.written), (1, 1));
/// # Ok(()) }
/// ```
#[doc(alias = "EventRecorder", alias = "EventBroadcaster")]
#[derive(Debug, Clone)]
pub struct Recorder {
    reporter: Arc<Reporter>,
    shared: Arc<Shared>,
}

impl Recorder {
    /// A recorder writing through `client` with the default [`Config`] (client-go's
    /// settings), its background task started.
    ///
    /// # Panics
    /// When called outside a Tokio runtime (it spawns the background task).
    pub fn new(client: Client, reporter: Reporter) -> Self {
        Self::start(client, reporter, Config::default())
    }

    /// A recorder writing through `client` with `config`, its background task started.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use kinformer_events::{Config, Recorder, Reporter};
    ///
    /// let sim = kinformer_sim::Sim::builder().create_namespace("shop").start().await?;
    /// let client = kinformer_rest::Client::new(sim.service());
    /// let reporter = Reporter::new("example.com/web-controller")?;
    /// let config = Config::default().with_queue_capacity(100)?;
    /// let recorder = Recorder::with_config(client, reporter, config);
    /// # recorder.shutdown().await; Ok(()) }
    /// ```
    ///
    /// # Panics
    /// When called outside a Tokio runtime (it spawns the background task).
    pub fn with_config(client: Client, reporter: Reporter, config: Config) -> Self {
        Self::start(client, reporter, config)
    }

    fn start(client: Client, reporter: Reporter, config: Config) -> Self {
        let (sender, receiver) = mpsc::channel(config.queue_capacity());
        let counters = Arc::new(Counters::default());
        let stop = CancellationToken::new();
        let worker = Worker {
            queue: receiver,
            sink: Sink::new(client, &config),
            config,
            counters: Arc::clone(&counters),
            stop: stop.clone(),
            overflowing: false,
        };
        let task = tokio::spawn(worker.run());
        Self {
            reporter: Arc::new(reporter),
            shared: Arc::new(Shared {
                queue: sender,
                counters,
                overflowing: AtomicBool::new(false),
                stop,
                task: tokio::sync::Mutex::new(Some(task)),
            }),
        }
    }

    /// A recorder reporting as `reporter` through this one's queue and background task
    /// (client-go's `NewRecorder` on the same broadcaster).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use kinformer_events::{Recorder, Reporter};
    ///
    /// let sim = kinformer_sim::Sim::builder().create_namespace("shop").start().await?;
    /// let recorder = Recorder::new(kinformer_rest::Client::new(sim.service()), Reporter::new("example.com/a")?);
    /// let other = recorder.for_reporter(Reporter::new("example.com/b")?);
    /// assert_eq!(other.reporter().controller(), "example.com/b");
    /// # other.shutdown().await; Ok(()) }
    /// ```
    pub fn for_reporter(&self, reporter: Reporter) -> Self {
        Self {
            reporter: Arc::new(reporter),
            shared: Arc::clone(&self.shared),
        }
    }

    /// Records that `action` was taken (or failed) on `regarding`, for `reason`, with a
    /// human-readable `note` (cut to the API's 1 KiB): client-go's `Eventf`, with the
    /// formatting left to `format!`. `regarding` is an object (`&pod`), an
    /// [`ObjectReference`](k8s_openapi::api::core::v1::ObjectReference), or a [`Regarding`]
    /// that names a related object too.
    ///
    /// Never blocks and never fails. `reason` and `action` are short CamelCase words
    /// (`"FailedMount"`, `"Mounting"`); the API requires both, at most 128 bytes each, and an
    /// event without them is counted in [`Stats::failed`] and logged instead of being sent.
    /// When the queue is full (the API server slow or down) or the recorder is shut down,
    /// the event is dropped, counted in [`Stats::dropped`] and logged.
    pub fn event(
        &self,
        regarding: impl Into<Regarding>,
        event_type: EventType,
        reason: &str,
        action: &str,
        note: impl Into<String>,
    ) {
        let (regarding, related) = regarding.into().into_parts();
        self.record(Occurrence {
            reporter: Arc::clone(&self.reporter),
            regarding,
            related,
            event_type,
            reason: reason.to_owned(),
            action: action.to_owned(),
            note: note.into(),
            time: SystemTime::now(),
        });
    }

    fn record(&self, occurrence: Occurrence) {
        let shared = &*self.shared;
        if let Some(problem) = occurrence.unusable() {
            Counters::add(&shared.counters.failed, 1);
            tracing::warn!(regarding = ?occurrence.regarding.name, "event not recorded: {problem}");
            return;
        }
        if shared.stop.is_cancelled() {
            return shut_down(shared, &occurrence);
        }
        match shared.queue.try_send(occurrence) {
            Ok(()) => {
                Counters::add(&shared.counters.recorded, 1);
                shared.overflowing.store(false, Ordering::Relaxed);
            }
            Err(TrySendError::Full(occurrence)) => {
                let dropped = Counters::add(&shared.counters.dropped, 1);
                if !shared.overflowing.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        regarding = ?occurrence.regarding.name,
                        reason = %occurrence.reason,
                        dropped,
                        "event queue full, dropping events until it drains"
                    );
                }
            }
            Err(TrySendError::Closed(occurrence)) => shut_down(shared, &occurrence),
        }
    }

    /// Who this recorder reports as.
    pub fn reporter(&self) -> &Reporter {
        &self.reporter
    }

    /// What became of the events given to this recorder and those sharing its queue.
    pub fn stats(&self) -> Stats {
        self.shared.counters.snapshot()
    }

    /// Stops taking events (later ones are dropped and counted), writes those already
    /// queued and the series counts not yet written, one attempt each, for at most the
    /// [flush timeout](Config::flush_timeout), and returns the final [`Stats`]. Recorders
    /// sharing the queue are shut down too; calling it again waits for the first call's
    /// flush and returns the same counts.
    ///
    /// # Cancel safety
    /// Dropping the future leaves the flush running in the background; a later call waits
    /// for it.
    pub async fn shutdown(&self) -> Stats {
        self.shared.stop.cancel();
        let mut task = self.shared.task.lock().await;
        if let Some(handle) = task.as_mut() {
            if let Err(error) = handle.await {
                tracing::error!(%error, "the event recorder's background task failed");
            }
            *task = None;
        }
        self.stats()
    }
}

fn shut_down(shared: &Shared, occurrence: &Occurrence) {
    let dropped = Counters::add(&shared.counters.dropped, 1);
    tracing::warn!(
        regarding = ?occurrence.regarding.name,
        reason = %occurrence.reason,
        dropped,
        "event recorder shut down, dropping event"
    );
}
