//! [`SharedInformerFactory`]: one shared informer per resource type over one client.

mod build;
mod config;
mod erased;
mod lifecycle;
mod resource;

use std::any::TypeId;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use kinformer_core::{ApiResource, DynamicObject, Object, PartialObjectMetadata};
use kinformer_deltafifo::DeltaQueue;
use kinformer_indexer::Indexer;
use kinformer_rest::Client;
use serde::de::DeserializeOwned;
use tokio::task::JoinHandle;

use crate::SharedIndexInformer;
use crate::error::{Conflict, Result};
use crate::queues::make_queue;
use erased::AnyInformer;
use resource::Objects;

pub use config::FactoryConfig;
pub use resource::ResourceOptions;

/// Creates and shares informers: one per resource type, all over one [`Client`] (so one
/// HTTP/2 connection), with common options (client-go's `SharedInformerFactory`).
///
/// Asking twice for the same type returns the same informer;
/// [`informer_with`](Self::informer_with) creates one with its own [`ResourceOptions`] (cache
/// mode, indexes, transform), and [`forget`](Self::forget) stops and drops one.
/// [`start`](Self::start) runs every informer not yet running;
/// [`wait_for_cache_sync`](Self::wait_for_cache_sync) reports which synced;
/// [`shutdown`](Self::shutdown) stops them all and waits. With
/// [`FactoryConfig::metrics`], every informer it creates reports its metrics.
///
/// Cloning gives another handle to the same factory.
pub struct SharedInformerFactory {
    inner: Arc<Inner>,
}

struct Inner {
    client: Client,
    config: FactoryConfig,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    informers: HashMap<(TypeId, ApiResource), Entry>,
    shutting_down: bool,
}

struct Entry {
    name: String,
    informer: Box<dyn AnyInformer>,
    task: Option<JoinHandle<()>>,
    /// Set by `start`, kept after shutdown: whether the sync waits count this informer.
    started: bool,
}

impl SharedInformerFactory {
    /// A factory over `client` with `config`.
    pub fn new(client: Client, config: FactoryConfig) -> Self {
        Self {
            inner: Arc::new(Inner {
                client,
                config,
                state: Mutex::new(State::default()),
            }),
        }
    }

    /// The options every informer gets.
    pub fn config(&self) -> &FactoryConfig {
        &self.inner.config
    }

    /// The informer for the k8s-openapi type `K`, created on first use.
    ///
    /// # Examples
    /// ```
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
    /// use kinformer_rest::Client;
    /// use kinformer_sim::Sim;
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let sim = Sim::builder().pods(10).seed(1).start().await?;
    /// let factory = SharedInformerFactory::new(Client::new(sim.service()), FactoryConfig::default());
    /// let pods = factory.informer_for::<Pod>();
    /// factory.start();
    /// factory.wait_for_cache_sync().await?;
    /// assert_eq!(factory.sync_status().get("v1/pods"), Some(&true));
    /// assert_eq!(pods.lister().list(&Default::default()).len(), 10);
    /// factory.shutdown().await;
    /// # Ok(()) }
    /// ```
    pub fn informer_for<K>(&self) -> SharedIndexInformer<K>
    where
        K: k8s_openapi::Resource + Object + Clone + DeserializeOwned,
        K::Scope: 'static,
    {
        self.shared(ResourceOptions::typed())
    }

    /// The informer for a resource known only at run time (a custom resource, say), with
    /// objects as [`DynamicObject`]s; watch objects of another kind are skipped.
    pub fn dynamic_informer(&self, resource: ApiResource) -> SharedIndexInformer<DynamicObject> {
        self.shared(ResourceOptions::dynamic(resource))
    }

    /// The metadata-only informer for any resource, built-in or custom (client-go's
    /// `metadatainformer`): its lists and watches ask the server for `PartialObjectMetadata`,
    /// so the cache holds names, labels, annotations, owners and versions only.
    ///
    /// # Examples
    /// ```
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::ApiResource;
    /// use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
    /// use kinformer_rest::Client;
    /// use kinformer_sim::Sim;
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let sim = Sim::builder().pods(10).seed(1).start().await?;
    /// let factory = SharedInformerFactory::new(Client::new(sim.service()), FactoryConfig::default());
    /// let pods = factory.metadata_informer(ApiResource::of::<Pod>());
    /// factory.start();
    /// factory.wait_for_cache_sync().await?;
    /// let cached = pods.lister().list(&Default::default());
    /// assert_eq!(cached.len(), 10);
    /// assert_eq!(cached[0].kind(), "PartialObjectMetadata");
    /// factory.shutdown().await;
    /// # Ok(()) }
    /// ```
    pub fn metadata_informer(
        &self,
        resource: ApiResource,
    ) -> SharedIndexInformer<PartialObjectMetadata> {
        self.shared(ResourceOptions::metadata(resource))
    }

