//! The background task: takes occurrences off the queue, filters spam, folds repeats into
//! series and writes them, a bounded number at a time; on shutdown, flushes within a deadline.

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::{JoinError, JoinSet};
use tokio::time::{Instant, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::event::Occurrence;
use crate::series::{Observed, SeriesCache, SeriesKey};
use crate::sink::{Outcome, Sink};
use crate::spam::SpamFilter;
use crate::stats::Counters;

/// Writes under way, each ending with its series key and outcome.
type Writes = JoinSet<(SeriesKey, Outcome)>;

#[derive(Debug)]
pub(crate) struct Worker {
    pub(crate) queue: mpsc::Receiver<Occurrence>,
    pub(crate) sink: Sink,
    pub(crate) config: Config,
    pub(crate) counters: Arc<Counters>,
    /// Fired by `shutdown`: take no new events, write what is queued, no more retries.
    pub(crate) stop: CancellationToken,
    /// New events are being dropped for a full pending queue (warn once per episode).
    pub(crate) overflowing: bool,
}

impl Worker {
    pub(crate) async fn run(mut self) {
        let mut spam = SpamFilter::new(self.config.spam_burst(), self.config.spam_refill());
        let mut series =
            SeriesCache::new(self.config.queue_capacity(), self.config.series_window());
        let mut writes = Writes::new();
        let window = self.config.series_window();
        let mut sweep = tokio::time::interval_at(Instant::now() + window, window);
        sweep.set_missed_tick_behavior(MissedTickBehavior::Delay);
        loop {
            self.start_writes(&mut series, &mut writes);
            tokio::select! {
                biased;
                () = self.stop.cancelled() => break,
                Some(done) = writes.join_next(), if !writes.is_empty() => {
                    self.finished(done, &mut series);
                }
                occurrence = self.queue.recv() => match occurrence {
                    Some(occurrence) => self.observe(&occurrence, &mut spam, &mut series),
                    // Every recorder is gone: flush as a shutdown would.
                    None => break,
                },
                _ = sweep.tick() => {
                    let now = Instant::now();
                    series.finish(now);
                    spam.forget_full(now);
                }
            }
        }
        self.flush(&mut spam, &mut series, &mut writes).await;
    }

    /// Takes what is still queued, then writes (one attempt each) until everything is
    /// written or the flush timeout passes; what is left then is given up and counted.
    async fn flush(
        &mut self,
        spam: &mut SpamFilter,
        series: &mut SeriesCache,
        writes: &mut Writes,
    ) {
        self.stop.cancel();
        self.queue.close();
        while let Ok(occurrence) = self.queue.try_recv() {
            self.observe(&occurrence, spam, series);
        }
        // A flush timeout too long to add to the clock waits for every write.
        let deadline = Instant::now().checked_add(self.config.flush_timeout());
        loop {
            self.start_writes(series, writes);
            if writes.is_empty() {
                return;
            }
            let next = match deadline {
                Some(deadline) => tokio::time::timeout_at(deadline, writes.join_next()).await,
                None => Ok(writes.join_next().await),
            };
            match next {
                Ok(Some(done)) => self.finished(done, series),
                Ok(None) => return,
                Err(_elapsed) => break,
            }
        }
        let unstarted = series.abandon_pending() as u64;
        Counters::add(&self.counters.dropped, unstarted);
        writes.abort_all();
        let mut cut_off = 0;
        while let Some(done) = writes.join_next().await {
            match done {
                // Finished just before the abort reached it.
                Ok((_, outcome)) => self.count(outcome),
                Err(_) => cut_off += 1,
            }
        }
        Counters::add(&self.counters.failed, cut_off);
        tracing::warn!(
            unstarted,
            cut_off,
            "event recorder shut down before every event was written"
        );
    }

    fn observe(
        &mut self,
        occurrence: &Occurrence,
        spam: &mut SpamFilter,
        series: &mut SeriesCache,
    ) {
        let now = Instant::now();
        if !spam.allow(occurrence, now) {
            let filtered = Counters::add(&self.counters.spam_filtered, 1);
            tracing::debug!(
                regarding = ?occurrence.regarding.name,
                reason = %occurrence.reason,
                filtered,
                "event dropped by the spam filter"
            );
            return;
        }
        match series.observe(occurrence, now) {
            Observed::Dropped => {
                let dropped = Counters::add(&self.counters.dropped, 1);
                if !std::mem::replace(&mut self.overflowing, true) {
                    tracing::warn!(
                        regarding = ?occurrence.regarding.name,
                        reason = %occurrence.reason,
                        dropped,
                        "too many events waiting to be written, dropping new ones"
                    );
                }
            }
            Observed::New => self.overflowing = false,
            Observed::Repeat => {}
        }
    }

    /// Starts writes from the pending queue while workers are free.
    fn start_writes(&self, series: &mut SeriesCache, writes: &mut Writes) {
        while writes.len() < self.config.workers() {
            let Some((key, event)) = series.next_write() else {
                return;
            };
            let (sink, stop) = (self.sink.clone(), self.stop.clone());
            writes.spawn(async move { (key, sink.record(&event, &stop).await) });
        }
    }

    fn finished(&self, done: Result<(SeriesKey, Outcome), JoinError>, series: &mut SeriesCache) {
        match done {
            Ok((key, outcome)) => {
                self.count(outcome);
                series.written(&key);
            }
            // Writes are never aborted before the flush's end and do not panic; should one
            // panic anyway, its series stays marked as being written and is never closed.
            Err(error) => {
                Counters::add(&self.counters.failed, 1);
                tracing::error!(%error, "an event write failed");
            }
        }
    }

    fn count(&self, outcome: Outcome) {
        match outcome {
            Outcome::Written => Counters::add(&self.counters.written, 1),
            Outcome::GivenUp => Counters::add(&self.counters.failed, 1),
        };
    }
}
