//! [`SharedInformerFactory`]: one shared informer per resource type over one client.

mod config;
mod erased;

use std::any::TypeId;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use kinformer_core::{ApiResource, DynamicObject, Object, PartialObjectMetadata};
use kinformer_indexer::Indexer;
use kinformer_listwatch::ListWatch;
use kinformer_reflector::{TypeCheck, expect_kind};
use kinformer_rest::{Client, RestClient};
use serde::de::DeserializeOwned;
use tokio::task::JoinHandle;

use crate::{Config, SharedIndexInformer, Transform};
use kinformer_deltafifo::DeltaQueue;

use crate::queues::make_queue;
use erased::AnyInformer;

pub use config::FactoryConfig;

/// Creates and shares informers: one per resource type, all over one [`Client`] (so one
/// HTTP/2 connection), with common options (client-go's `SharedInformerFactory`).
///
/// Asking twice for the same type returns the same informer. [`start`](Self::start) runs every
/// informer not yet running; [`wait_for_cache_sync`](Self::wait_for_cache_sync) reports which
/// synced; [`shutdown`](Self::shutdown) stops them all and waits.
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
    /// let synced = factory.wait_for_cache_sync().await;
    /// assert_eq!(synced.get("v1/pods"), Some(&true));
    /// assert_eq!(pods.lister().list(&Default::default()).len(), 10);
    /// factory.shutdown().await;
    /// # Ok(()) }
    /// ```
    pub fn informer_for<K>(&self) -> SharedIndexInformer<K>
    where
        K: k8s_openapi::Resource + Object + Clone + DeserializeOwned,
        K::Scope: 'static,
    {
        let queue = self.inner.config.queue;
        self.informer_with_queue(ApiResource::of::<K>(), objects, None, move |known| {
            make_queue(queue, known)
        })
    }

    /// The informer for a resource known only at run time (a custom resource, say), with
    /// objects as [`DynamicObject`]s; watch objects of another kind are skipped.
    pub fn dynamic_informer(&self, resource: ApiResource) -> SharedIndexInformer<DynamicObject> {
        let queue = self.inner.config.queue;
        let check = expect_kind(&resource.api_version(), &resource.kind);
        self.informer_with_queue(resource, objects, Some(check), move |known| {
            make_queue(queue, known)
        })
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
    /// factory.wait_for_cache_sync().await;
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
        let queue = self.inner.config.queue;
        let metadata = |client: &Client, resource: &ApiResource| {
            let rest = RestClient::for_resource(client.clone(), resource);
            ListWatch::metadata(rest, resource.clone())
        };
        self.informer_with_queue(resource, metadata, None, move |known| {
            make_queue(queue, known)
        })
    }

    /// The informer for `resource` with objects decoded as `K`, created on first use with the
    /// factory's options and the queue `make_queue` builds.
    pub(crate) fn informer_with_queue<K, Q>(
        &self,
        resource: ApiResource,
        source: impl FnOnce(&Client, &ApiResource) -> ListWatch<K, RestClient>,
        type_check: Option<TypeCheck<K>>,
        make_queue: impl FnOnce(Arc<Indexer<K>>) -> Q + Send + 'static,
    ) -> SharedIndexInformer<K>
    where
        K: Object + Clone + DeserializeOwned,
        Q: DeltaQueue<K> + Send + Sync + 'static,
    {
        let mut state = self.lock();
        let key = (TypeId::of::<K>(), resource);
        if let Some(existing) = state
            .informers
            .get(&key)
            .and_then(|e| e.informer.as_any().downcast_ref::<SharedIndexInformer<K>>())
        {
            return existing.clone();
        }
        let resource = key.1.clone();
        let source = source(&self.inner.client, &resource);
        let dynamic = TypeId::of::<K>() == TypeId::of::<DynamicObject>();
        let name = describe(&resource, dynamic, source.is_metadata_only());
        let informer = self.build(&resource, source, type_check, make_queue);
        state.informers.insert(
            key,
            Entry {
                name,
                informer: Box::new(informer.clone()),
                task: None,
            },
        );
        informer
    }

    fn build<K, Q>(
        &self,
        resource: &ApiResource,
        mut source: ListWatch<K, RestClient>,
        type_check: Option<TypeCheck<K>>,
        make_queue: impl FnOnce(Arc<Indexer<K>>) -> Q + Send + 'static,
    ) -> SharedIndexInformer<K>
    where
        K: Object + Clone + DeserializeOwned,
        Q: DeltaQueue<K> + Send + Sync + 'static,
    {
        let options = &self.inner.config;
        if let Some(ns) = &options.namespace {
            source = source.namespace(ns.clone());
        }
        if let Some(tweak) = options.tweak.clone() {
            source = source.modify(move |o| tweak(o));
        }
        let mut config = Config::default()
            .name(resource.plural.clone())
            .resync_period(options.resync_of(resource))
            .queue(options.queue)
            .reflector(
                options
                    .reflector
                    .clone()
                    .name(describe(resource, false, false)),
            );
        if let Some(transform) = options.transform.clone() {
            config = config.transform(Transform::new(move |obj: &mut K| {
                transform(obj.meta_mut());
            }));
        }
        if let Some(check) = type_check {
            config = config.type_check(check);
        }
        if options.keep_managed_fields {
            SharedIndexInformer::with_queue(source.with_managed_fields(), config, make_queue)
        } else if let Some(projection) = options.projections.get(resource) {
            SharedIndexInformer::with_queue(source.project(projection.clone()), config, make_queue)
        } else {
            SharedIndexInformer::with_queue(source, config, make_queue)
        }
    }

    /// Starts every informer that is not running yet, each on its own task; safe to call again
    /// after adding informers. Does nothing once [`shutdown`](Self::shutdown) began.
    ///
    /// # Panics
    /// Outside a tokio runtime (it spawns tasks).
    pub fn start(&self) {
        let mut state = self.lock();
        if state.shutting_down {
            return;
        }
        for entry in state.informers.values_mut() {
            if entry.task.is_none() {
                entry.task = Some(tokio::spawn(entry.informer.run()));
            }
        }
    }

    /// Waits until every started informer has synced or stopped, and reports each one by name
    /// (`v1/pods`, `apps/v1/deployments`, ...). Wrap it in a timeout to bound the wait.
    ///
    /// # Cancel safety
    /// Cancel safe: it only observes.
    pub async fn wait_for_cache_sync(&self) -> BTreeMap<String, bool> {
        let waits: Vec<_> = {
            let state = self.lock();
            state
                .informers
                .values()
                .filter(|e| e.task.is_some())
                .map(|e| (e.name.clone(), e.informer.wait_for_cache_sync()))
                .collect()
        };
        let mut synced = BTreeMap::new();
        for (name, wait) in waits {
            synced.insert(name, wait.await);
        }
        synced
    }

    /// Which started informers have synced, now, by name.
    pub fn sync_status(&self) -> BTreeMap<String, bool> {
        let state = self.lock();
        state
            .informers
            .values()
            .filter(|e| e.task.is_some())
            .map(|e| (e.name.clone(), e.informer.has_synced()))
            .collect()
    }

    /// Stops every informer and waits until each has stopped (handler callbacks included).
    /// Informers created afterwards are never started.
    ///
    /// # Cancel safety
    /// Every informer is told to stop at the first poll; dropping only stops the waiting.
    pub async fn shutdown(&self) {
        let tasks: Vec<_> = {
            let mut state = self.lock();
            state.shutting_down = true;
            state
                .informers
                .values_mut()
                .filter_map(|e| {
                    e.informer.shutdown();
                    e.task.take()
                })
                .collect()
        };
        for task in tasks {
            // Finished or cancelled by runtime shutdown: either way it has stopped.
            drop(task.await);
        }
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

/// The source of an informer of whole objects.
fn objects<K>(client: &Client, resource: &ApiResource) -> ListWatch<K, RestClient> {
    ListWatch::from_client(client.clone(), resource.clone())
}

/// `v1/pods`, `apps/v1/deployments`; dynamic informers get a `(dynamic)` suffix and
/// metadata-only ones `(metadata)`, so informers of one resource stay apart.
fn describe(resource: &ApiResource, dynamic: bool, metadata_only: bool) -> String {
    let mut name = format!("{}/{}", resource.api_version(), resource.plural);
    if dynamic {
        name.push_str(" (dynamic)");
    }
    if metadata_only {
        name.push_str(" (metadata)");
    }
    name
}

#[cfg(test)]
mod tests;