    /// Creates the informer `options` describe (its resource, object type, cache mode,
    /// indexes and transform), with the factory's other options. Later requests for the same
    /// resource and object type ([`informer_for`](Self::informer_for) and the like) return it.
    ///
    /// # Errors
    /// [`Error::Options`](crate::Error::Options) with [`Conflict::AlreadyCreated`] when the
    /// factory holds that informer already (the options would be ignored).
    ///
    /// # Examples
    /// ```
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::StoreRead as _;
    /// use kinformer_informer::factory::{FactoryConfig, ResourceOptions, SharedInformerFactory};
    /// use kinformer_rest::Client;
    /// use kinformer_sim::Sim;
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let sim = Sim::builder().pods(10).seed(1).start().await?;
    /// let factory = SharedInformerFactory::new(Client::new(sim.service()), FactoryConfig::default());
    /// let pods = factory.informer_with(ResourceOptions::<Pod>::typed().with_shape(
    ///     kinformer_core::ObjectShape::default().with_holding(kinformer_core::Holding::Compact),
    /// ))?;
    /// factory.start();
    /// factory.wait_for_cache_sync().await?;
    /// let held = pods.indexer().list_cached();
    /// assert!(held.iter().all(|pod| pod.decoded().is_none()), "held packed");
    /// assert_eq!(pods.lister().list(&Default::default()).len(), 10);
    /// // The factory's shared informer of pods is this one.
    /// assert!(factory.informer_for::<Pod>().indexer().same_cache(pods.indexer()));
    /// factory.shutdown().await;
    /// # Ok(()) }
    /// ```
    pub fn informer_with<K>(&self, options: ResourceOptions<K>) -> Result<SharedIndexInformer<K>>
    where
        K: Object + Clone + DeserializeOwned,
    {
        let queue = self.inner.config.queue();
        self.create_or_get(
            options,
            move |known| make_queue(queue, known),
            Existing::Refuse,
        )
    }

    /// Stops the informer of `resource` whose objects are `K` (`DynamicObject` for a
    /// [`dynamic_informer`](Self::dynamic_informer), `PartialObjectMetadata` for a
    /// [`metadata_informer`](Self::metadata_informer)) and drops it: its handlers stop, and the
    /// next request for it creates a new one (started by the next [`start`](Self::start)).
    /// Returns once its task has ended; false when the factory held no such informer.
    ///
    /// For a resource that went away (a deleted custom resource definition) or one to rebuild
    /// with other options. client-go's factory cannot do this.
    ///
    /// # Cancel safety
    /// The informer is stopped and dropped at the first poll; dropping only stops the waiting.
    pub async fn forget<K: Object + Clone>(&self, resource: &ApiResource) -> bool {
        let entry = self
            .lock()
            .informers
            .remove(&(TypeId::of::<K>(), resource.clone()));
        let Some(entry) = entry else {
            return false;
        };
        entry.informer.shutdown();
        if let Some(task) = entry.task {
            // Finished or cancelled by runtime shutdown: either way it has stopped.
            drop(task.await);
        }
        true
    }

    /// The shared informer `options` describe: the existing one, else created from them.
    fn shared<K>(&self, options: ResourceOptions<K>) -> SharedIndexInformer<K>
    where
        K: Object + Clone + DeserializeOwned,
    {
        let queue = self.inner.config.queue();
        self.informer_with_queue(options, move |known| make_queue(queue, known))
    }

    /// The informer `options` describe, created on first use with the factory's options and
    /// the queue `make_queue` builds.
    pub(crate) fn informer_with_queue<K, Q>(
        &self,
        options: ResourceOptions<K>,
        make_queue: impl FnOnce(Arc<Indexer<K>>) -> Q + Send + 'static,
    ) -> SharedIndexInformer<K>
    where
        K: Object + Clone + DeserializeOwned,
        Q: DeltaQueue<K> + Send + Sync + 'static,
    {
        match self.create_or_get(options, make_queue, Existing::Share) {
            Ok(informer) => informer,
            // Shared informers meet no conflict: the factory's own options hold together, and
            // one key holds one object type.
            Err(error) => unreachable!("{error}"),
        }
    }

    /// Creates the informer `options` describe, or with [`Existing::Share`] returns the one
    /// the factory holds already.
    fn create_or_get<K, Q>(
        &self,
        options: ResourceOptions<K>,
        make_queue: impl FnOnce(Arc<Indexer<K>>) -> Q + Send + 'static,
        existing: Existing,
    ) -> Result<SharedIndexInformer<K>>
    where
        K: Object + Clone + DeserializeOwned,
        Q: DeltaQueue<K> + Send + Sync + 'static,
    {
        let mut state = self.lock();
        let key = (TypeId::of::<K>(), options.resource().clone());
        if let Some(entry) = state.informers.get(&key) {
            return match existing {
                Existing::Share => entry
                    .informer
                    .as_any()
                    .downcast_ref::<SharedIndexInformer<K>>()
                    .cloned()
                    .ok_or_else(|| options.conflict(Conflict::AlreadyCreated)),
                Existing::Refuse => Err(options.conflict(Conflict::AlreadyCreated)),
            };
        }
        let objects = options.objects();
        let parts = options.into_parts();
        let name = describe(&parts.0, objects);
        let informer = self.build(&name, parts, make_queue);
        state.informers.insert(
            key,
            Entry {
                name,
                informer: Box::new(informer.clone()),
                task: None,
                started: false,
            },
        );
        Ok(informer)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Registry bookkeeping only; every section leaves it consistent.
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Clone for SharedInformerFactory {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl fmt::Debug for SharedInformerFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self
            .lock()
            .informers
            .values()
            .map(|e| e.name.clone())
            .collect();
        f.debug_struct("SharedInformerFactory")
            .field("config", &self.inner.config)
            .field("informers", &names)
            .finish_non_exhaustive()
    }
}

/// What to do when the factory holds the informer asked for.
#[derive(Clone, Copy)]
enum Existing {
    /// Hand it out.
    Share,
    /// Refuse: options cannot apply to an informer that exists.
    Refuse,
}

/// `v1/pods`, `apps/v1/deployments`; dynamic informers get a `(dynamic)` suffix and
/// metadata-only ones `(metadata)`, so informers of one resource stay apart.
fn describe(resource: &ApiResource, objects: Objects) -> String {
    let mut name = format!("{}/{}", resource.api_version(), resource.plural);
    match objects {
        Objects::Typed => {}
        Objects::Dynamic => name.push_str(" (dynamic)"),
        Objects::Metadata => name.push_str(" (metadata)"),
    }
    name
}

#[cfg(test)]
mod tests;
