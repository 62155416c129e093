//! [`Config`]: how to build an [`Indexer`](crate::Indexer).

use kinformer_core::Object;

use crate::{IndexFunc, KeyFunc};

/// How to build an [`Indexer`](crate::Indexer): the key function and the indexes besides the built-in
/// [`NAMESPACE_INDEX`](crate::NAMESPACE_INDEX).
///
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_indexer::{Config, IndexFunc, Indexer};
///
/// let indexer: Indexer<Pod> = Indexer::new(
///     Config::default().index("phase", IndexFunc::new(|pod: &Pod| {
///         Ok(pod.status.as_ref().and_then(|s| s.phase.clone()).into_iter().collect())
///     })),
/// );
/// assert_eq!(indexer.index_names(), ["namespace", "phase"]);
/// ```
#[derive(Debug)]
pub struct Config<K> {
    pub(crate) key_func: KeyFunc<K>,
    pub(crate) indexers: Vec<(String, IndexFunc<K>)>,
}

impl<K: Object> Default for Config<K> {
    fn default() -> Self {
        Self {
            key_func: KeyFunc::default(),
            indexers: Vec::new(),
        }
    }
}

impl<K: Object> Config<K> {
    /// Uses `key_func` instead of `namespace/name`.
    #[must_use]
    pub fn key_func(mut self, key_func: KeyFunc<K>) -> Self {
        self.key_func = key_func;
        self
    }

    /// Adds an index; a later index of the same name replaces an earlier one.
    #[must_use]
    pub fn index(mut self, name: impl Into<String>, func: IndexFunc<K>) -> Self {
        let name = name.into();
        self.indexers.retain(|(existing, _)| *existing != name);
        self.indexers.push((name, func));
        self
    }
}
