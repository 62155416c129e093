//! [`WatchEvent`]: what a watch stream yields.

use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;

/// A `BOOKMARK` event: a resourceVersion the client has caught up to, with no object change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Bookmark {
    /// The bookmark's `metadata.resourceVersion`.
    pub resource_version: String,
    /// True when annotated `k8s.io/initial-events-end: "true"` (exactly `"true"`): the end of a
    /// streaming list's initial events.
    pub initial_events_end: bool,
}

impl Bookmark {
    /// A bookmark at `resource_version`.
    pub fn new(resource_version: impl Into<String>, initial_events_end: bool) -> Self {
        Self {
            resource_version: resource_version.into(),
            initial_events_end,
        }
    }
}

/// One event of a watch stream.
#[derive(Debug)]
#[non_exhaustive]
pub enum WatchEvent<K> {
    /// `ADDED`.
    Added(Arc<K>),
    /// `MODIFIED`.
    Modified(Arc<K>),
    /// `DELETED` (the object's final state).
    Deleted(Arc<K>),
    /// `BOOKMARK`.
    Bookmark(Bookmark),
    /// `ERROR`, with the server's `Status` (410 Expired, for example).
    Error(Box<Status>),
}

impl<K> WatchEvent<K> {
    /// The wire name of the event type.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Added(_) => "ADDED",
            Self::Modified(_) => "MODIFIED",
            Self::Deleted(_) => "DELETED",
            Self::Bookmark(_) => "BOOKMARK",
            Self::Error(_) => "ERROR",
        }
    }

    /// The object of an `ADDED`, `MODIFIED` or `DELETED` event.
    pub fn object(&self) -> Option<&Arc<K>> {
        match self {
            Self::Added(o) | Self::Modified(o) | Self::Deleted(o) => Some(o),
            Self::Bookmark(_) | Self::Error(_) => None,
        }
    }
}

impl<K> Clone for WatchEvent<K> {
    fn clone(&self) -> Self {
        match self {
            Self::Added(o) => Self::Added(Arc::clone(o)),
            Self::Modified(o) => Self::Modified(Arc::clone(o)),
            Self::Deleted(o) => Self::Deleted(Arc::clone(o)),
            Self::Bookmark(b) => Self::Bookmark(b.clone()),
            Self::Error(s) => Self::Error(s.clone()),
        }
    }
}
