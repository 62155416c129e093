//! [`ListOptions`]: the query parameters of a list or watch request.

use std::fmt;

/// `resourceVersionMatch`: how the server interprets `resourceVersion` on a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResourceVersionMatch {
    /// Data at least as new as the given resourceVersion.
    NotOlderThan,
    /// Data at exactly the given resourceVersion.
    Exact,
}

impl ResourceVersionMatch {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotOlderThan => "NotOlderThan",
            Self::Exact => "Exact",
        }
    }
}

impl fmt::Display for ResourceVersionMatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Typed `ListOptions` (meta/v1), used for both lists and watches.
///
/// Fields left at their defaults are not sent.
///
/// # Examples
/// ```
/// use kinformer_core::ListOptions;
///
/// let opts = ListOptions::default().labels("app=web").limit(500).resource_version("0");
/// let query: Vec<(&str, String)> = opts.query_pairs();
/// assert_eq!(
///     query,
///     vec![("labelSelector", "app=web".into()), ("resourceVersion", "0".into()), ("limit", "500".into())],
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListOptions {
    /// `labelSelector`.
    pub label_selector: Option<String>,
    /// `fieldSelector`.
    pub field_selector: Option<String>,
    /// `resourceVersion`; `None` and `Some("")` both mean "most recent".
    pub resource_version: Option<String>,
    /// `resourceVersionMatch`.
    pub resource_version_match: Option<ResourceVersionMatch>,
    /// `limit` (lists only).
    pub limit: Option<u32>,
    /// `continue` (lists only).
    pub continue_token: Option<String>,
    /// `timeoutSeconds`.
    pub timeout_seconds: Option<u32>,
    /// `allowWatchBookmarks` (watches only).
    pub allow_watch_bookmarks: bool,
    /// `sendInitialEvents` (watches only).
    pub send_initial_events: Option<bool>,
}

impl ListOptions {
    /// Sets `labelSelector`.
    #[must_use]
    pub fn labels(mut self, selector: impl Into<String>) -> Self {
        self.label_selector = Some(selector.into());
        self
    }

    /// Sets `fieldSelector`.
    #[must_use]
    pub fn fields(mut self, selector: impl Into<String>) -> Self {
        self.field_selector = Some(selector.into());
        self
    }

    /// Sets `resourceVersion`.
    #[must_use]
    pub fn resource_version(mut self, rv: impl Into<String>) -> Self {
        self.resource_version = Some(rv.into());
        self
    }

    /// Sets `resourceVersionMatch`.
    #[must_use]
    pub fn resource_version_match(mut self, m: ResourceVersionMatch) -> Self {
        self.resource_version_match = Some(m);
        self
    }

    /// Sets `limit`.
    #[must_use]
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Sets `continue`.
    #[must_use]
    pub fn continue_token(mut self, token: impl Into<String>) -> Self {
        self.continue_token = Some(token.into());
        self
    }

    /// Sets `timeoutSeconds`.
    #[must_use]
    pub fn timeout_seconds(mut self, seconds: u32) -> Self {
        self.timeout_seconds = Some(seconds);
        self
    }

    /// Sets `allowWatchBookmarks`.
    #[must_use]
    pub fn bookmarks(mut self, allow: bool) -> Self {
        self.allow_watch_bookmarks = allow;
        self
    }

    /// Sets `sendInitialEvents`.
    #[must_use]
    pub fn send_initial_events(mut self, send: bool) -> Self {
        self.send_initial_events = Some(send);
        self
    }

    /// The query parameters, in a fixed order, omitting unset and empty values (an empty
    /// `resourceVersion` is omitted; `"0"` is sent).
    pub fn query_pairs(&self) -> Vec<(&'static str, String)> {
        let mut q = Vec::new();
        let mut push = |k: &'static str, v: Option<&str>| {
            if let Some(v) = v.filter(|v| !v.is_empty()) {
                q.push((k, v.to_owned()));
            }
        };
        push("labelSelector", self.label_selector.as_deref());
        push("fieldSelector", self.field_selector.as_deref());
        push("resourceVersion", self.resource_version.as_deref());
        push(
            "resourceVersionMatch",
            self.resource_version_match
                .map(ResourceVersionMatch::as_str),
        );
        push("continue", self.continue_token.as_deref());
        if let Some(limit) = self.limit.filter(|l| *l > 0) {
            q.push(("limit", limit.to_string()));
        }
        if let Some(t) = self.timeout_seconds {
            q.push(("timeoutSeconds", t.to_string()));
        }
        if self.allow_watch_bookmarks {
            q.push(("allowWatchBookmarks", "true".to_owned()));
        }
        if let Some(send) = self.send_initial_events {
            q.push(("sendInitialEvents", send.to_string()));
        }
        q
    }
}
