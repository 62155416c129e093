//! [`Config`]: the reflector's knobs, with client-go's defaults.

use std::time::Duration;

use crate::backoff::BackoffConfig;

/// The smallest `min_watch_timeout` accepted: client-go ignores smaller values.
pub const MIN_WATCH_TIMEOUT: Duration = Duration::from_secs(300);

/// Reflector settings. `Default` gives client-go's behaviour; setters chain.
///
/// The settings a setter validates (the watch timeout floor, the resync period) are private:
/// the setter is the only way in, so no value it would refuse reaches the reflector. The public
/// fields take any value: each is read as its setter would store it (a zero `page_size` is the
/// automatic choice; any backoff or initial-events timeout works, `Duration::MAX` included).
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use kinformer_reflector::Config;
///
/// let config = Config::default()
///     .name("pods")
///     .resync_period(Duration::from_secs(600))
///     .min_watch_timeout(Duration::from_secs(60)) // too small: raised to 300 s
///     .seed(7);
/// assert_eq!(config.watch_timeout_floor(), Duration::from_secs(300));
/// assert_eq!(config.resync_every(), Some(Duration::from_secs(600)));
/// assert!(config.streaming_list);
/// ```
///
/// The floor cannot be set around the setter:
/// ```compile_fail
/// # use std::time::Duration;
/// let mut config = kinformer_reflector::Config::default();
/// config.min_watch_timeout = Duration::from_secs(1);
/// ```
///
/// Nor can a zero resync period, which the setter turns into "never":
/// ```compile_fail
/// # use std::time::Duration;
/// let mut config = kinformer_reflector::Config::default();
/// config.resync_period = Some(Duration::ZERO);
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Config {
    /// Name used in logs and spans.
    pub name: String,
    /// Page size for every list (client-go's `WatchListPageSize`); `None` applies client-go's
    /// automatic choice (500 for `resourceVersion` `"0"` and `""`, unpaginated for a relist at a
    /// known RV unless the first list showed the watch cache is off).
    pub page_size: Option<u32>,
    /// Each watch asks the server for a `timeoutSeconds` drawn uniformly from
    /// `[min_watch_timeout, 2 * min_watch_timeout]`. Never below [`MIN_WATCH_TIMEOUT`].
    min_watch_timeout: Duration,
    /// How often to call `Store::resync`; `None` never does.
    resync_period: Option<Duration>,
    /// Try a streaming list (`sendInitialEvents`) before list+watch (on by default, like
    /// client-go 1.35+). Ignored for sources that do not support it.
    pub streaming_list: bool,
    /// How long a streaming list may go without the initial-events-end bookmark (counted from the
    /// last object event, or from the request) before the reflector gives up on streaming lists
    /// and uses list+watch.
    pub initial_events_timeout: Duration,
    /// Delays between retries.
    pub backoff: BackoffConfig,
    /// Seed for the jitter and timeout draws; `None` seeds from the process's random state.
    pub seed: Option<u64>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            name: "reflector".to_owned(),
            page_size: None,
            min_watch_timeout: MIN_WATCH_TIMEOUT,
            resync_period: None,
            streaming_list: true,
            initial_events_timeout: Duration::from_secs(10),
            backoff: BackoffConfig::default(),
            seed: None,
        }
    }
}

impl Config {
    /// Sets the name used in logs and spans.
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Forces a page size for every list (client-go's `WatchListPageSize`); `0` restores the
    /// automatic choice.
    #[must_use]
    pub fn page_size(mut self, page_size: u32) -> Self {
        self.page_size = Some(page_size);
        self
    }

    /// Sets the minimum watch timeout; values below 300 s are raised to 300 s.
    #[must_use]
    pub fn min_watch_timeout(mut self, timeout: Duration) -> Self {
        self.min_watch_timeout = timeout.max(MIN_WATCH_TIMEOUT);
        self
    }

    /// The smallest `timeoutSeconds` a watch asks for (each draws from `[floor, 2 * floor]`).
    pub fn watch_timeout_floor(&self) -> Duration {
        self.min_watch_timeout
    }

    /// How often `Store::resync` is called; `None`: never.
    pub fn resync_every(&self) -> Option<Duration> {
        self.resync_period
    }

    /// Calls `Store::resync` every `period` (a zero period disables it).
    #[must_use]
    pub fn resync_period(mut self, period: Duration) -> Self {
        self.resync_period = (!period.is_zero()).then_some(period);
        self
    }

    /// Enables or disables streaming lists.
    #[must_use]
    pub fn streaming_list(mut self, enabled: bool) -> Self {
        self.streaming_list = enabled;
        self
    }

    /// Sets the bounded wait for the initial-events-end bookmark.
    #[must_use]
    pub fn initial_events_timeout(mut self, timeout: Duration) -> Self {
        self.initial_events_timeout = timeout;
        self
    }

    /// Sets the retry backoff.
    #[must_use]
    pub fn backoff(mut self, backoff: BackoffConfig) -> Self {
        self.backoff = backoff;
        self
    }

    /// Seeds the random draws (jitter, watch timeouts), for reproducible tests.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }
}
