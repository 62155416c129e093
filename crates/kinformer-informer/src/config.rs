//! [`Config`]: how an informer is built.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use kinformer_core::{Object, Transform};
use kinformer_indexer::{Compact, IndexFunc};
use kinformer_reflector::{Config as ReflectorConfig, TypeCheck};

use super::metrics::Metrics;

/// Which queue sits between the reflector and the cache.
///
/// The default is the in-order queue, as in client-go since 1.33 (its `InOrderInformers`
/// feature, GA in 1.36). Pick [`DeltaFifo`](Self::DeltaFifo) only to reproduce an older
/// client-go's delivery order: on a relist it reports a vanished object's delete after the
/// relist's updates and adds, where the in-order queue reports it first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum QueueKind {
    /// client-go's `RealFIFO`, the in-order queue: every event in arrival order, each relist
    /// and resync applied whole (client-go's atomic FIFO).
    #[default]
    RealFifo,
    /// client-go's classic `DeltaFIFO`: per-key delta lists, tombstones merged on relist.
    DeltaFifo,
}

/// Options of a [`SharedIndexInformer`](super::SharedIndexInformer). `Default` matches
/// client-go 1.36's shared informers (the in-order queue).
///
/// ```
/// use std::time::Duration;
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_indexer::IndexFunc;
/// use kinformer_informer::{Config, Transform};
///
/// let config: Config<Pod> = Config::default()
///     .name("pods")
///     .resync_period(Duration::from_secs(300))
///     .index("node", IndexFunc::new(|pod: &Pod| {
///         Ok(pod.spec.as_ref().and_then(|s| s.node_name.clone()).into_iter().collect())
///     }))
///     .transform(Transform::new(|pod: &mut Pod| pod.metadata.annotations = None));
/// assert_eq!(config.resync_period, Duration::from_secs(300));
/// ```
#[non_exhaustive]
pub struct Config<K> {
    /// The resource name (plural, e.g. `pods`), for logs and listers' not-found errors.
    pub name: Arc<str>,
    /// The default handler resync period and the initial resync check period; zero: none.
    pub resync_period: Duration,
    /// Indexes besides the built-in namespace index.
    pub indexes: Vec<(String, IndexFunc<K>)>,
    /// A transform applied to every object as it enters the queue.
    pub transform: Option<Transform<K>>,
    /// The queue between reflector and cache.
    pub queue: QueueKind,
    /// The reflector's options (its resync period is set by the informer, and its name too
    /// when left at the default).
    pub reflector: ReflectorConfig,
    /// Skips watch objects of the wrong kind (for dynamic objects).
    pub type_check: Option<TypeCheck<K>>,
    /// Hooks the reflector reports lists, relists, watches and events to.
    pub metrics: Option<Arc<dyn Metrics>>,
    /// Set: the cache holds objects in compact form, decoded on read (see
    /// [`compact`](Self::compact)).
    pub compact: Option<Compact<K>>,
}

impl<K> fmt::Debug for Config<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("name", &self.name)
            .field("resync_period", &self.resync_period)
            .field("indexes", &self.indexes)
            .field("transform", &self.transform)
            .field("queue", &self.queue)
            .field("reflector", &self.reflector)
            .field("type_check", &self.type_check.is_some())
            .field("metrics", &self.metrics.is_some())
            .field("compact", &self.compact.is_some())
            .finish()
    }
}

impl<K> Default for Config<K> {
    fn default() -> Self {
        Self {
            name: Arc::from(""),
            resync_period: Duration::ZERO,
            indexes: Vec::new(),
            transform: None,
            queue: QueueKind::default(),
            reflector: ReflectorConfig::default(),
            type_check: None,
            metrics: None,
            compact: None,
        }
    }
}

impl<K: Object> Config<K> {
    /// Sets the resource name.
    #[must_use]
    pub fn name(mut self, name: impl Into<Arc<str>>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets the default resync period.
    #[must_use]
    pub fn resync_period(mut self, period: Duration) -> Self {
        self.resync_period = period;
        self
    }

    /// Adds an index.
    #[must_use]
    pub fn index(mut self, name: impl Into<String>, func: IndexFunc<K>) -> Self {
        self.indexes.push((name.into(), func));
        self
    }

    /// Sets the transform.
    #[must_use]
    pub fn transform(mut self, transform: Transform<K>) -> Self {
        self.transform = Some(transform);
        self
    }

    /// Chooses the queue.
    #[must_use]
    pub fn queue(mut self, queue: QueueKind) -> Self {
        self.queue = queue;
        self
    }

    /// Caches objects in compact form: each as its JSON (about a fifth of a decoded pod's
    /// memory) with its index values, decoded again on every read of the cache (`get`, `list`,
    /// `by_index`, listers). Handlers still receive typed objects as they are delivered; an
    /// update's old object is decoded for them (unless its resourceVersion is unchanged).
    /// See [`kinformer_indexer`'s compact mode](kinformer_indexer#compact-mode) for the
    /// trade-off.
    ///
    /// ```
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_informer::Config;
    ///
    /// let config: Config<Pod> = Config::default().name("pods").compact();
    /// assert!(config.compact.is_some());
    /// ```
    #[must_use]
    pub fn compact(mut self) -> Self
    where
        K: serde::Serialize + serde::de::DeserializeOwned,
    {
        self.compact = Some(Compact::json());
        self
    }

    /// Sets the reflector's options.
    #[must_use]
    pub fn reflector(mut self, reflector: ReflectorConfig) -> Self {
        self.reflector = reflector;
        self
    }

    /// Sets the type check.
    #[must_use]
    pub fn type_check(mut self, check: TypeCheck<K>) -> Self {
        self.type_check = Some(check);
        self
    }

    /// Reports the reflector's lists, relists, watches and events, and the informer's processed
    /// items, to `metrics` (for example [`InformerMetrics`](crate::InformerMetrics) with feature
    /// `prometheus`, or a shared [`Counters`](kinformer_reflector::Counters)).
    #[must_use]
    pub fn metrics(mut self, metrics: Arc<dyn Metrics>) -> Self {
        self.metrics = Some(metrics);
        self
    }
}
