//! Fault injection: rules that make matching requests fail, wait, or break their watch streams.

use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// What a fault does.
///
/// In JSON the variant is the `kind` field (`"status"`, `"too_large"`, `"delay"`, `"watch_drop"`, ...)
/// and the fields are camelCase (`retryAfter`, `plainText`, `afterEvents`).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum FaultKind {
    /// Answer with this HTTP code and a `Status` (or plain text). `410` on a list or continue page
    /// is the apiserver's Expired answer, with a fresh continue token.
    Status {
        /// HTTP status code, for example 429, 500, 503, 410.
        code: u16,
        /// Seconds for the `Retry-After` header and `details.retryAfterSeconds`.
        #[serde(default)]
        retry_after: Option<u64>,
        /// Answer `text/plain` instead of a Status, as priority-and-fairness does.
        #[serde(default)]
        plain_text: bool,
        /// The message; a default per code otherwise.
        #[serde(default)]
        message: Option<String>,
    },
    /// 504 "Too large resource version" with the `ResourceVersionTooLarge` cause.
    TooLarge,
    /// Wait this long, then serve the request normally.
    Delay {
        /// Seconds to wait.
        seconds: f64,
    },
    /// Cut the watch connection after this many events.
    WatchDrop {
        /// Events sent before the fault fires.
        #[serde(default)]
        after_events: u64,
    },
    /// End the watch stream cleanly after this many events.
    WatchClose {
        /// Events sent before the fault fires.
        #[serde(default)]
        after_events: u64,
    },
    /// Send one line of broken JSON after this many events, then carry on.
    WatchMalformed {
        /// Events sent before the fault fires.
        #[serde(default)]
        after_events: u64,
    },
    /// Go silent for `seconds` after this many events, then carry on.
    WatchStall {
        /// Events sent before the fault fires.
        #[serde(default)]
        after_events: u64,
        /// How long to stay silent.
        seconds: f64,
    },
    /// Send an `ERROR` event holding a Status with this code after this many events, then end.
    WatchError {
        /// Events sent before the fault fires.
        #[serde(default)]
        after_events: u64,
        /// The Status code (default 500).
        #[serde(default = "default_error_code")]
        code: u16,
    },
}

fn default_error_code() -> u16 {
    500
}

fn one() -> i64 {
    1
}

impl FaultKind {
    /// An answer with HTTP `code` and the API server's `Status` for it (no `Retry-After`).
    ///
    /// ```
    /// use kinformer_sim::{Fault, FaultKind};
    /// let unavailable = Fault::new(FaultKind::status(503)).count(-1);
    /// # drop(unavailable);
    /// ```
    pub fn status(code: u16) -> Self {
        Self::Status {
            code,
            retry_after: None,
            plain_text: false,
            message: None,
        }
    }

    fn is_watch_only(&self) -> bool {
        !matches!(
            self,
            Self::Status { .. } | Self::TooLarge | Self::Delay { .. }
        )
    }
}

/// A fault rule: what to do, how many times, and to which requests.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fault {
    /// What happens.
    #[serde(flatten)]
    pub kind: FaultKind,
    /// How many matching requests it applies to; `-1` means forever.
    #[serde(default = "one")]
    pub count: i64,
    /// Verbs it applies to (`list`, `watch`, `get`, `create`, `update`, `patch`, `delete`); empty is all.
    /// `continue` names only the pages of a paged list after the first; `list` covers every page.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verbs: Vec<String>,
    /// Resources it applies to (`pods`, `widgets.example.com`); empty is all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<String>,
}

impl Fault {
    /// A rule that fires once, for every verb and resource.
    ///
    /// # Examples
    /// ```
    /// use kinformer_sim::{Fault, FaultKind};
    /// let f = Fault::new(FaultKind::TooLarge).count(-1).verbs(["list"]).resources(["pods"]);
    /// assert_eq!(f.count, -1);
    /// ```
    pub fn new(kind: FaultKind) -> Self {
        Self {
            kind,
            count: 1,
            verbs: Vec::new(),
            resources: Vec::new(),
        }
    }

    /// Sets how many times it fires (`-1`: forever).
    pub fn count(mut self, count: i64) -> Self {
        self.count = count;
        self
    }

