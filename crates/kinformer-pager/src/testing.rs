//! Test doubles: a scripted lister and a model lister over a fixed item set.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use kinformer_core::{ApiError, ListOptions, Lister, ObjectList, Status};

/// An API error carrying a Status.
#[derive(Debug, thiserror::Error)]
#[error("test api error")]
pub(crate) struct TestError(pub(crate) Status);

impl TestError {
    pub(crate) fn reason(code: i32, reason: &str) -> Self {
        Self(Status {
            code: Some(code),
            reason: Some(reason.to_owned()),
            ..Status::default()
        })
    }
}

impl ApiError for TestError {
    fn status(&self) -> Option<&Status> {
        Some(&self.0)
    }
}

type Script = VecDeque<Result<ObjectList<String>, TestError>>;

/// Answers each list call with the next scripted response and records the options it got.
#[derive(Clone, Default)]
pub(crate) struct ScriptedLister {
    script: Arc<Mutex<Script>>,
    pub(crate) requests: Arc<Mutex<Vec<ListOptions>>>,
}

impl ScriptedLister {
    pub(crate) fn new(script: Vec<Result<ObjectList<String>, TestError>>) -> Self {
        Self {
            script: Arc::new(Mutex::new(script.into())),
            requests: Arc::default(),
        }
    }

    pub(crate) fn requests(&self) -> Vec<ListOptions> {
        self.requests.lock().unwrap().clone()
    }
}

impl Lister<String> for ScriptedLister {
    type Error = TestError;

    async fn list(&self, options: &ListOptions) -> Result<ObjectList<String>, TestError> {
        self.requests.lock().unwrap().push(options.clone());
        self.script
            .lock()
            .unwrap()
            .pop_front()
            .expect("request beyond the script")
    }
}

/// A page of `items` at `rv`, with an optional continue token.
pub(crate) fn page(rv: &str, items: &[&str], next: Option<&str>) -> ObjectList<String> {
    ObjectList::new(
        rv,
        items.iter().map(|s| Arc::new((*s).to_owned())).collect(),
    )
    .with_continue(next.map(str::to_owned))
}

/// Serves a fixed item set like a server with a selector would: each page reads `limit` stored
/// items and returns only those that match (so pages may be short or empty), the token being the
/// next offset; the continuation request numbered `expire_at` fails with `Expired`.
#[derive(Clone)]
pub(crate) struct ModelLister {
    pub(crate) stored: Arc<Vec<(String, bool)>>,
    pub(crate) expire_at: Option<usize>,
    pub(crate) requests: Arc<Mutex<Vec<ListOptions>>>,
}

impl ModelLister {
    pub(crate) fn new(stored: Vec<(String, bool)>, expire_at: Option<usize>) -> Self {
        Self {
            stored: Arc::new(stored),
            expire_at,
            requests: Arc::default(),
        }
    }

    /// What an unpaginated list returns: every matching item, in order.
    pub(crate) fn expected(&self) -> Vec<String> {
        self.stored
            .iter()
            .filter(|(_, matches)| *matches)
            .map(|(name, _)| name.clone())
            .collect()
    }
}

impl Lister<String> for ModelLister {
    type Error = TestError;

    async fn list(&self, options: &ListOptions) -> Result<ObjectList<String>, TestError> {
        let request_no = {
            let mut requests = self.requests.lock().unwrap();
            requests.push(options.clone());
            requests.len() - 1
        };
        let start: usize = match options.continue_token.as_deref() {
            Some(token) => {
                if self.expire_at == Some(request_no) {
                    return Err(TestError::reason(410, "Expired"));
                }
                token.parse().unwrap()
            }
            None => 0,
        };
        let stored = &self.stored;
        let end = match options.limit.filter(|l| *l > 0) {
            None => stored.len(),
            Some(limit) => (start + limit as usize).min(stored.len()),
        };
        let items = stored[start..end]
            .iter()
            .filter(|(_, matches)| *matches)
            .map(|(name, _)| Arc::new(name.clone()))
            .collect();
        let next = (end < stored.len()).then(|| end.to_string());
        Ok(ObjectList::new("100", items).with_continue(next))
    }
}
