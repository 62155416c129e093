//! [`Config`]: how an informer is built.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use kinformer_core::{Object, ObjectShape, Transform};
use kinformer_indexer::{Compact, IndexFunc, NAMESPACE_INDEX};
use kinformer_reflector::{Config as ReflectorConfig, TypeCheck};

use super::metrics::Metrics;
use crate::error::{Conflict, Error, Result};

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
/// client-go 1.36's shared informers (the in-order queue), with kinformer's default
/// [`ObjectShape`]: every field but managedFields, held typed in exactly sized allocations.
///
/// Every setting has a setter `with_<setting>` and a getter `<setting>`.
///
/// ```
/// use std::time::Duration;
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_core::{Holding, ObjectShape, Transform};
/// use kinformer_indexer::IndexFunc;
/// use kinformer_informer::Config;
///
/// let config: Config<Pod> = Config::default()
///     .with_name("pods")
///     .with_resync_period(Duration::from_secs(300))
///     .with_index("node", IndexFunc::new(|pod: &Pod| {
///         Ok(pod.spec.as_ref().and_then(|s| s.node_name.clone()).into_iter().collect())
///     }))?
///     .with_shape(ObjectShape::default().with_holding(Holding::Compact))
///     .with_transform(Transform::new(|pod: &mut Pod| pod.metadata.annotations = None));
/// assert_eq!(config.resync_period(), Duration::from_secs(300));
/// assert_eq!(config.index_names().collect::<Vec<_>>(), ["node"]);
/// assert_eq!(config.shape().holding(), Holding::Compact);
/// # Ok::<(), kinformer_informer::Error>(())
/// ```
pub struct Config<K> {
    name: Arc<str>,
    resync_period: Duration,
    indexes: Vec<(String, IndexFunc<K>)>,
    transform: Option<Transform<K>>,
    queue: QueueKind,
    reflector: ReflectorConfig,
    type_check: Option<TypeCheck<K>>,
    metrics: Option<Arc<dyn Metrics>>,
    shape: ObjectShape,
    /// The codec of a compact cache: set with a shape that holds objects packed.
    codec: Option<Compact<K>>,
    #[cfg(feature = "compression")]
    compression: Option<kinformer_indexer::Compression>,
}

/// A [`Config`] taken apart, for the informer's constructor.
pub(crate) struct Parts<K> {
    pub(crate) name: Arc<str>,
    pub(crate) resync_period: Duration,
    pub(crate) indexes: Vec<(String, IndexFunc<K>)>,
    pub(crate) transform: Option<Transform<K>>,
    pub(crate) reflector: ReflectorConfig,
    pub(crate) type_check: Option<TypeCheck<K>>,
    pub(crate) metrics: Option<Arc<dyn Metrics>>,
    pub(crate) shape: ObjectShape,
    pub(crate) codec: Option<Compact<K>>,
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
            .field("shape", &self.shape)
            .field("codec", &self.codec)
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
            shape: ObjectShape::default(),
            codec: None,
            #[cfg(feature = "compression")]
            compression: None,
        }
    }
}

