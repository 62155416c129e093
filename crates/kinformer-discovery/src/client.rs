//! [`Discovery`]: the server's resources, cached in memory and on disk, and names resolved
//! against them with one refresh when a name is not found.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use kinformer_core::{ApiResource, DynamicObject};
use kinformer_informer::SharedIndexInformer;
use kinformer_informer::factory::SharedInformerFactory;
use kinformer_rest::Client;
use tokio::sync::Mutex;

use crate::disk::{DEFAULT_TTL, DiskCache, default_cache_dir, server_dir};
use crate::error::{Error, Result};
use crate::fetch::{Form, fetch};
use crate::mapper::RestMapper;
use crate::model::{Resource, ServerResources};

/// Discovery over one client (client-go's cached discovery client with a deferred REST mapper,
/// as kubectl uses them).
///
/// The first use asks the server (or reads kubectl's disk cache, when one is set and fresh);
/// the answer is kept in memory. A name or kind that is not found refreshes it from the
/// server once before [`Error::NotFound`](crate::Error::NotFound) is returned, so resources
/// created since (a new CRD) are found. Concurrent callers share one request.
///
/// Cloning gives another handle to the same cache.
///
/// # Examples
/// A dynamic informer for a resource named as kubectl names it:
/// ```
/// use kinformer_core::Scope;
/// use kinformer_discovery::Discovery;
/// use kinformer_informer::factory::{FactoryConfig, SharedInformerFactory};
/// use kinformer_rest::Client;
/// use kinformer_sim::{CustomResource, Sim};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let sim = Sim::builder().pods(5).seed(1).start().await?;
/// let client = Client::new(sim.service());
/// let discovery = Discovery::new(client.clone());
///
/// let deployments = discovery.resolve("deploy").await?;
/// assert_eq!((deployments.group.as_str(), deployments.plural.as_str()), ("apps", "deployments"));
///
/// // Registered after the first discovery: found after one refresh.
/// sim.register(CustomResource::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced))
///     .await?;
/// let factory = SharedInformerFactory::new(client, FactoryConfig::default());
/// let widgets = discovery.dynamic_informer(&factory, "widgets.example.com").await?;
/// let pods = discovery.dynamic_informer(&factory, "po").await?;
/// factory.start();
/// factory.wait_for_cache_sync().await?;
/// assert_eq!(pods.lister().list(&Default::default()).len(), 5);
/// assert!(widgets.lister().list(&Default::default()).is_empty());
/// factory.shutdown().await;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Discovery {
    client: Client,
    form: Form,
    cache_dir: Option<PathBuf>,
    ttl: Duration,
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    current: Option<Snapshot>,
    /// Set by [`Discovery::invalidate`]: the next load skips the disk cache.
    invalidated: bool,
    /// Counts loads, so a caller that missed can tell whether someone refreshed since.
    generation: u64,
}

#[derive(Debug, Clone)]
struct Snapshot {
    mapper: Arc<RestMapper>,
    generation: u64,
}

impl Discovery {
    /// Discovery over `client`, cached in memory only, asking for aggregated discovery.
    pub fn new(client: Client) -> Self {
        Self {
            client,
            form: Form::default(),
            cache_dir: None,
            ttl: DEFAULT_TTL,
            state: Arc::default(),
        }
    }

    /// Also caches on disk as kubectl does, under `cache_dir` (kubectl's `--cache-dir`):
    /// `cache_dir/discovery/<host_port>/...`. Clients without a server URL (an in-process
    /// service) have no disk cache.
    #[must_use]
    pub fn with_cache_dir(mut self, cache_dir: impl Into<PathBuf>) -> Self {
        self.cache_dir = Some(cache_dir.into());
        self
    }

    /// Caches on disk in kubectl's default directory ([`default_cache_dir`]: `$KUBECACHEDIR`,
    /// else `~/.kube/cache`); without a home directory, in memory only.
    #[must_use]
    pub fn with_default_cache_dir(mut self) -> Self {
        self.cache_dir = default_cache_dir();
        self
    }

    /// The directory the disk cache is under, if any (the server's own is
    /// [`server_cache_dir`](Self::server_cache_dir)).
    pub fn cache_dir(&self) -> Option<&Path> {
        self.cache_dir.as_deref()
    }

