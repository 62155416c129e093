//! [`Stats`]: what became of the events recorded.

use std::sync::atomic::{AtomicU64, Ordering};

/// Counts of what became of the events given to a [`Recorder`](crate::Recorder) and the
/// recorders sharing its queue.
///
/// Each call of [`event`](crate::Recorder::event) counts once in `recorded` (queued),
/// `dropped` (queue full, or shut down) or `failed` (an unusable reason or action). The
/// background task then drops a recorded event as spam (`spam_filtered`), drops a new one
/// that finds the writers' queue full (`dropped`), folds a repeat into its series, or queues a
/// write; one write may carry several repeats, and each ends `written` or `failed` (or, when
/// shutdown's flush time runs out before it starts, `dropped`).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use k8s_openapi::api::core::v1::ObjectReference;
/// use kinformer_events::{EventType, Recorder, Reporter};
///
/// let sim = kinformer_sim::Sim::builder().create_namespace("shop").start().await?;
/// let recorder = Recorder::new(kinformer_rest::Client::new(sim.service()), Reporter::new("example.com/ctl")?);
/// let pod = ObjectReference {
///     api_version: Some("v1".into()), kind: Some("Pod".into()),
///     name: Some("web-0".into()), namespace: Some("shop".into()), ..Default::default()
/// };
/// recorder.event(pod.clone(), EventType::Normal, "Synced", "Sync", "");
/// recorder.event(pod.clone(), EventType::Normal, "", "Sync", "no reason: never sent");
/// let stats = recorder.shutdown().await;
/// assert_eq!((stats.recorded, stats.written, stats.failed), (1, 1, 1));
///
/// recorder.event(pod, EventType::Normal, "Synced", "Sync", "too late");
/// assert_eq!(recorder.stats().dropped, 1);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Events taken into the queue.
    pub recorded: u64,
    /// Events lost before any write: the queue was full (the API server slow or down), the
    /// recorder was shut down, or shutdown's flush timeout passed before their turn.
    pub dropped: u64,
    /// Events dropped by the spam filter.
    pub spam_filtered: u64,
    /// Writes the server accepted: creates and series patches.
    pub written: u64,
    /// Writes given up: refused by the server (or before sending, for an empty or too long
    /// reason or action), out of attempts, or cut off by shutdown's flush timeout.
    pub failed: u64,
}

/// The shared, lock-free counters behind [`Stats`].
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) recorded: AtomicU64,
    pub(crate) dropped: AtomicU64,
    pub(crate) spam_filtered: AtomicU64,
    pub(crate) written: AtomicU64,
    pub(crate) failed: AtomicU64,
}

impl Counters {
    pub(crate) fn snapshot(&self) -> Stats {
        Stats {
            recorded: self.recorded.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
            spam_filtered: self.spam_filtered.load(Ordering::Relaxed),
            written: self.written.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
        }
    }

    /// Adds `n` to `counter`; returns the new total (for log lines).
    pub(crate) fn add(counter: &AtomicU64, n: u64) -> u64 {
        counter.fetch_add(n, Ordering::Relaxed) + n
    }
}
