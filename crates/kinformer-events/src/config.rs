//! [`Config`]: the recorder's queue, workers, retries, series window, spam filter and flush.

use std::time::Duration;

use kinformer_core::Backoff;

use crate::error::{Error, Result};

/// How a [`Recorder`](crate::Recorder) queues, filters, folds and writes events.
///
/// The defaults are client-go's where it has the setting (`tools/events` for the queue,
/// workers, attempts, retry period and series window; `tools/record`'s spam filter for the
/// burst and refill); the request and flush timeouts are kinformer's own.
///
/// Each setting has a `with_` setter and a getter of the same name. A setter refuses a value
/// the recorder cannot work with (a zero count, a zero period) with
/// [`Error::InvalidConfig`], so a `Config` always holds values the recorder can use.
///
/// ```
/// use std::time::Duration;
/// use kinformer_events::{Config, Error};
///
/// let config = Config::default()
///     .with_queue_capacity(100)?
///     .with_retry_period(Duration::from_secs(1))?;
/// assert_eq!(config.queue_capacity(), 100);
/// assert_eq!(config.workers(), 8);
/// assert!(matches!(Config::default().with_spam_burst(0), Err(Error::InvalidConfig(_))));
/// # Ok::<(), Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    queue_capacity: usize,
    workers: usize,
    /// [`Backoff::EVENT_RECORDING`] with this config's attempts and retry period.
    retry: Backoff,
    request_timeout: Duration,
    series_window: Duration,
    spam_burst: u32,
    spam_refill: Duration,
    flush_timeout: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            queue_capacity: 1000,
            workers: 8,
            retry: Backoff::EVENT_RECORDING,
            request_timeout: Duration::from_secs(10),
            series_window: Duration::from_secs(6 * 60),
            spam_burst: 25,
            spam_refill: Duration::from_secs(5 * 60),
            flush_timeout: Duration::from_secs(10),
        }
    }
}

/// `value`, unless it is zero: then the error naming `setting`.
fn at_least_one<T: PartialEq + Default>(setting: &str, value: T) -> Result<T> {
    if value == T::default() {
        return Err(Error::InvalidConfig(format!(
            "{setting} must be at least 1"
        )));
    }
    Ok(value)
}

/// `period`, unless it is zero: then the error naming `setting`.
fn longer_than_zero(setting: &str, period: Duration) -> Result<Duration> {
    if period.is_zero() {
        return Err(Error::InvalidConfig(format!(
            "{setting} must be longer than zero"
        )));
    }
    Ok(period)
}

