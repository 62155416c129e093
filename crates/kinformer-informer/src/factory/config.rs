//! [`FactoryConfig`]: options shared by every informer a factory creates.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use kinformer_core::{ApiResource, ListOptions, ObjectMeta};
use kinformer_reflector::Config as ReflectorConfig;

use crate::{Error, Metrics, QueueKind};

/// A change applied to the metadata of every object of every informer of a factory.
pub(crate) type MetadataTransform = Arc<dyn Fn(&mut ObjectMeta) + Send + Sync>;

/// The metrics hooks of the informer of a resource, by the informer's name and resource.
pub(crate) type MetricsFor = Arc<dyn Fn(&str, &ApiResource) -> Arc<dyn Metrics> + Send + Sync>;

/// A change applied to the options of every list and watch.
pub(crate) type OptionsTweak = Arc<dyn Fn(&mut ListOptions) + Send + Sync>;

/// Options of a [`SharedInformerFactory`](super::SharedInformerFactory) (client-go's
/// `SharedInformerOption`s), for every informer it creates; what one resource's informer keeps
/// of its objects is that resource's own ([`ResourceOptions`](super::ResourceOptions)).
///
/// Every setting has a setter `with_<setting>` and a getter `<setting>`.
///
/// ```
/// use std::time::Duration;
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_core::ApiResource;
/// use kinformer_informer::factory::FactoryConfig;
///
/// let config = FactoryConfig::default()
///     .with_default_resync(Duration::from_secs(600))
///     .with_namespace("prod")?
///     .with_resync_for::<Pod>(Duration::from_secs(60))
///     .with_tweak_list_options(|options| options.label_selector = Some("team=a".into()))
///     .with_transform_metadata(|meta| meta.annotations = None);
/// assert_eq!(config.namespace(), Some("prod"));
/// assert_eq!(config.resync_for(&ApiResource::of::<Pod>()), Duration::from_secs(60));
/// assert!(FactoryConfig::default().with_namespace("").is_err());
/// # Ok::<(), kinformer_informer::Error>(())
/// ```
#[derive(Clone, Default)]
pub struct FactoryConfig {
    default_resync: Duration,
    namespace: Option<String>,
    queue: QueueKind,
    reflector: ReflectorConfig,
    custom_resync: HashMap<ApiResource, Duration>,
    pub(crate) tweak: Option<OptionsTweak>,
    pub(crate) transform: Option<MetadataTransform>,
    pub(crate) metrics: Option<MetricsFor>,
}

impl FactoryConfig {
    /// Sets the resync period of informers without a per-resource one (zero: none).
    #[must_use]
    pub fn with_default_resync(mut self, period: Duration) -> Self {
        self.default_resync = period;
        self
    }

    /// The resync period of informers without a per-resource one.
    pub fn default_resync(&self) -> Duration {
        self.default_resync
    }

    /// Restricts every informer to `namespace` (without it, every namespace).
    ///
    /// # Errors
    /// [`Error::InvalidNamespace`] when `namespace` is not a DNS-1123 label, as no namespace
    /// is; the empty string among them (it is not "every namespace").
    pub fn with_namespace(mut self, namespace: impl Into<String>) -> Result<Self, Error> {
        let namespace = namespace.into();
        if !kinformer_selector::is_dns1123_label(&namespace) {
            return Err(Error::InvalidNamespace { namespace });
        }
        self.namespace = Some(namespace);
        Ok(self)
    }

    /// The namespace every informer watches (`None`: all).
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// Sets the resync period of the informer for the k8s-openapi type `K`.
    #[must_use]
    pub fn with_resync_for<K>(self, period: Duration) -> Self
    where
        K: k8s_openapi::Resource,
        K::Scope: 'static,
    {
        self.with_resync_for_resource(ApiResource::of::<K>(), period)
    }

    /// Sets the resync period of the informer for `resource` (typed or dynamic).
    #[must_use]
    pub fn with_resync_for_resource(mut self, resource: ApiResource, period: Duration) -> Self {
        self.custom_resync.insert(resource, period);
        self
    }

    /// The resync period of the informer for `resource`: its own, else the default.
    pub fn resync_for(&self, resource: &ApiResource) -> Duration {
        self.custom_resync
            .get(resource)
            .copied()
            .unwrap_or(self.default_resync)
    }

    /// Adjusts the options of every list and watch (client-go's `WithTweakListOptions`).
    #[must_use]
    pub fn with_tweak_list_options(
        mut self,
        tweak: impl Fn(&mut ListOptions) + Send + Sync + 'static,
    ) -> Self {
        self.tweak = Some(Arc::new(tweak));
        self
    }

    /// True when list and watch options are tweaked.
    pub fn tweak_list_options(&self) -> bool {
        self.tweak.is_some()
    }

    /// Changes the metadata of every object of every informer as it enters (client-go's
    /// `WithTransform`, for what all types share); it runs before a resource's own transform.
    #[must_use]
    pub fn with_transform_metadata(
        mut self,
        transform: impl Fn(&mut ObjectMeta) + Send + Sync + 'static,
    ) -> Self {
        self.transform = Some(Arc::new(transform));
        self
    }

    /// True when every object's metadata is transformed.
    pub fn transform_metadata(&self) -> bool {
        self.transform.is_some()
    }

    /// Sets the reflector options of every informer (streaming lists, page size, backoff...).
    #[must_use]
    pub fn with_reflector(mut self, reflector: ReflectorConfig) -> Self {
        self.reflector = reflector;
        self
    }

    /// The reflector options every informer starts from (each gets its own name).
    pub fn reflector(&self) -> &ReflectorConfig {
        &self.reflector
    }

    /// Chooses the queue of every informer.
    #[must_use]
    pub fn with_queue(mut self, queue: QueueKind) -> Self {
        self.queue = queue;
        self
    }

    /// The queue every informer uses.
    pub fn queue(&self) -> QueueKind {
        self.queue
    }

    /// Reports every informer the factory creates to the hooks `metrics` gives for it, from
    /// the informer's name (`v1/pods`, `example.com/v1/widgets (dynamic)`, `v1/pods (metadata)`,
    /// as [`wait_for_cache_sync`](super::SharedInformerFactory::wait_for_cache_sync) reports it)
    /// and its resource. With feature `prometheus`, `InformerMetrics::for_informer` is such a
    /// function: every informer then exports client-go's informer and reflector metrics,
    /// labelled by that name and its group, version and resource.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use kinformer_informer::factory::FactoryConfig;
    /// use kinformer_reflector::Counters;
    ///
    /// // Every informer reports to one set of counters.
    /// let counters = Arc::new(Counters::default());
    /// let config = FactoryConfig::default().with_metrics(move |_name, _resource| counters.clone());
    /// assert!(config.metrics());
    /// ```
    #[must_use]
    pub fn with_metrics(
        mut self,
        metrics: impl Fn(&str, &ApiResource) -> Arc<dyn Metrics> + Send + Sync + 'static,
    ) -> Self {
        self.metrics = Some(Arc::new(metrics));
        self
    }

    /// True when the factory's informers report metrics.
    pub fn metrics(&self) -> bool {
        self.metrics.is_some()
    }
}

impl fmt::Debug for FactoryConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FactoryConfig")
            .field("default_resync", &self.default_resync)
            .field("namespace", &self.namespace)
            .field("queue", &self.queue)
            .field("reflector", &self.reflector)
            .field("custom_resync", &self.custom_resync)
            .field("tweak", &self.tweak.is_some())
            .field("transform", &self.transform.is_some())
            .field("metrics", &self.metrics.is_some())
            .finish()
    }
}
