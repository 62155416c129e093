//! The crate's one error type.

/// What can go wrong discovering resources or mapping names to them.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A discovery request failed (transport, authentication, a server error).
    #[error("discovery request GET {path} failed")]
    Request {
        /// The path asked for (`/apis`, `/apis/apps/v1`).
        path: String,
        /// What the REST client reported.
        #[source]
        source: kinformer_rest::Error,
    },
    /// A discovery document did not decode.
    #[error("cannot decode the discovery document {path}")]
    Decode {
        /// The path or cache file it came from.
        path: String,
        /// What the decoder reported.
        #[source]
        source: serde_json::Error,
    },
    /// No resource is named so, even after discovery was refreshed.
    #[error("the server doesn't have a resource type {name:?}")]
    NotFound {
        /// The name as given.
        name: String,
    },
    /// No resource serves this kind, even after discovery was refreshed.
    #[error("no matches for kind {kind:?} in group {group:?}{}", version.as_ref().map_or_else(String::new, |v| format!(" version {v:?}")))]
    KindNotFound {
        /// The group asked for (`""` for the core group).
        group: String,
        /// The kind asked for.
        kind: String,
        /// The version asked for, if any.
        version: Option<String>,
    },
    /// Nothing matched what discovery could read, but some group versions that could serve the
    /// name could not be read (a document that did not decode, an aggregated API server that is
    /// down): whether the server has it cannot be told. Each failure names its group version,
    /// the path and the cause.
    #[error("no resource {name:?} in what discovery could read; it could not read {}", failed.iter().map(|(gv, why)| format!("{gv} ({why})")).collect::<Vec<_>>().join(", "))]
    Incomplete {
        /// The name or kind as given.
        name: String,
        /// The group versions that could not be read, as `group/version` (`v1` for the core
        /// group) with the reason.
        failed: Vec<(String, String)>,
    },
    /// The name fits more than one resource and the server's priority order cannot choose.
    #[error("{name:?} is ambiguous: it matches {}", candidates.join(", "))]
    Ambiguous {
        /// The name as given.
        name: String,
        /// What it matches, as `resource.version.group`.
        candidates: Vec<String>,
    },
}

impl Error {
    /// Whether nothing matched (a resource name or a kind), as opposed to a failure.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::NotFound { .. } | Self::KindNotFound { .. })
    }
}

/// This crate's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;
