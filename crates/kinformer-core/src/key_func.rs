//! [`KeyFunc`]: how a cache or a queue keys the objects it holds.

use std::fmt;
use std::sync::Arc;

use crate::{Object, object_key};

/// Computes an object's key for a cache or a queue. The default is [`object_key`]
/// (`namespace/name` or `name`). One type for both, so one function can key an indexer and the
/// queue in front of it.
///
/// Key functions cannot fail: every [`Object`] has metadata, which is the only thing client-go's
/// key function can miss.
pub struct KeyFunc<K>(Arc<dyn Fn(&K) -> String + Send + Sync>);

impl<K> KeyFunc<K> {
    /// A key function from a closure (an "explicit key" scheme, for example `uid`).
    ///
    /// ```
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::Object;
    /// use kinformer_core::KeyFunc;
    ///
    /// let by_uid = KeyFunc::new(|pod: &Pod| pod.uid().unwrap_or_default().to_owned());
    /// let mut pod = Pod::default();
    /// pod.metadata.uid = Some("1234".into());
    /// assert_eq!(by_uid.key(&pod), "1234");
    /// ```
    pub fn new(f: impl Fn(&K) -> String + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    /// The key of `obj`.
    pub fn key(&self, obj: &K) -> String {
        (self.0)(obj)
    }
}

impl<K: Object> Default for KeyFunc<K> {
    fn default() -> Self {
        Self::new(|obj: &K| object_key(obj))
    }
}

impl<K> Clone for KeyFunc<K> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<K> fmt::Debug for KeyFunc<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeyFunc")
    }
}
