//! [`ResourceVersionHandle`]: the last synced resourceVersion, readable from anywhere.

use std::sync::{Arc, PoisonError, RwLock};

/// A shared, cheaply cloned view of a reflector's last synced resourceVersion
/// (client-go's `LastSyncResourceVersion()`). Empty until the first list or streaming list.
///
/// ```
/// use kinformer_reflector::ResourceVersionHandle;
///
/// let handle = ResourceVersionHandle::default();
/// assert_eq!(handle.get(), "");
/// ```
#[derive(Clone, Debug, Default)]
pub struct ResourceVersionHandle(Arc<RwLock<String>>);

impl ResourceVersionHandle {
    /// The last synced resourceVersion.
    pub fn get(&self) -> String {
        self.0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub(crate) fn set(&self, resource_version: &str) {
        let mut rv = self.0.write().unwrap_or_else(PoisonError::into_inner);
        rv.clear();
        rv.push_str(resource_version);
    }
}
