//! [`ObjectList`]: one page (or the whole) of a list response.

use std::sync::Arc;

/// The result of a list call: the items and the list's metadata.
#[derive(Debug)]
#[non_exhaustive]
pub struct ObjectList<K> {
    /// `metadata.resourceVersion` of the list: the revision the list was read at.
    pub resource_version: String,
    /// `metadata.continue`: set when more pages may exist.
    pub continue_token: Option<String>,
    /// `metadata.remainingItemCount`: an estimate, never for control flow.
    pub remaining_item_count: Option<i64>,
    /// The items, shared.
    pub items: Vec<Arc<K>>,
}

impl<K> ObjectList<K> {
    /// A list from its parts.
    pub fn new(resource_version: impl Into<String>, items: Vec<Arc<K>>) -> Self {
        Self {
            resource_version: resource_version.into(),
            continue_token: None,
            remaining_item_count: None,
            items,
        }
    }

    /// Sets the continue token (`None` or empty means the last page).
    #[must_use]
    pub fn with_continue(mut self, token: Option<String>) -> Self {
        self.continue_token = token.filter(|t| !t.is_empty());
        self
    }
}

impl<K> Default for ObjectList<K> {
    fn default() -> Self {
        Self::new(String::new(), Vec::new())
    }
}