    /// Sets how long files in the disk cache are trusted after they were written (default:
    /// [`DEFAULT_TTL`], six hours, as kubectl).
    #[must_use]
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// How long files in the disk cache are trusted after they were written.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// Sets which documents to ask the server for (default: aggregated, with the legacy
    /// fallback).
    #[must_use]
    pub fn with_form(mut self, form: Form) -> Self {
        self.form = form;
        self
    }

    /// Which documents are asked for.
    pub fn form(&self) -> Form {
        self.form
    }

    /// The directory of this server's disk cache, if any.
    pub fn server_cache_dir(&self) -> Option<PathBuf> {
        let base = self.client.base_url();
        if base.is_empty() {
            return None;
        }
        self.cache_dir.as_deref().map(|dir| server_dir(dir, base))
    }

    /// Everything the server serves, from the cache or the server.
    ///
    /// # Errors
    /// [`Error::Request`](crate::Error::Request) or [`Error::Decode`](crate::Error::Decode)
    /// when the server had to be asked and failed.
    pub async fn server_resources(&self) -> Result<Arc<ServerResources>> {
        Ok(self.mapper().await?.server_resources().clone())
    }

    /// The REST mapper over the cached resources.
    ///
    /// # Errors
    /// As [`server_resources`](Self::server_resources).
    pub async fn mapper(&self) -> Result<Arc<RestMapper>> {
        Ok(self.snapshot().await?.mapper)
    }

    /// Forgets what was discovered: the next use asks the server, not the disk cache.
    pub async fn invalidate(&self) {
        let mut state = self.state.lock().await;
        state.current = None;
        state.invalidated = true;
    }

    /// Asks the server now, replacing the cache in memory and on disk.
    ///
    /// # Errors
    /// As [`server_resources`](Self::server_resources).
    pub async fn refresh(&self) -> Result<Arc<RestMapper>> {
        self.invalidate().await;
        self.mapper().await
    }

    /// The resource `name` names, as `kubectl get` accepts it (`deploy`, `po`,
    /// `widgets.example.com`, `deployments.v1.apps`, `Deployment`; see [`RestMapper`]).
    ///
    /// # Errors
    /// [`Error::NotFound`](crate::Error::NotFound) when nothing fits even after a refresh,
    /// [`Error::Incomplete`](crate::Error::Incomplete) when nothing fits but a group version
    /// that could serve the name could not be read, [`Error::Ambiguous`](crate::Error::Ambiguous),
    /// or a discovery failure.
    pub async fn resolve(&self, name: &str) -> Result<ApiResource> {
        Ok(self.find(name).await?.api_resource())
    }

    /// As [`resolve`](Self::resolve), with everything discovery says about the resource
    /// (verbs, short names, subresources).
    ///
    /// # Errors
    /// As [`resolve`](Self::resolve).
    pub async fn find(&self, name: &str) -> Result<Resource> {
        let qualifier = name.split_once('.').map(|(_, rest)| rest.to_lowercase());
        // An unqualified name could be served by any group; `name.group` and
        // `name.version.group` only by that group.
        let could_serve = |group: &str| match &qualifier {
            None => true,
            Some(rest) => rest == group || rest.ends_with(&format!(".{group}")),
        };
        self.with_refresh(name, could_serve, |mapper| {
            let found = mapper.resolve(name)?;
            // The core group comes first for every unqualified name: while it could not be
            // read, a name found elsewhere may be a lesser match (`pods` as metrics.k8s.io's
            // PodMetrics).
            let core_failed = failures(mapper, |group| group.is_empty());
            if qualifier.is_none() && !found.group.is_empty() && !core_failed.is_empty() {
                return Err(Error::Incomplete {
                    name: name.to_owned(),
                    failed: core_failed,
                });
            }
            Ok(found.clone())
        })
        .await
    }

