//! The crate's error type.

/// Errors from starting, controlling or serving the simulator.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Binding or accepting on the listening socket failed.
    #[error("could not bind the simulator's listener")]
    Bind(#[source] std::io::Error),
    /// Generating the TLS certificates or configuring rustls failed.
    #[error("could not set up TLS")]
    Tls(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// Writing a file (kubeconfig, port file) failed.
    #[error("could not write a file")]
    Io(#[source] std::io::Error),
    /// The simulator refused a control or API operation; the Kubernetes `Status` is attached.
    #[error("the simulator answered {code} {reason}: {message}")]
    Api {
        /// HTTP status code.
        code: u16,
        /// The Status reason (for example `NotFound`, `Conflict`).
        reason: String,
        /// The Status message.
        message: String,
    },
    /// A request body could not be read.
    #[error("could not read the request body")]
    Body(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// A watch stream was cut on purpose (fault injection or an abrupt drop).
    #[error("the watch stream was cut")]
    StreamCut,
}

/// A `Result` whose error defaults to this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
