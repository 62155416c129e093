//! [`Config`]: the recorder's queue, workers, retries, series window, spam filter and flush.

use std::time::Duration;

use crate::error::{Error, Result};

/// How a [`Recorder`](crate::Recorder) queues, filters, folds and writes events.
///
/// The defaults are client-go's where it has the setting (`tools/events` for the queue,
/// workers, attempts, retry period and series window; `tools/record`'s spam filter for the
/// burst and refill); the request and flush timeouts are kinformer's own.
///
/// ```
/// use std::time::Duration;
/// use kinformer_events::Config;
///
/// let config = Config::default().queue_capacity(100).retry_period(Duration::from_secs(1));
/// assert_eq!(config.queue_capacity, 100);
/// assert_eq!(config.workers, 8);
/// assert!(config.validate().is_ok());
/// assert!(Config::default().spam_burst(0).validate().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    /// Events waiting for the background task, and new events waiting for a free worker:
    /// each stage holds at most this many, and drops (and counts) what comes beyond
    /// (client-go's `maxQueuedEvents`, 1000).
    pub queue_capacity: usize,
    /// Writes under way at once, each with its retries (client-go's `recordWorkers`, 8).
    pub workers: usize,
    /// Attempts to write one event before it is given up (client-go's `maxTriesPerEvent`, 12).
    pub max_attempts: u32,
    /// The wait between attempts, jittered by up to 25 % (client-go's `defaultSleepDuration`,
    /// 10 s).
    pub retry_period: Duration,
    /// How long one attempt may take before it counts as a transport failure (10 s).
    pub request_timeout: Duration,
    /// A repeat within this time of the last occurrence joins its series (client-go's
    /// `finishTime`, 6 minutes).
    pub series_window: Duration,
    /// Events one reporter may record about one object at once (client-go's spam filter
    /// burst, 25).
    pub spam_burst: u32,
    /// The time one spam filter token takes to come back (client-go's: 5 minutes).
    pub spam_refill: Duration,
    /// How long [`Recorder::shutdown`](crate::Recorder::shutdown) waits for the queued events
    /// to be written before it gives up the rest (10 s).
    pub flush_timeout: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            queue_capacity: 1000,
            workers: 8,
            max_attempts: 12,
            retry_period: Duration::from_secs(10),
            request_timeout: Duration::from_secs(10),
            series_window: Duration::from_secs(6 * 60),
            spam_burst: 25,
            spam_refill: Duration::from_secs(5 * 60),
            flush_timeout: Duration::from_secs(10),
        }
    }
}

impl Config {
    /// Sets [`queue_capacity`](Self::queue_capacity).
    #[must_use]
    pub fn queue_capacity(mut self, queue_capacity: usize) -> Self {
        self.queue_capacity = queue_capacity;
        self
    }

    /// Sets [`workers`](Self::workers).
    #[must_use]
    pub fn workers(mut self, workers: usize) -> Self {
        self.workers = workers;
        self
    }

    /// Sets [`max_attempts`](Self::max_attempts).
    #[must_use]
    pub fn max_attempts(mut self, max_attempts: u32) -> Self {
        self.max_attempts = max_attempts;
        self
    }

    /// Sets [`retry_period`](Self::retry_period).
    #[must_use]
    pub fn retry_period(mut self, retry_period: Duration) -> Self {
        self.retry_period = retry_period;
        self
    }

    /// Sets [`request_timeout`](Self::request_timeout).
    #[must_use]
    pub fn request_timeout(mut self, request_timeout: Duration) -> Self {
        self.request_timeout = request_timeout;
        self
    }

    /// Sets [`series_window`](Self::series_window).
    #[must_use]
    pub fn series_window(mut self, series_window: Duration) -> Self {
        self.series_window = series_window;
        self
    }

    /// Sets [`spam_burst`](Self::spam_burst).
    #[must_use]
    pub fn spam_burst(mut self, spam_burst: u32) -> Self {
        self.spam_burst = spam_burst;
        self
    }

    /// Sets [`spam_refill`](Self::spam_refill).
    #[must_use]
    pub fn spam_refill(mut self, spam_refill: Duration) -> Self {
        self.spam_refill = spam_refill;
        self
    }

    /// Sets [`flush_timeout`](Self::flush_timeout).
    #[must_use]
    pub fn flush_timeout(mut self, flush_timeout: Duration) -> Self {
        self.flush_timeout = flush_timeout;
        self
    }

    /// Checks every count is at least one and every period but the flush timeout longer than
    /// zero (a zero flush timeout gives up at once whatever is unwritten at shutdown).
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] naming the first broken rule.
    pub fn validate(&self) -> Result<()> {
        let counts = [
            ("queue_capacity", self.queue_capacity),
            ("workers", self.workers),
            ("max_attempts", self.max_attempts as usize),
            ("spam_burst", self.spam_burst as usize),
        ];
        if let Some((name, _)) = counts.iter().find(|(_, count)| *count == 0) {
            return Err(Error::InvalidConfig(format!("{name} must be at least 1")));
        }
        let periods = [
            ("retry_period", self.retry_period),
            ("request_timeout", self.request_timeout),
            ("series_window", self.series_window),
            ("spam_refill", self.spam_refill),
        ];
        if let Some((name, _)) = periods.iter().find(|(_, period)| period.is_zero()) {
            return Err(Error::InvalidConfig(format!(
                "{name} must be longer than zero"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_zero_count_or_period_is_named() {
        assert!(Config::default().validate().is_ok());
        assert!(
            Config::default()
                .flush_timeout(Duration::ZERO)
                .validate()
                .is_ok()
        );
        for (bad, rule) in [
            (Config::default().queue_capacity(0), "queue_capacity"),
            (Config::default().workers(0), "workers"),
            (Config::default().max_attempts(0), "max_attempts"),
            (Config::default().spam_burst(0), "spam_burst"),
            (
                Config::default().retry_period(Duration::ZERO),
                "retry_period",
            ),
            (
                Config::default().request_timeout(Duration::ZERO),
                "request_timeout",
            ),
            (
                Config::default().series_window(Duration::ZERO),
                "series_window",
            ),
            (Config::default().spam_refill(Duration::ZERO), "spam_refill"),
        ] {
            match bad.validate() {
                Err(Error::InvalidConfig(message)) => {
                    assert!(message.starts_with(rule), "{rule}: {message}");
                }
                other => panic!("{rule}: {other:?}"),
            }
        }
    }
}
