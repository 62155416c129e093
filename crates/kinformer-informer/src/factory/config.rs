//! [`FactoryConfig`]: options shared by every informer a factory creates.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use kinformer_core::{ApiResource, ListOptions, ObjectMeta};
use kinformer_reflector::Config as ReflectorConfig;
use kinformer_rest::Projection;

use crate::{Metrics, QueueKind};

/// A change applied to the metadata of every object of every informer of a factory.
pub(crate) type MetadataTransform = Arc<dyn Fn(&mut ObjectMeta) + Send + Sync>;

/// The metrics hooks of the informer of a resource, by the informer's name and resource.
pub(crate) type MetricsFor = Arc<dyn Fn(&str, &ApiResource) -> Arc<dyn Metrics> + Send + Sync>;

/// A change applied to the options of every list and watch.
pub(crate) type OptionsTweak = Arc<dyn Fn(&mut ListOptions) + Send + Sync>;

/// Options of a [`SharedInformerFactory`](super::SharedInformerFactory) (client-go's
/// `SharedInformerOption`s).
///
/// ```
/// use std::time::Duration;
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_informer::factory::FactoryConfig;
///
/// let config = FactoryConfig::default()
///     .default_resync(Duration::from_secs(600))
///     .namespace("prod")
///     .resync_for::<Pod>(Duration::from_secs(60))
///     .tweak_list_options(|options| options.label_selector = Some("team=a".into()))
///     .transform_metadata(|meta| meta.annotations = None);
/// assert_eq!(config.namespace.as_deref(), Some("prod"));
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct FactoryConfig {
    /// The resync period of informers without a per-type one; zero: none.
    pub default_resync: Duration,
    /// Watch only this namespace (all when `None`).
    pub namespace: Option<String>,
    /// Keep `metadata.managedFields` (dropped by default).
    pub keep_managed_fields: bool,
    /// The queue every informer uses.
    pub queue: QueueKind,
    /// The reflector options every informer starts from (each gets its own name).
    pub reflector: ReflectorConfig,
    pub(crate) custom_resync: HashMap<ApiResource, Duration>,
    pub(crate) projections: HashMap<ApiResource, Projection>,
    pub(crate) tweak: Option<OptionsTweak>,
    pub(crate) transform: Option<MetadataTransform>,
    pub(crate) metrics: Option<MetricsFor>,
}

impl FactoryConfig {
    /// Sets the default resync period.
    #[must_use]
    pub fn default_resync(mut self, period: Duration) -> Self {
        self.default_resync = period;
        self
    }

    /// Restricts every informer to `namespace` (`""`: all namespaces).
    #[must_use]
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into()).filter(|ns| !ns.is_empty());
        self
    }

    /// Sets the resync period of the informer for the k8s-openapi type `K`.
    #[must_use]
    pub fn resync_for<K>(self, period: Duration) -> Self
    where
        K: k8s_openapi::Resource,
        K::Scope: 'static,
    {
        self.resync_for_resource(ApiResource::of::<K>(), period)
    }

    /// Sets the resync period of the informer for `resource` (typed or dynamic).
    #[must_use]
    pub fn resync_for_resource(mut self, resource: ApiResource, period: Duration) -> Self {
        self.custom_resync.insert(resource, period);
        self
    }

    /// Decodes the objects of `resource` through `projection`: the fields it drops (or does
    /// not keep) are skipped by the parser, and the informer's cache and handlers never hold
    /// them. Ignored with `keep_managed_fields`, which asks for whole objects.
    #[must_use]
    pub fn projection_for(mut self, resource: ApiResource, projection: Projection) -> Self {
        self.projections.insert(resource, projection);
        self
    }

    /// Adjusts the options of every list and watch (client-go's `WithTweakListOptions`).
    #[must_use]
    pub fn tweak_list_options(
        mut self,
        tweak: impl Fn(&mut ListOptions) + Send + Sync + 'static,
    ) -> Self {
        self.tweak = Some(Arc::new(tweak));
        self
    }

    /// Changes the metadata of every object of every informer as it enters the queue
    /// (client-go's `WithTransform`, for what all types share).
    #[must_use]
    pub fn transform_metadata(
        mut self,
        transform: impl Fn(&mut ObjectMeta) + Send + Sync + 'static,
    ) -> Self {
        self.transform = Some(Arc::new(transform));
        self
    }

    /// Decodes `metadata.managedFields` (`true`) or skips them while parsing (`false`, the
    /// default).
    #[must_use]
    pub fn keep_managed_fields(mut self, keep: bool) -> Self {
        self.keep_managed_fields = keep;
        self
    }

    /// Sets the reflector options of every informer (streaming lists, page size, backoff...).
    #[must_use]
    pub fn reflector(mut self, reflector: ReflectorConfig) -> Self {
        self.reflector = reflector;
        self
    }

    /// Chooses the queue of every informer.
    #[must_use]
    pub fn queue(mut self, queue: QueueKind) -> Self {
        self.queue = queue;
        self
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
    /// let config = FactoryConfig::default().metrics(move |_name, _resource| counters.clone());
    /// # let _ = config;
    /// ```
    #[must_use]
    pub fn metrics(
        mut self,
        metrics: impl Fn(&str, &ApiResource) -> Arc<dyn Metrics> + Send + Sync + 'static,
    ) -> Self {
        self.metrics = Some(Arc::new(metrics));
        self
    }

    pub(crate) fn resync_of(&self, resource: &ApiResource) -> Duration {
        self.custom_resync
            .get(resource)
            .copied()
            .unwrap_or(self.default_resync)
    }
}

impl fmt::Debug for FactoryConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FactoryConfig")
            .field("default_resync", &self.default_resync)
            .field("namespace", &self.namespace)
            .field("keep_managed_fields", &self.keep_managed_fields)
            .field("queue", &self.queue)
            .field("reflector", &self.reflector)
            .field("custom_resync", &self.custom_resync)
            .field("projections", &self.projections)
            .field("tweak", &self.tweak.is_some())
            .field("transform", &self.transform.is_some())
            .field("metrics", &self.metrics.is_some())
            .finish()
    }
}