    /// The resource serving `kind` in `group`, in `version` or the preferred one (see
    /// [`RestMapper::resource_for_kind`]).
    ///
    /// # Errors
    /// [`Error::KindNotFound`](crate::Error::KindNotFound) when nothing serves it even after a
    /// refresh, [`Error::Incomplete`](crate::Error::Incomplete) when a version of `group` could
    /// not be read, or a discovery failure.
    pub async fn resolve_kind(
        &self,
        group: &str,
        kind: &str,
        version: Option<&str>,
    ) -> Result<ApiResource> {
        self.with_refresh(
            kind,
            |g| g == group,
            |mapper| {
                mapper
                    .resource_for_kind(group, kind, version)
                    .map(Resource::api_resource)
            },
        )
        .await
    }

    /// `factory`'s dynamic informer for the resource `name` names (see
    /// [`resolve`](Self::resolve)); not started.
    ///
    /// # Errors
    /// As [`resolve`](Self::resolve).
    pub async fn dynamic_informer(
        &self,
        factory: &SharedInformerFactory,
        name: &str,
    ) -> Result<SharedIndexInformer<DynamicObject>> {
        Ok(factory.dynamic_informer(self.resolve(name).await?))
    }

    /// Runs `lookup` on the cached mapper; when it finds nothing, or discovery was incomplete,
    /// refreshes once (unless another caller refreshed meanwhile) and runs it again. Nothing
    /// found while a group version of a group that `could_serve` could not be read is
    /// [`Error::Incomplete`], not a miss.
    async fn with_refresh<T>(
        &self,
        name: &str,
        could_serve: impl Fn(&str) -> bool,
        lookup: impl Fn(&RestMapper) -> Result<T>,
    ) -> Result<T> {
        let snapshot = self.snapshot().await?;
        let mapper = match lookup(&snapshot.mapper) {
            Err(e) if e.is_not_found() || matches!(e, Error::Incomplete { .. }) => {
                tracing::debug!(error = %e, "not in discovery; refreshing once");
                self.reload_after(snapshot.generation).await?.mapper
            }
            other => return other,
        };
        match lookup(&mapper) {
            Err(e) if e.is_not_found() => {
                let failed = failures(&mapper, could_serve);
                if failed.is_empty() {
                    Err(e)
                } else {
                    Err(Error::Incomplete {
                        name: name.to_owned(),
                        failed,
                    })
                }
            }
            other => other,
        }
    }

    async fn snapshot(&self) -> Result<Snapshot> {
        let mut state = self.state.lock().await;
        if let Some(current) = &state.current {
            return Ok(current.clone());
        }
        let disk = self.disk();
        let cached = if state.invalidated {
            None
        } else {
            disk.as_ref().and_then(DiskCache::read)
        };
        let resources = match cached {
            Some(resources) => resources,
            None => self.ask_server(disk.as_ref()).await?,
        };
        Ok(Self::store(&mut state, resources))
    }

    /// Asks the server, unless a load newer than `generation` already happened.
    async fn reload_after(&self, generation: u64) -> Result<Snapshot> {
        let mut state = self.state.lock().await;
        if let Some(current) = state.current.as_ref().filter(|c| c.generation > generation) {
            return Ok(current.clone());
        }
        let resources = self.ask_server(self.disk().as_ref()).await?;
        Ok(Self::store(&mut state, resources))
    }

    async fn ask_server(&self, disk: Option<&DiskCache>) -> Result<ServerResources> {
        let resources = fetch(&self.client, self.form).await?;
        if let Some(disk) = disk {
            disk.write(&resources);
        }
        Ok(resources)
    }

    fn store(state: &mut State, resources: ServerResources) -> Snapshot {
        state.generation += 1;
        state.invalidated = false;
        let snapshot = Snapshot {
            mapper: Arc::new(RestMapper::new(Arc::new(resources))),
            generation: state.generation,
        };
        state.current = Some(snapshot.clone());
        snapshot
    }

    fn disk(&self) -> Option<DiskCache> {
        self.server_cache_dir()
            .map(|dir| DiskCache::new(dir, self.ttl))
    }
}

/// The group versions discovery could not read whose group passes `group`, with the reasons.
fn failures(mapper: &RestMapper, group: impl Fn(&str) -> bool) -> Vec<(String, String)> {
    mapper
        .server_resources()
        .failed
        .iter()
        .filter(|(gv, _)| group(gv.rsplit_once('/').map_or("", |(g, _)| g)))
        .cloned()
        .collect()
}
