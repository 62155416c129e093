//! The crate's error type.

use std::time::Duration;

/// A setting a queue cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// [`QueueConfig::with_low_priority_wait`](crate::QueueConfig::with_low_priority_wait) over
    /// a year.
    #[error("low_priority_wait {0:?} is over the longest delay a queue holds (a year)")]
    LowPriorityWait(Duration),
}