impl<K: Object> Config<K> {
    /// Sets the resource name (plural, e.g. `pods`), for logs and listers' not-found errors.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<Arc<str>>) -> Self {
        self.name = name.into();
        self
    }

    /// The resource name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Sets the default handler resync period and the initial resync check period (zero:
    /// none).
    #[must_use]
    pub fn with_resync_period(mut self, period: Duration) -> Self {
        self.resync_period = period;
        self
    }

    /// The default handler resync period.
    pub fn resync_period(&self) -> Duration {
        self.resync_period
    }

    /// Adds an index besides the built-in namespace index.
    ///
    /// # Errors
    /// [`Error::Options`] with [`Conflict::DuplicateIndex`] when an index of that name exists
    /// (the namespace index included).
    pub fn with_index(mut self, name: impl Into<String>, func: IndexFunc<K>) -> Result<Self> {
        let name = name.into();
        if name == NAMESPACE_INDEX || self.indexes.iter().any(|(n, _)| *n == name) {
            return Err(Error::Options {
                resource: self.name.to_string(),
                conflict: Conflict::DuplicateIndex(name),
            });
        }
        self.indexes.push((name, func));
        Ok(self)
    }

    /// The names of the added indexes, in order.
    pub fn index_names(&self) -> impl Iterator<Item = &str> {
        self.indexes.iter().map(|(name, _)| name.as_str())
    }

    /// Sets what the cache keeps of each object and how it holds it; the informer's source
    /// decodes the shape's fields (through
    /// [`ListerWatcher::set_fields`](kinformer_core::ListerWatcher::set_fields)).
    ///
    /// A compact cache ([`Holding::Compact`](kinformer_core::Holding::Compact)) holds each
    /// object packed with its index values (a built-in type in Kubernetes' protobuf with the
    /// `protobuf` feature, on by default with `rest`; anything else as its JSON), decoded again on every read of the cache
    /// (`get`, `list`, `by_index`, listers) and for every delivery to a handler (an update's
    /// old object too, unless its resourceVersion is unchanged). See
    /// [`kinformer_indexer`'s compact mode](kinformer_indexer#compact-mode) for the trade-off.
    #[must_use]
    pub fn with_shape(mut self, shape: ObjectShape) -> Self
    where
        K: serde::Serialize + serde::de::DeserializeOwned,
    {
        self.codec = shape.holding().is_packed().then(compact_codec);
        self.shape = shape;
        self
    }

    /// What the cache keeps of each object and how it holds it.
    pub fn shape(&self) -> &ObjectShape {
        &self.shape
    }

    /// Compresses a packed cache's objects (a shape holding them
    /// [`Compact`](kinformer_core::Holding::Compact) or
    /// [`Tiered`](kinformer_core::Holding::Tiered)) with a zstd dictionary trained on the
    /// informer's own first objects of its type; it has no effect on a cache holding objects
    /// decoded. A realistic pod packed in protobuf takes about a tenth of its bytes, and a read
    /// costs about 1.5 µs more. See
    /// [`Compression`](kinformer_indexer::Compression) for the settings.
    ///
    /// ```
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::{Holding, ObjectShape};
    /// use kinformer_indexer::Compression;
    /// use kinformer_informer::Config;
    ///
    /// let config = Config::<Pod>::default()
    ///     .with_shape(ObjectShape::default().with_holding(Holding::Compact))
    ///     .with_compression(Compression::default());
    /// assert_eq!(config.compression(), Some(Compression::default()));
    /// ```
    #[cfg(feature = "compression")]
    #[must_use]
    pub fn with_compression(mut self, compression: kinformer_indexer::Compression) -> Self {
        self.compression = Some(compression);
        self
    }

    /// How a packed cache's objects are compressed, if they are.
    #[cfg(feature = "compression")]
    pub fn compression(&self) -> Option<kinformer_indexer::Compression> {
        self.compression
    }

    /// Sets the transform: user logic applied once to every object as it enters the informer
    /// (a listed one as it arrives, a watched one before it is queued), after decoding has
    /// kept the shape's fields and before the cache holds it.
    #[must_use]
    pub fn with_transform(mut self, transform: Transform<K>) -> Self {
        self.transform = Some(transform);
        self
    }

    /// The transform, if any.
    pub fn transform(&self) -> Option<&Transform<K>> {
        self.transform.as_ref()
    }

    /// Chooses the queue.
    #[must_use]
    pub fn with_queue(mut self, queue: QueueKind) -> Self {
        self.queue = queue;
        self
    }

    /// The queue between reflector and cache.
    pub fn queue(&self) -> QueueKind {
        self.queue
    }

    /// Sets the reflector's options (its resync period is set by the informer, and its name
    /// too when left at the default).
    #[must_use]
    pub fn with_reflector(mut self, reflector: ReflectorConfig) -> Self {
        self.reflector = reflector;
        self
    }

    /// The reflector's options.
    pub fn reflector(&self) -> &ReflectorConfig {
        &self.reflector
    }

    /// Skips watch objects of the wrong kind (for dynamic objects).
    #[must_use]
    pub fn with_type_check(mut self, check: TypeCheck<K>) -> Self {
        self.type_check = Some(check);
        self
    }

    /// The type check, if any.
    pub fn type_check(&self) -> Option<&TypeCheck<K>> {
        self.type_check.as_ref()
    }

    /// Reports the reflector's lists, relists, watches and events, and the informer's processed
    /// items, to `metrics` (for example [`InformerMetrics`](crate::InformerMetrics) with feature
    /// `prometheus`, or a shared [`Counters`](kinformer_reflector::Counters)).
    #[must_use]
    pub fn with_metrics(mut self, metrics: Arc<dyn Metrics>) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// The metrics hooks, if any.
    pub fn metrics(&self) -> Option<&Arc<dyn Metrics>> {
        self.metrics.as_ref()
    }

    pub(crate) fn into_parts(self) -> Parts<K> {
        Parts {
            name: self.name,
            resync_period: self.resync_period,
            indexes: self.indexes,
            transform: self.transform,
            reflector: self.reflector,
            type_check: self.type_check,
            metrics: self.metrics,
            shape: self.shape,
            // Each informer built from a config trains its own dictionary.
            #[cfg(feature = "compression")]
            codec: match self.compression {
                Some(compression) => self.codec.map(|codec| codec.with_compression(compression)),
                None => self.codec,
            },
            #[cfg(not(feature = "compression"))]
            codec: self.codec,
        }
    }
}

/// A compact cache's codec: Kubernetes' protobuf for a built-in type, else JSON.
#[cfg(feature = "protobuf")]
fn compact_codec<K>() -> Compact<K>
where
    K: Object + serde::Serialize + serde::de::DeserializeOwned,
{
    Compact::preferred()
}

/// A compact cache's codec: JSON (Kubernetes' protobuf needs the `protobuf` feature).
#[cfg(not(feature = "protobuf"))]
fn compact_codec<K>() -> Compact<K>
where
    K: Object + serde::Serialize + serde::de::DeserializeOwned,
{
    Compact::json()
}
