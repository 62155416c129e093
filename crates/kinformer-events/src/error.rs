//! The crate's [`Error`] and [`Result`].

/// Why a [`Recorder`](crate::Recorder) or [`Reporter`](crate::Reporter) could not be made.
///
/// Recording itself never fails for the caller: an event that cannot be queued or written is
/// dropped, counted in [`Stats`](crate::Stats) and logged, as client-go does.
///
/// ```
/// use kinformer_events::{Config, Error, Reporter};
///
/// assert!(matches!(Reporter::new("Not/A/Name"), Err(Error::InvalidReporter(_))));
/// assert!(matches!(Config::default().workers(0).validate(), Err(Error::InvalidConfig(_))));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The [`Config`](crate::Config) breaks one of its rules (named in the message).
    #[error("invalid event recorder config: {0}")]
    InvalidConfig(String),
    /// A reporting controller or instance the API server would refuse (the message says why).
    #[error("invalid event reporter: {0}")]
    InvalidReporter(String),
}

/// This crate's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;
