//! [`ControllerConfig`]: a controller's name and how many objects it reconciles at once.

use std::num::NonZeroUsize;

/// How many reconciles run at once by default: a bounded number, so that a backlog after a
/// restart cannot open a request per object at once (controller-runtime's default is 1,
/// kube-rs's unbounded).
pub const DEFAULT_CONCURRENCY: NonZeroUsize = NonZeroUsize::new(4).expect("4 is not zero");

/// A controller's settings.
///
/// ```
/// use std::num::NonZeroUsize;
/// use kinformer_runtime::ControllerConfig;
///
/// let config = ControllerConfig::default()
///     .with_name("foo-controller")
///     .with_concurrency(NonZeroUsize::new(8).unwrap());
/// assert_eq!(config.name(), "foo-controller");
/// assert_eq!(config.concurrency().get(), 8);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerConfig {
    name: String,
    concurrency: NonZeroUsize,
}

impl Default for ControllerConfig {
    fn default() -> Self {
        Self {
            name: "controller".to_owned(),
            concurrency: DEFAULT_CONCURRENCY,
        }
    }
}

impl ControllerConfig {
    /// Sets the controller's name: its work queue's name and its log spans' (default
    /// `controller`).
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The controller's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Sets how many objects are reconciled at once, at most (default
    /// [`DEFAULT_CONCURRENCY`]); one object is never reconciled twice at once.
    #[must_use]
    pub fn with_concurrency(mut self, concurrency: NonZeroUsize) -> Self {
        self.concurrency = concurrency;
        self
    }

    /// How many objects are reconciled at once, at most.
    pub fn concurrency(&self) -> NonZeroUsize {
        self.concurrency
    }
}
