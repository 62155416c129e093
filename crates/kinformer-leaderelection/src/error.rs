//! The crate's [`Error`] and [`Result`].

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a config setting was refused, an elector or a lease lock could not be built, or a lease
/// request failed.
///
/// Setting and building check their input ([`InvalidConfig`](Self::InvalidConfig),
/// [`EmptyIdentity`](Self::EmptyIdentity), [`InvalidLease`](Self::InvalidLease)); the
/// [`LeaseLock`](crate::LeaseLock) calls answer the rest. An elector never returns the lock
/// errors: it logs them and tries again, as client-go does.
///
/// ```
/// use kinformer_leaderelection::{Config, Error, RestLeaseLock};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let sim = kinformer_sim::Sim::builder().start().await?;
/// let client = kinformer_rest::Client::new(sim.service());
/// assert!(matches!(RestLeaseLock::new(client, "default", ""), Err(Error::InvalidLease(_))));
/// let refused = Config::default().with_renew_deadline(std::time::Duration::from_secs(20));
/// assert!(matches!(refused, Err(Error::InvalidConfig(_))));
/// # Ok(()) }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A [`Config`](crate::Config) setter was given a duration that breaks one of its rules
    /// (named here).
    #[error("invalid leader election config: {0}")]
    InvalidConfig(&'static str),
    /// The candidate's identity is empty.
    #[error("leader election identity is empty")]
    EmptyIdentity,
    /// The lease's namespace or name is not one the API server accepts (named here).
    #[error("invalid lease: {0}")]
    InvalidLease(&'static str),
    /// 409: the lease changed since the resourceVersion an update was based on, or a create
    /// found it already there.
    #[error("the lease changed since it was read")]
    Conflict,
    /// 404 on an update: the lease was deleted since it was read.
    #[error("the lease does not exist")]
    NotFound,
    /// The server answered with a lease without `metadata.resourceVersion`, which no update
    /// could be based on.
    #[error("the server answered a lease without resourceVersion")]
    MissingResourceVersion,
    /// Any other failure of a request to the API server: transport, timeout, another status,
    /// a body that did not decode.
    #[error("lease request failed")]
    Request(#[source] kinformer_api::Error),
}

impl Error {
    /// The error for a failed lease call: a 409 is [`Error::Conflict`], a 404
    /// [`Error::NotFound`], anything else [`Error::Request`].
    pub(crate) fn from_api(error: kinformer_api::Error) -> Self {
        match error {
            kinformer_api::Error::Conflict { .. } | kinformer_api::Error::AlreadyExists(_) => {
                Self::Conflict
            }
            kinformer_api::Error::NotFound(_) => Self::NotFound,
            error => Self::Request(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;

    fn answer(code: i32) -> kinformer_api::Error {
        kinformer_api::Error::from_rest(kinformer_rest::Error::from_status(Status {
            code: Some(code),
            ..Status::default()
        }))
    }

    #[test]
    fn is_send_sync_and_prints_only_its_own_level() {
        fn assert_send_sync<T: Send + Sync + 'static>() {}
        assert_send_sync::<Error>();
        let error = Error::from_api(answer(500));
        assert_eq!(error.to_string(), "lease request failed");
        assert!(std::error::Error::source(&error).is_some());
    }

    #[test]
    fn maps_409_to_conflict_and_404_to_not_found() {
        assert!(matches!(Error::from_api(answer(409)), Error::Conflict));
        assert!(matches!(Error::from_api(answer(404)), Error::NotFound));
        assert!(matches!(Error::from_api(answer(503)), Error::Request(_)));
    }
}
