//! [`Error`]: the typed failures of an [`Api`](crate::Api) call.

use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinitionCondition;
use kinformer_core::Status;
use kinformer_rest::Error as RestError;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why an [`Api`](crate::Api) call failed.
///
/// The answers a controller acts on have their own variant; everything else (transport,
/// timeouts, throttling, other statuses) is [`Error::Api`], whose REST error has client-go's
/// predicates (`is_timeout`, `is_too_many_requests`, ...). Each server answer keeps its REST
/// error as the [`source`](std::error::Error::source), with the server's [`Status`].
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_api::{Api, Error};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let sim = kinformer_sim::Sim::builder().start().await?;
/// # let client = kinformer_rest::Client::new(sim.service());
/// let configmaps: Api<ConfigMap> = Api::namespaced(client, "default");
/// match configmaps.get("missing").await {
///     Err(Error::NotFound(_)) => {} // gone: nothing to do
///     other => panic!("expected NotFound, got {other:?}"),
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// 404: the object (or the resource) does not exist.
    #[error("not found")]
    NotFound(#[source] RestError),
    /// 409 on a create: an object of that name exists.
    #[error("already exists")]
    AlreadyExists(#[source] RestError),
    /// 409 Conflict: the object changed since it was read (a stale resourceVersion, a delete
    /// precondition that no longer holds), or a server-side apply would take fields other
    /// managers own (`field_conflicts` lists them; `PatchParams::force` takes them).
    #[error("conflict{}", conflict_summary(.field_conflicts))]
    Conflict {
        /// Each field another manager owns with a different value; empty for a stale write.
        field_conflicts: Vec<FieldConflict>,
        /// The server's answer.
        #[source]
        source: RestError,
    },
    /// 422 Invalid: the object failed validation.
    #[error("invalid{}", invalid_summary(.causes))]
    Invalid {
        /// What was wrong, field by field.
        causes: Vec<StatusCause>,
        /// The server's answer.
        #[source]
        source: RestError,
    },
    /// 403: not allowed (RBAC, admission).
    #[error("forbidden")]
    Forbidden(#[source] RestError),
    /// Any other failure of the request: transport, timeout, throttling, another status, a
    /// body that did not decode.
    #[error("request failed")]
    Api(#[source] RestError),
    /// A paged list failed in a way no single request explains (the server repeated a
    /// continue token).
    #[error("list failed")]
    List(#[source] kinformer_pager::Error<RestError>),
    /// The object or patch could not be encoded as JSON.
    #[error("cannot encode the request body")]
    Encode(#[source] serde_json::Error),
    /// The response could not be decoded.
    #[error("cannot decode the response")]
    Decode(#[source] serde_json::Error),
    /// The call was not sent: it asks for what the server refuses for certain (an apply without
    /// a field manager, `force` without apply, one object of a namespaced resource through
    /// `Api::all`).
    #[error("invalid call: {0}")]
    Usage(&'static str),
    /// [`install_crd`](crate::install_crd): the API server refused the CRD's names (its
    /// `NamesAccepted` condition is `False`, e.g. a plural another CRD of the group holds).
    #[error(
        "CustomResourceDefinition {crd}: NamesAccepted is False ({}): {}",
        condition_reason(.condition), condition_message(.condition)
    )]
    NamesNotAccepted {
        /// The CRD's name.
        crd: String,
        /// The `NamesAccepted` condition, with the server's reason and message.
        condition: Box<CustomResourceDefinitionCondition>,
    },
    /// [`install_crd`](crate::install_crd): the CRD was not `Established` within the timeout.
    #[error("CustomResourceDefinition {crd} is not established after {timeout:?}: {}", pending_summary(.pending))]
    NotEstablished {
        /// The CRD's name.
        crd: String,
        /// How long it was waited for.
        timeout: Duration,
        /// The conditions (`NamesAccepted`, `Established`) not yet `True` when the wait
        /// ended, as last seen; one the server never reported has status `Unknown`.
        pending: Vec<CustomResourceDefinitionCondition>,
    },
}

fn condition_reason(condition: &CustomResourceDefinitionCondition) -> &str {
    condition.reason.as_deref().unwrap_or("no reason given")
}

fn condition_message(condition: &CustomResourceDefinitionCondition) -> &str {
    condition.message.as_deref().unwrap_or("no message given")
}

fn pending_summary(pending: &[CustomResourceDefinitionCondition]) -> String {
    pending
        .iter()
        .map(|c| {
            let mut text = format!("{} is {}", c.type_, c.status);
            if let Some(reason) = &c.reason {
                text.push_str(&format!(" ({reason})"));
            }
            if let Some(message) = &c.message {
                text.push_str(&format!(": {message}"));
            }
            text
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A field that a server-side apply would take from another manager.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct FieldConflict {
    /// The manager that owns the field, e.g. `kubectl-client-side-apply`.
    pub manager: String,
    /// The field path, e.g. `.data.k` or `.spec.replicas`.
    pub field: String,
    /// The server's message, e.g. `conflict with "a"`.
    pub message: String,
}

/// One reason a request was refused (the API server's `StatusCause`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StatusCause {
    /// The field path, e.g. `metadata.name`; empty when the cause is not about one field.
    pub field: String,
    /// A machine-readable reason, e.g. `FieldValueRequired`.
    pub reason: String,
    /// What was wrong, for people.
    pub message: String,
}

impl Error {
    /// Sorts a REST error into the variant a controller acts on.
    pub fn from_rest(err: RestError) -> Self {
        if err.is_not_found() {
            Self::NotFound(err)
        } else if err.is_already_exists() {
            Self::AlreadyExists(err)
        } else if err.is_conflict() {
            let field_conflicts = field_conflicts(err.status());
            Self::Conflict {
                field_conflicts,
                source: err,
            }
        } else if is_invalid(&err) {
            Self::Invalid {
                causes: causes(err.status()),
                source: err,
            }
        } else if err.is_forbidden() {
            Self::Forbidden(err)
        } else {
            Self::Api(err)
        }
    }

    /// The server's `Status`, when the server answered.
    pub fn status(&self) -> Option<&Status> {
        self.rest_error().and_then(RestError::status)
    }

    /// The REST error, when the call reached the REST client.
    pub fn rest_error(&self) -> Option<&RestError> {
        match self {
            Self::NotFound(e)
            | Self::AlreadyExists(e)
            | Self::Forbidden(e)
            | Self::Api(e)
            | Self::Conflict { source: e, .. }
            | Self::Invalid { source: e, .. } => Some(e),
            Self::List(e) => e.api_error(),
            Self::Encode(_)
            | Self::Decode(_)
            | Self::Usage(_)
            | Self::NamesNotAccepted { .. }
            | Self::NotEstablished { .. } => None,
        }
    }

    /// True for [`Error::NotFound`].
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::NotFound(_))
    }

    /// True for [`Error::Conflict`]: what [`retry_on_conflict`](crate::retry_on_conflict)
    /// retries.
    pub fn is_conflict(&self) -> bool {
        matches!(self, Self::Conflict { .. })
    }
}

impl From<RestError> for Error {
    fn from(err: RestError) -> Self {
        Self::from_rest(err)
    }
}

/// 422 or reason `Invalid` (client-go `IsInvalid`).
fn is_invalid(err: &RestError) -> bool {
    match err.status().and_then(|s| s.reason.as_deref()) {
        Some("Invalid") => true,
        Some(r) if !r.is_empty() => false,
        _ => err.status_code() == Some(422),
    }
}

fn status_causes(
    status: Option<&Status>,
) -> impl Iterator<Item = &k8s_openapi::apimachinery::pkg::apis::meta::v1::StatusCause> {
    status
        .and_then(|s| s.details.as_ref())
        .and_then(|d| d.causes.as_deref())
        .unwrap_or_default()
        .iter()
}

fn causes(status: Option<&Status>) -> Vec<StatusCause> {
    status_causes(status)
        .map(|c| StatusCause {
            field: c.field.clone().unwrap_or_default(),
            reason: c.reason.clone().unwrap_or_default(),
            message: c.message.clone().unwrap_or_default(),
        })
        .collect()
}

/// The `FieldManagerConflict` causes of an apply conflict; the manager is the quoted name in
/// the message (`conflict with "a"`, `conflict with "a" using apps/v1`).
fn field_conflicts(status: Option<&Status>) -> Vec<FieldConflict> {
    status_causes(status)
        .filter(|c| c.reason.as_deref() == Some("FieldManagerConflict"))
        .map(|c| {
            let message = c.message.clone().unwrap_or_default();
            let manager = message
                .split('"')
                .nth(1)
                .map(str::to_owned)
                .unwrap_or_default();
            FieldConflict {
                manager,
                field: c.field.clone().unwrap_or_default(),
                message,
            }
        })
        .collect()
}

fn conflict_summary(conflicts: &[FieldConflict]) -> String {
    match conflicts {
        [] => String::new(),
        [one] => format!(" with {:?} on {}", one.manager, one.field),
        many => format!(" on {} fields", many.len()),
    }
}

fn invalid_summary(causes: &[StatusCause]) -> String {
    let fields: Vec<&str> = causes
        .iter()
        .map(|c| c.field.as_str())
        .filter(|f| !f.is_empty())
        .collect();
    if fields.is_empty() {
        String::new()
    } else {
        format!(": {}", fields.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{StatusCause, StatusDetails};

    fn status(code: i32, reason: &str, causes: Vec<StatusCause>) -> RestError {
        RestError::from_status(Status {
            status: Some("Failure".into()),
            code: Some(code),
            reason: Some(reason.into()),
            message: Some("m".into()),
            details: Some(StatusDetails {
                causes: Some(causes),
                ..StatusDetails::default()
            }),
            ..Status::default()
        })
    }

    fn cause(reason: &str, message: &str, field: &str) -> StatusCause {
        StatusCause {
            reason: Some(reason.into()),
            message: Some(message.into()),
            field: Some(field.into()),
        }
    }

    #[test]
    fn apply_conflicts_name_managers_and_fields() {
        let err = Error::from_rest(status(
            409,
            "Conflict",
            vec![
                cause("FieldManagerConflict", "conflict with \"a\"", ".data.k"),
                cause(
                    "FieldManagerConflict",
                    "conflict with \"b\" using apps/v1",
                    ".spec.replicas",
                ),
            ],
        ));
        let Error::Conflict {
            field_conflicts, ..
        } = &err
        else {
            panic!("{err:?}")
        };
        let named: Vec<(&str, &str)> = field_conflicts
            .iter()
            .map(|c| (c.manager.as_str(), c.field.as_str()))
            .collect();
        assert_eq!(named, [("a", ".data.k"), ("b", ".spec.replicas")]);
        assert!(err.is_conflict());
        assert_eq!(err.to_string(), "conflict on 2 fields");
    }

    #[test]
    fn answers_sort_into_variants() {
        assert!(Error::from_rest(status(404, "NotFound", vec![])).is_not_found());
        assert!(matches!(
            Error::from_rest(status(409, "AlreadyExists", vec![])),
            Error::AlreadyExists(_)
        ));
        let stale = Error::from_rest(status(409, "Conflict", vec![]));
        assert!(
            matches!(&stale, Error::Conflict { field_conflicts, .. } if field_conflicts.is_empty())
        );
        assert_eq!(stale.to_string(), "conflict");
        let invalid = Error::from_rest(status(
            422,
            "Invalid",
            vec![cause(
                "FieldValueRequired",
                "Required value",
                "metadata.name",
            )],
        ));
        let Error::Invalid { causes, .. } = &invalid else {
            panic!("{invalid:?}")
        };
        assert_eq!(causes[0].reason, "FieldValueRequired");
        assert_eq!(invalid.to_string(), "invalid: metadata.name");
        assert!(matches!(
            Error::from_rest(status(403, "Forbidden", vec![])),
            Error::Forbidden(_)
        ));
        let throttled = Error::from_rest(status(429, "TooManyRequests", vec![]));
        assert!(matches!(&throttled, Error::Api(e) if e.is_too_many_requests()));
        assert_eq!(throttled.status().and_then(|s| s.code), Some(429));
    }
}
