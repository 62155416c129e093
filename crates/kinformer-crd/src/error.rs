//! [`Error`]: why a Rust type's schema cannot be a Kubernetes structural schema.

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why [`structural_schema`](crate::structural_schema) could not turn a type's JSON schema into
/// one the API server accepts. Each names the field (`.spec.size`) it is about.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The schema says something a structural schema cannot: a value of several types, a
    /// recursive type, an enum mixing unit and data variants, ...
    #[error("{path}: {reason}")]
    Unsupported {
        /// Where in the object, e.g. `.spec.items[*].size`; `.` for the type itself.
        path: String,
        /// What a structural schema cannot hold there.
        reason: String,
    },
    /// The rewritten schema is not a `JSONSchemaProps`.
    #[error("the rewritten schema is not a JSONSchemaProps")]
    Convert(#[source] serde_json::Error),
}

impl Error {
    pub(crate) fn unsupported(path: &str, reason: impl Into<String>) -> Self {
        let path = if path.is_empty() { "." } else { path };
        Self::Unsupported {
            path: path.to_owned(),
            reason: reason.into(),
        }
    }
}
