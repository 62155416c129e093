//! [`Config`]: the reflector's knobs, with client-go's defaults.

use std::time::Duration;

use kinformer_core::Backoff;

/// The smallest `min_watch_timeout` accepted: client-go ignores smaller values.
pub const MIN_WATCH_TIMEOUT: Duration = Duration::from_secs(300);

/// Reflector settings. `Default` gives client-go's behaviour; each setting has a `with_` setter
/// and a getter of the same name.
///
/// The fields are private: a setter is the only way in, so every value the reflector reads is
/// one its setter stored (a watch timeout floor of at least 300 s, no zero resync period, no
/// zero page size). Any backoff or initial-events timeout works, `Duration::MAX` included.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use kinformer_reflector::Config;
///
/// let config = Config::default()
///     .with_name("pods")
///     .with_resync_period(Duration::from_secs(600))
///     .with_min_watch_timeout(Duration::from_secs(60)) // too small: raised to 300 s
///     .with_seed(7);
/// assert_eq!(config.name(), "pods");
/// assert_eq!(config.min_watch_timeout(), Duration::from_secs(300));
/// assert_eq!(config.resync_period(), Some(Duration::from_secs(600)));
/// assert!(config.streaming_list());
/// ```
///
/// The floor cannot be set around the setter:
/// ```compile_fail
/// # use std::time::Duration;
/// let mut config = kinformer_reflector::Config::default();
/// config.min_watch_timeout = Duration::from_secs(1);
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    name: String,
    page_size: Option<u32>,
    min_watch_timeout: Duration,
    resync_period: Option<Duration>,
    streaming_list: bool,
    initial_events_timeout: Duration,
    backoff: Backoff,
    seed: Option<u64>,
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
            backoff: Backoff::REFLECTOR,
            seed: None,
        }
    }
}

impl Config {
    /// Sets the name used in logs and spans (default `reflector`).
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The name used in logs and spans.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Forces a page size for every list (client-go's `WatchListPageSize`); `0` restores the
    /// automatic choice.
    #[must_use]
    pub fn with_page_size(mut self, page_size: u32) -> Self {
        self.page_size = (page_size > 0).then_some(page_size);
        self
    }

    /// The forced page size; `None` applies client-go's automatic choice (500 for
    /// `resourceVersion` `"0"` and `""`, unpaginated for a relist at a known RV unless the first
    /// list showed the watch cache is off).
    pub fn page_size(&self) -> Option<u32> {
        self.page_size
    }

    /// Sets the minimum watch timeout; values below [`MIN_WATCH_TIMEOUT`] (300 s) are raised to
    /// it, as client-go does.
    #[must_use]
    pub fn with_min_watch_timeout(mut self, timeout: Duration) -> Self {
        self.min_watch_timeout = timeout.max(MIN_WATCH_TIMEOUT);
        self
    }

    /// The smallest `timeoutSeconds` a watch asks for: each draws uniformly from
    /// `[min_watch_timeout, 2 * min_watch_timeout]`. Never below [`MIN_WATCH_TIMEOUT`].
    pub fn min_watch_timeout(&self) -> Duration {
        self.min_watch_timeout
    }

    /// Calls `Store::resync` every `period`; a zero period disables it (the default).
    #[must_use]
    pub fn with_resync_period(mut self, period: Duration) -> Self {
        self.resync_period = (!period.is_zero()).then_some(period);
        self
    }

    /// How often `Store::resync` is called; `None`: never.
    pub fn resync_period(&self) -> Option<Duration> {
        self.resync_period
    }

    /// Enables or disables streaming lists (on by default).
    #[must_use]
    pub fn with_streaming_list(mut self, enabled: bool) -> Self {
        self.streaming_list = enabled;
        self
    }

    /// Whether a streaming list (`sendInitialEvents`) is tried before list+watch (on by
    /// default, like client-go 1.35+). Ignored for sources that do not support it.
    pub fn streaming_list(&self) -> bool {
        self.streaming_list
    }

    /// Sets the bounded wait for the initial-events-end bookmark (default 10 s).
    #[must_use]
    pub fn with_initial_events_timeout(mut self, timeout: Duration) -> Self {
        self.initial_events_timeout = timeout;
        self
    }

    /// How long a streaming list may go without the initial-events-end bookmark (counted from
    /// the last object event, or from the request) before the reflector gives up on streaming
    /// lists and uses list+watch.
    pub fn initial_events_timeout(&self) -> Duration {
        self.initial_events_timeout
    }

    /// Sets the retry backoff (default [`Backoff::REFLECTOR`], client-go's).
    #[must_use]
    pub fn with_backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    /// The delays between retries, shared by relists and re-watches. Its
    /// [`steps`](Backoff::steps) only stop the delays' growth, as in client-go: the reflector
    /// retries for as long as it runs.
    pub fn backoff(&self) -> Backoff {
        self.backoff
    }

    /// Seeds the random draws (jitter, watch timeouts), for reproducible tests.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The seed for the jitter and timeout draws; `None` seeds from the process's random state.
    pub fn seed(&self) -> Option<u64> {
        self.seed
    }
}
