//! The crate's [`Error`] and [`Result`].

/// Why a [`Config`](crate::Config) setting or a [`Reporter`](crate::Reporter) was refused.
///
/// Recording itself never fails for the caller: an event that cannot be queued or written is
/// dropped, counted in [`Stats`](crate::Stats) and logged, as client-go does.
///
/// ```
/// use kinformer_events::{Config, Error, Reporter};
///
/// assert!(matches!(Reporter::new("Not/A/Name"), Err(Error::InvalidReporter(_))));
/// assert!(matches!(Config::default().with_workers(0), Err(Error::InvalidConfig(_))));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A [`Config`](crate::Config) setter was given a value the recorder cannot work with (the
    /// setting and its rule are in the message).
    #[error("invalid event recorder config: {0}")]
    InvalidConfig(String),
    /// A reporting controller or instance the API server would refuse (the message says why).
    #[error("invalid event reporter: {0}")]
    InvalidReporter(String),
}

/// This crate's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;