impl Config {
    /// Sets [`queue_capacity`](Self::queue_capacity).
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] for zero.
    pub fn with_queue_capacity(mut self, queue_capacity: usize) -> Result<Self> {
        self.queue_capacity = at_least_one("queue_capacity", queue_capacity)?;
        Ok(self)
    }

    /// Events waiting for the background task, and new events waiting for a free worker:
    /// each stage holds at most this many, and drops (and counts) what comes beyond
    /// (client-go's `maxQueuedEvents`, 1000).
    pub fn queue_capacity(&self) -> usize {
        self.queue_capacity
    }

    /// Sets [`workers`](Self::workers).
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] for zero.
    pub fn with_workers(mut self, workers: usize) -> Result<Self> {
        self.workers = at_least_one("workers", workers)?;
        Ok(self)
    }

    /// Writes under way at once, each with its retries (client-go's `recordWorkers`, 8).
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Sets [`max_attempts`](Self::max_attempts).
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] for zero.
    pub fn with_max_attempts(mut self, max_attempts: u32) -> Result<Self> {
        self.retry = self
            .retry
            .with_steps(at_least_one("max_attempts", max_attempts)?)
            .map_err(|error| Error::InvalidConfig(format!("max_attempts: {error}")))?;
        Ok(self)
    }

    /// Attempts to write one event before it is given up (client-go's `maxTriesPerEvent`, 12).
    pub fn max_attempts(&self) -> u32 {
        // The preset has steps and the setter only ever sets them; 1 is never read.
        self.retry.steps().unwrap_or(1)
    }

    /// Sets [`retry_period`](Self::retry_period).
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] for zero.
    pub fn with_retry_period(mut self, retry_period: Duration) -> Result<Self> {
        let retry_period = longer_than_zero("retry_period", retry_period)?;
        self.retry = self.retry.with_initial(retry_period);
        Ok(self)
    }

    /// The wait between attempts, jittered by up to 25 % (client-go's `defaultSleepDuration`,
    /// 10 s).
    pub fn retry_period(&self) -> Duration {
        self.retry.initial()
    }

    /// The whole retry policy: [`Backoff::EVENT_RECORDING`] with
    /// [`max_attempts`](Self::max_attempts) as its steps and [`retry_period`](Self::retry_period)
    /// as its (constant) delay.
    ///
    /// ```
    /// use kinformer_core::Backoff;
    /// use kinformer_events::Config;
    ///
    /// let config = Config::default().with_max_attempts(3)?;
    /// let retry = config.retry_backoff();
    /// assert_eq!((retry.steps(), retry.jitter()), (Some(3), Backoff::EVENT_RECORDING.jitter()));
    /// # Ok::<(), kinformer_events::Error>(())
    /// ```
    pub fn retry_backoff(&self) -> Backoff {
        self.retry
    }

    /// Sets [`request_timeout`](Self::request_timeout).
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] for zero.
    pub fn with_request_timeout(mut self, request_timeout: Duration) -> Result<Self> {
        self.request_timeout = longer_than_zero("request_timeout", request_timeout)?;
        Ok(self)
    }

    /// How long one attempt may take before it counts as a transport failure (10 s).
    pub fn request_timeout(&self) -> Duration {
        self.request_timeout
    }

    /// Sets [`series_window`](Self::series_window).
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] for zero.
    pub fn with_series_window(mut self, series_window: Duration) -> Result<Self> {
        self.series_window = longer_than_zero("series_window", series_window)?;
        Ok(self)
    }

    /// A repeat within this time of the last occurrence joins its series (client-go's
    /// `finishTime`, 6 minutes).
    pub fn series_window(&self) -> Duration {
        self.series_window
    }

    /// Sets [`spam_burst`](Self::spam_burst).
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] for zero.
    pub fn with_spam_burst(mut self, spam_burst: u32) -> Result<Self> {
        self.spam_burst = at_least_one("spam_burst", spam_burst)?;
        Ok(self)
    }

    /// Events one reporter may record about one object at once (client-go's spam filter
    /// burst, 25).
    pub fn spam_burst(&self) -> u32 {
        self.spam_burst
    }

    /// Sets [`spam_refill`](Self::spam_refill).
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] for zero.
    pub fn with_spam_refill(mut self, spam_refill: Duration) -> Result<Self> {
        self.spam_refill = longer_than_zero("spam_refill", spam_refill)?;
        Ok(self)
    }

    /// The time one spam filter token takes to come back (client-go's: 5 minutes).
    pub fn spam_refill(&self) -> Duration {
        self.spam_refill
    }

    /// Sets [`flush_timeout`](Self::flush_timeout); any value works (zero gives up at once
    /// whatever is unwritten at shutdown).
    #[must_use]
    pub fn with_flush_timeout(mut self, flush_timeout: Duration) -> Self {
        self.flush_timeout = flush_timeout;
        self
    }

    /// How long [`Recorder::shutdown`](crate::Recorder::shutdown) waits for the queued events
    /// to be written before it gives up the rest (10 s).
    pub fn flush_timeout(&self) -> Duration {
        self.flush_timeout
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_zero_count_or_period_is_refused_by_name() {
        let config = Config::default();
        let zero = Duration::ZERO;
        assert_eq!(
            config.clone().with_flush_timeout(zero).flush_timeout(),
            zero
        );
        for (refused, rule) in [
            (config.clone().with_queue_capacity(0), "queue_capacity"),
            (config.clone().with_workers(0), "workers"),
            (config.clone().with_max_attempts(0), "max_attempts"),
            (config.clone().with_spam_burst(0), "spam_burst"),
            (config.clone().with_retry_period(zero), "retry_period"),
            (config.clone().with_request_timeout(zero), "request_timeout"),
            (config.clone().with_series_window(zero), "series_window"),
            (config.with_spam_refill(zero), "spam_refill"),
        ] {
            match refused {
                Err(Error::InvalidConfig(message)) => {
                    assert!(message.starts_with(rule), "{rule}: {message}");
                }
                other => panic!("{rule}: {other:?}"),
            }
        }
    }

    #[test]
    fn accepted_values_are_stored() {
        let second = Duration::from_secs(1);
        let config = Config::default()
            .with_queue_capacity(3)
            .and_then(|c| c.with_workers(2))
            .and_then(|c| c.with_max_attempts(4))
            .and_then(|c| c.with_retry_period(second))
            .and_then(|c| c.with_request_timeout(second * 2))
            .and_then(|c| c.with_series_window(second * 3))
            .and_then(|c| c.with_spam_burst(5))
            .and_then(|c| c.with_spam_refill(second * 4))
            .unwrap();
        assert_eq!(
            (
                config.queue_capacity(),
                config.workers(),
                config.max_attempts(),
                config.spam_burst()
            ),
            (3, 2, 4, 5)
        );
        assert_eq!(
            (
                config.retry_period(),
                config.request_timeout(),
                config.series_window(),
                config.spam_refill()
            ),
            (second, second * 2, second * 3, second * 4)
        );
    }
}
