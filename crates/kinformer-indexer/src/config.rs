//! [`Config`]: how to build an [`Indexer`](crate::Indexer).

use kinformer_core::{KeyFunc, Object};

use crate::IndexFunc;
use std::num::NonZeroUsize;

use crate::compact::Compact;

/// How to build an [`Indexer`](crate::Indexer): the key function, the indexes besides the
/// built-in [`NAMESPACE_INDEX`](crate::NAMESPACE_INDEX), and whether objects are held compact.
/// `Default` is client-go's `NewIndexer` with `MetaNamespaceKeyFunc`; each setting has a `with_`
/// setter and a getter of the same name.
///
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_indexer::{Config, IndexFunc, IndexRead, Indexer};
///
/// let config = Config::default().with_index("phase", IndexFunc::new(|pod: &Pod| {
///     Ok(pod.status.as_ref().and_then(|s| s.phase.clone()).into_iter().collect())
/// }));
/// assert!(config.index("phase").is_some());
/// let indexer: Indexer<Pod> = Indexer::new(config);
/// assert_eq!(indexer.index_names(), ["namespace", "phase"]);
/// ```
#[derive(Debug)]
pub struct Config<K> {
    pub(crate) key_func: KeyFunc<K>,
    pub(crate) indexers: Vec<(String, IndexFunc<K>)>,
    pub(crate) compact: Option<Compact<K>>,
    pub(crate) hot_objects: Option<NonZeroUsize>,
}

impl<K: Object> Default for Config<K> {
    fn default() -> Self {
        Self {
            key_func: KeyFunc::default(),
            indexers: Vec::new(),
            compact: None,
            hot_objects: None,
        }
    }
}

impl<K> Config<K> {
    /// Uses `key_func` instead of `namespace/name`.
    #[must_use]
    pub fn with_key_func(mut self, key_func: KeyFunc<K>) -> Self {
        self.key_func = key_func;
        self
    }

    /// The key function (by default `namespace/name`, or `name` for a cluster-scoped object).
    pub fn key_func(&self) -> &KeyFunc<K> {
        &self.key_func
    }

    /// Adds an index; a later index of the same name replaces an earlier one.
    #[must_use]
    pub fn with_index(mut self, name: impl Into<String>, func: IndexFunc<K>) -> Self {
        let name = name.into();
        self.indexers.retain(|(existing, _)| *existing != name);
        self.indexers.push((name, func));
        self
    }

    /// The index function added under `name`, if any (the built-in namespace index is not
    /// listed here).
    pub fn index(&self, name: &str) -> Option<&IndexFunc<K>> {
        self.indexers
            .iter()
            .find(|(existing, _)| existing == name)
            .map(|(_, func)| func)
    }

    /// Holds objects in compact form, packed by `compact` (for any `K` that serializes and
    /// deserializes, [`Compact::json()`]): each object as its JSON encoding (one exactly sized
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
    /// use kinformer_indexer::{Compact, Config, IndexRead, Indexer, NAMESPACE_INDEX};
    ///
    /// let indexer: Indexer<Pod> = Indexer::new(Config::default().with_compact(Compact::json()));
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
    pub fn with_compact(mut self, compact: Compact<K>) -> Self {
        self.compact = Some(compact);
        self
    }

    /// How objects are packed, in compact mode; `None` (the default) holds them decoded.
    pub fn compact(&self) -> Option<&Compact<K>> {
        self.compact.as_ref()
    }

    /// Keeps the `capacity` most recently read objects of a compact indexer decoded (a tiered
    /// holding): a `get` or an index read of a hot object hands out the decoded object without
    /// decoding it again, and the rest of the cache stays packed. A whole-cache `list` uses hot
    /// objects but does not make objects hot, so a scan does not push the working set out. It
    /// has no effect without [`with_compact`](Self::with_compact).
    ///
    /// ```
    /// use std::num::NonZeroUsize;
    /// use std::sync::Arc;
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::{Store, StoreRead};
    /// use kinformer_indexer::{Compact, Config, Indexer};
    ///
    /// let config = Config::default()
    ///     .with_compact(Compact::json())
    ///     .with_hot_objects(NonZeroUsize::new(1024).expect("non-zero"));
    /// let indexer: Indexer<Pod> = Indexer::new(config);
    /// let mut pod = Pod::default();
    /// pod.metadata.name = Some("web-0".into());
    /// indexer.add(Arc::new(pod))?;
    /// let first = indexer.get_by_key("web-0").expect("held");
    /// let again = indexer.get_by_key("web-0").expect("held");
    /// assert!(Arc::ptr_eq(&first, &again), "decoded once, then read hot");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn with_hot_objects(mut self, capacity: NonZeroUsize) -> Self {
        self.hot_objects = Some(capacity);
        self
    }

    /// How many recently read objects a compact indexer keeps decoded, if any.
    pub fn hot_objects(&self) -> Option<NonZeroUsize> {
        self.hot_objects
    }
}