    /// Limits it to these verbs.
    pub fn verbs<S: Into<String>>(mut self, verbs: impl IntoIterator<Item = S>) -> Self {
        self.verbs = verbs.into_iter().map(Into::into).collect();
        self
    }

    /// Limits it to these resources.
    pub fn resources<S: Into<String>>(mut self, resources: impl IntoIterator<Item = S>) -> Self {
        self.resources = resources.into_iter().map(Into::into).collect();
        self
    }

    fn applies(&self, verb: &str, resource_id: &str, plural: &str) -> bool {
        if self.kind.is_watch_only() && verb != "watch" {
            return false;
        }
        // A continue page is a list request too: `list` rules cover it, `continue` rules only it.
        let verb_matches = |v: &String| v == verb || (v == "list" && verb == "continue");
        (self.verbs.is_empty() || self.verbs.iter().any(verb_matches))
            && (self.resources.is_empty()
                || self
                    .resources
                    .iter()
                    .any(|r| r == resource_id || r == plural))
    }
}

/// What the fault rules decided for one request.
#[derive(Debug, Default)]
pub(crate) struct Triggered {
    pub(crate) delay: Duration,
    pub(crate) action: Option<FaultKind>,
}

/// The active rules.
#[derive(Debug, Default)]
pub(crate) struct Faults {
    rules: Mutex<Vec<Fault>>,
}

impl Faults {
    pub(crate) fn add(&self, faults: impl IntoIterator<Item = Fault>) {
        self.lock()
            .extend(faults.into_iter().filter(|f| f.count != 0));
    }

    pub(crate) fn clear(&self) {
        self.lock().clear();
    }

    pub(crate) fn list(&self) -> Vec<Fault> {
        self.lock().clone()
    }

    /// Consumes the rules that match: every delay, and the first other action.
    pub(crate) fn check(&self, verb: &str, resource_id: &str, plural: &str) -> Triggered {
        let mut rules = self.lock();
        let mut out = Triggered::default();
        for rule in rules.iter_mut() {
            if !rule.applies(verb, resource_id, plural) {
                continue;
            }
            match &rule.kind {
                FaultKind::Delay { seconds } => {
                    out.delay += Duration::from_secs_f64(seconds.max(0.0));
                }
                kind if out.action.is_none() => out.action = Some(kind.clone()),
                _ => continue,
            }
            if rule.count > 0 {
                rule.count -= 1;
            }
        }
        rules.retain(|r| r.count != 0);
        out
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Fault>> {
        // Rules are plain data; a panic elsewhere cannot leave them half-updated.
        self.rules.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_issue_syntax_and_counts_down() {
        let rules: Vec<Fault> = serde_json::from_str(
            r#"[{"kind":"status","code":429,"retryAfter":2},{"kind":"watch_drop","afterEvents":3,"count":-1},
               {"kind":"delay","seconds":0.5,"verbs":["list"],"resources":["pods"]}]"#,
        )
        .expect("parses");
        let faults = Faults::default();
        faults.add(rules);
        let t = faults.check("list", "pods", "pods");
        assert_eq!(t.delay, Duration::from_millis(500));
        assert!(matches!(
            t.action,
            Some(FaultKind::Status {
                code: 429,
                retry_after: Some(2),
                ..
            })
        ));
        let t = faults.check("watch", "pods", "pods");
        assert!(matches!(
            t.action,
            Some(FaultKind::WatchDrop { after_events: 3 })
        ));
        assert_eq!(faults.list().len(), 1);
        assert!(faults.check("get", "pods", "pods").action.is_none());
    }

    #[test]
    fn continue_rules_match_only_continue_pages_and_list_rules_match_both() {
        let faults = Faults::default();
        let expired = FaultKind::Status {
            code: 410,
            retry_after: None,
            plain_text: false,
            message: None,
        };
        faults.add([Fault::new(expired.clone()).verbs(["continue"])]);
        assert!(faults.check("list", "pods", "pods").action.is_none());
        assert!(faults.check("continue", "pods", "pods").action.is_some());
        faults.add([Fault::new(expired).verbs(["list"]).count(2)]);
        assert!(faults.check("continue", "pods", "pods").action.is_some());
        assert!(faults.check("list", "pods", "pods").action.is_some());
        assert!(faults.list().is_empty());
    }
}
