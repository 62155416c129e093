//! The command's one error type, reported as one line.

use std::error::Error as _;
use std::io::Write as _;
use std::process::ExitCode;

/// Everything that can stop a command.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// Loading the kubeconfig (its own message says which file and what is wrong).
    #[error(transparent)]
    Config(kinformer_rest::Error),
    /// Building the client from a loaded configuration.
    #[error("cannot connect")]
    Client(#[source] kinformer_rest::Error),
    /// The cache never synced before the command was stopped.
    #[error("the cache never synced{}", last_error.as_ref().map_or_else(String::new, |e| format!(": last error: {e}")))]
    NeverSynced {
        /// The last list or watch failure, on one line.
        last_error: Option<String>,
    },
    /// Discovering the server's resources failed, or a resource name is ambiguous.
    #[error("discovery")]
    Discovery(#[source] kinformer_discovery::Error),
    /// The resource name matched nothing the server serves.
    #[error("the server has no resource {0:?} (try a plural, singular, kind or short name)")]
    UnknownResource(String),
    /// The embedded server failed.
    #[error("embedded API server")]
    Sim(#[from] kinformer_sim::Error),
    /// A namespace or selector the API server would refuse.
    #[error("invalid option")]
    Source(#[from] kinformer_listwatch::Error),
    /// The informer stopped with an error.
    #[error("informer")]
    Informer(#[from] kinformer::informer::Error),
    /// Reading or writing a file or a terminal.
    #[error("i/o")]
    Io(#[from] std::io::Error),
    /// Encoding output.
    #[error("encoding JSON")]
    Json(#[from] serde_json::Error),
}

/// Prints `kinformer: <error>: <cause>: ...` on one line and returns exit code 1.
pub(crate) fn report(error: &CliError) -> ExitCode {
    let mut line = format!("kinformer: {error}");
    let mut source = error.source();
    while let Some(cause) = source {
        line.push_str(": ");
        line.push_str(&cause.to_string());
        source = cause.source();
    }
    let _ = writeln!(std::io::stderr(), "{line}");
    ExitCode::FAILURE
}
