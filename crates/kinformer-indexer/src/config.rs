//! [`Config`]: how to build an [`Indexer`](crate::Indexer).

use kinformer_core::Object;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::compact::Compact;
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
    pub(crate) compact: Option<Compact<K>>,
}

impl<K: Object> Default for Config<K> {
    fn default() -> Self {
        Self {
            key_func: KeyFunc::default(),
            indexers: Vec::new(),
            compact: None,
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

    /// Holds objects in compact form: each as its JSON encoding (one exactly sized
    /// allocation, about a fifth of a decoded pod) with its resourceVersion and index values,
    /// decoded again on every read. See [the trade-off](crate#compact-mode).
    ///
    /// Key and index functions see whole objects, as in the default mode: an object is keyed
    /// and indexed before it is packed.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::{Store, StoreRead};
    /// use kinformer_indexer::{Config, Indexer, NAMESPACE_INDEX};
    ///
    /// let indexer: Indexer<Pod> = Indexer::new(Config::default().compact());
    /// let mut pod = Pod::default();
    /// pod.metadata.namespace = Some("prod".into());
    /// pod.metadata.name = Some("web-0".into());
    /// indexer.add(Arc::new(pod.clone()))?;
    /// // Decoded on read: equal to what was stored, a new allocation each time.
    /// assert_eq!(*indexer.get_by_key("prod/web-0").unwrap(), pod);
    /// assert_eq!(indexer.by_index(NAMESPACE_INDEX, "prod")?.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn compact(self) -> Self
    where
        K: Serialize + DeserializeOwned,
    {
        self.packing(Compact::json())
    }

    /// Holds objects packed by `compact` ([`compact`](Self::compact) with a codec in hand, for
    /// code generic over `K`).
    #[must_use]
    pub fn packing(mut self, compact: Compact<K>) -> Self {
        self.compact = Some(compact);
        self
    }
}
