//! [`Api`]: one resource type, in one namespace or all, and how its requests are addressed.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use http::Method;
use k8s_openapi::NamespaceResourceScope;
use kinformer_core::{ApiResource, Scope};
use kinformer_rest::{Client, Request, RestClient};
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};

/// Typed reads and writes of one resource type, in one namespace or cluster-wide (client-go's
/// typed clientset, kube-rs's `Api<K>`).
///
/// `K` is any k8s-openapi resource (`Api::<Pod>::namespaced`), or
/// [`DynamicObject`](kinformer_core::DynamicObject) with an [`ApiResource`] for a type known only
/// at run time (`Api::<DynamicObject>::namespaced_with`). An `Api` is a cheap handle: clone it
/// freely; the [`Client`] under it is shared.
///
/// Reads and writes answer owned objects, ready to modify and write back; a list answers the
/// items shared, as the informers hold them. Watches are the informers' business
/// (`kinformer-informer`), not this type's.
///
/// # Examples
/// Create, read-modify-write, patch, apply and delete a ConfigMap:
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_api::{Api, DeleteParams, Patch, PatchParams, PostParams};
/// use kinformer_core::ObjectMeta;
/// use serde_json::json;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let sim = kinformer_sim::Sim::builder().start().await?;
/// # let client = kinformer_rest::Client::new(sim.service());
/// let configmaps: Api<ConfigMap> = Api::namespaced(client, "default");
///
/// let cm = ConfigMap {
///     metadata: ObjectMeta { name: Some("settings".into()), ..Default::default() },
///     data: Some([("mode".to_owned(), "fast".to_owned())].into()),
///     ..Default::default()
/// };
/// configmaps.create(&PostParams::default(), &cm).await?;
///
/// let mut cm = configmaps.get("settings").await?;
/// cm.data.get_or_insert_default().insert("mode".into(), "safe".into());
/// configmaps.replace("settings", &PostParams::default(), &cm).await?; // 409 if it changed meanwhile
///
/// let patch = Patch::Merge(json!({"metadata": {"labels": {"tier": "web"}}}));
/// let cm = configmaps.patch("settings", &PatchParams::default(), &patch).await?;
/// assert_eq!(cm.metadata.labels.unwrap()["tier"], "web");
///
/// configmaps.delete("settings", &DeleteParams::default()).await?;
/// assert!(configmaps.get_opt("settings").await?.is_none());
/// # Ok(()) }
/// ```
pub struct Api<K> {
    rest: RestClient,
    resource: Arc<ApiResource>,
    /// `None`: all namespaces, or a cluster-scoped resource.
    namespace: Option<Arc<str>>,
    /// `None`: the client's.
    request_timeout: Option<Duration>,
    /// `None`: the client's.
    max_retries: Option<u32>,
    _object: PhantomData<fn() -> K>,
}

impl<K: k8s_openapi::Resource> Api<K>
where
    K::Scope: 'static,
{
    /// Every object of `K`: cluster-scoped objects, or a namespaced type across all namespaces
    /// (for lists; a write or a get of one namespaced object needs a namespace).
    pub fn all(client: Client) -> Self {
        Self::all_with(client, &ApiResource::of::<K>())
    }
}

impl<K: k8s_openapi::Resource<Scope = NamespaceResourceScope>> Api<K> {
    /// The objects of the namespaced type `K` in `namespace`.
    pub fn namespaced(client: Client, namespace: &str) -> Self {
        Self::namespaced_with(client, namespace, &ApiResource::of::<K>())
    }

    /// The objects of `K` in the client's default namespace (the kubeconfig context's, the pod's
    /// service account's, else `default`).
    pub fn default_namespaced(client: Client) -> Self {
        Self::default_namespaced_with(client, &ApiResource::of::<K>())
    }
}

impl<K> Api<K> {
    /// Every object of `resource` (see [`all`](Self::all)).
    pub fn all_with(client: Client, resource: &ApiResource) -> Self {
        Self {
            rest: RestClient::for_resource(client, resource),
            resource: Arc::new(resource.clone()),
            namespace: None,
            request_timeout: None,
            max_retries: None,
            _object: PhantomData,
        }
    }

    /// The objects of `resource` in `namespace`; for a cluster-scoped resource the namespace is
    /// ignored. An empty `namespace` does not mean every namespace (that is [`all_with`]): each
    /// call then fails with the request's error naming the empty namespace.
    ///
    /// [`all_with`]: Self::all_with
    pub fn namespaced_with(client: Client, namespace: &str, resource: &ApiResource) -> Self {
        let mut api = Self::all_with(client, resource);
        if resource.scope == Scope::Namespaced {
            api.namespace = Some(namespace.into());
        }
        api
    }

    /// The objects of `resource` in the client's default namespace.
    pub fn default_namespaced_with(client: Client, resource: &ApiResource) -> Self {
        let namespace = client.default_namespace().to_owned();
        Self::namespaced_with(client, &namespace, resource)
    }

    /// The resource this `Api` reads and writes.
    pub fn resource(&self) -> &ApiResource {
        &self.resource
    }

    /// The namespace, or `None` for all namespaces and cluster-scoped resources.
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// Sets [`request_timeout`](Self::request_timeout).
    ///
    /// # Errors
    /// [`Error::Usage`] for zero, which would fail every call.
    ///
    /// ```
    /// use std::time::Duration;
    /// use k8s_openapi::api::core::v1::ConfigMap;
    /// use kinformer_api::Api;
    ///
    /// # let sim = tower::service_fn(|_: http::Request<kinformer_rest::Body>| async {
    /// #     Ok::<_, std::convert::Infallible>(http::Response::new(kinformer_rest::Body::empty()))
    /// # });
    /// # let client = kinformer_rest::Client::new(sim);
    /// let configmaps: Api<ConfigMap> = Api::namespaced(client, "default")
    ///     .with_request_timeout(Duration::from_secs(5))?
    ///     .with_max_retries(0);
    /// assert_eq!(configmaps.request_timeout(), Some(Duration::from_secs(5)));
    /// assert_eq!(configmaps.max_retries(), Some(0));
    /// assert!(configmaps.with_request_timeout(Duration::ZERO).is_err());
    /// # Ok::<(), kinformer_api::Error>(())
    /// ```
    pub fn with_request_timeout(mut self, timeout: Duration) -> Result<Self> {
        if timeout.is_zero() {
            return Err(Error::Usage("a request timeout must be longer than zero"));
        }
        self.request_timeout = Some(timeout);
        Ok(self)
    }

    /// How long each call's request may take before it fails as a timeout; `None`: the
    /// client's.
    pub fn request_timeout(&self) -> Option<Duration> {
        self.request_timeout
    }

    /// Sets [`max_retries`](Self::max_retries); 0 turns the client's retries off, for a
    /// caller that retries by its own rules.
    #[must_use]
    pub fn with_max_retries(mut self, max_retries: u32) -> Self {
        self.max_retries = Some(max_retries);
        self
    }

    /// How often the client retries each call's request (after 429 or 5xx with `Retry-After`,
    /// or a broken connection); `None`: the client's (10).
    pub fn max_retries(&self) -> Option<u32> {
        self.max_retries
    }

    /// A request to the collection: `[/namespaces/<ns>]/<plural>`.
    pub(crate) fn collection(&self, method: Method) -> Request {
        let mut request = self.rest.verb(method);
        if let Some(timeout) = self.request_timeout {
            request = request.timeout(timeout);
        }
        if let Some(max_retries) = self.max_retries {
            request = request.max_retries(max_retries);
        }
        if let Some(ns) = &self.namespace {
            request = request.namespace(ns);
        }
        request.resource(&self.resource.plural)
    }

    /// A request that creates an object, which a namespaced resource needs a namespace for.
    pub(crate) fn create_request(&self) -> Result<Request> {
        self.check_namespace()?;
        Ok(self.collection(Method::POST))
    }

    /// A request to one object or its `subresource`.
    pub(crate) fn object(
        &self,
        method: Method,
        name: &str,
        subresource: Option<&str>,
    ) -> Result<Request> {
        self.check_namespace()?;
        let request = self.collection(method).name(name);
        Ok(match subresource {
            Some(sub) => request.sub_resource(sub),
            None => request,
        })
    }

    fn check_namespace(&self) -> Result<()> {
        if self.resource.scope == Scope::Namespaced && self.namespace.is_none() {
            return Err(Error::Usage(
                "one object of a namespaced resource needs a namespace: use Api::namespaced",
            ));
        }
        Ok(())
    }
}

/// Sends `request` and decodes the answer.
pub(crate) async fn send<T: DeserializeOwned>(request: Request) -> Result<T> {
    request.into::<T>().await.map_err(Error::from_rest)
}

/// [`send`] for a write: when the task's writes are observed
/// ([`observe_writes`](crate::observe_writes)), its observer is told what was stored. A write
/// answers JSON, so reading the body first decodes it as `send` does.
pub(crate) async fn send_write<T: DeserializeOwned>(request: Request) -> Result<T> {
    if !crate::written::observing() {
        return send(request).await;
    }
    let body = request.do_raw().await.map_err(Error::from_rest)?;
    crate::written::note(&body);
    serde_json::from_slice(&body).map_err(Error::Decode)
}

/// Appends query parameters.
pub(crate) fn with_query(mut request: Request, query: Vec<(&'static str, String)>) -> Request {
    for (key, value) in query {
        request = request.param(key, &value);
    }
    request
}

impl<K> Clone for Api<K> {
    fn clone(&self) -> Self {
        Self {
            rest: self.rest.clone(),
            resource: Arc::clone(&self.resource),
            namespace: self.namespace.clone(),
            request_timeout: self.request_timeout,
            max_retries: self.max_retries,
            _object: PhantomData,
        }
    }
}

impl<K> fmt::Debug for Api<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Api")
            .field("resource", &self.resource)
            .field("namespace", &self.namespace)
            .field("request_timeout", &self.request_timeout)
            .field("max_retries", &self.max_retries)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{ConfigMap, Node};

    use super::*;

    fn client() -> Client {
        let nothing = tower::service_fn(|_: http::Request<kinformer_rest::Body>| async {
            Ok::<_, std::convert::Infallible>(http::Response::new(kinformer_rest::Body::empty()))
        });
        Client::new(nothing).with_default_namespace("team-a")
    }

    #[test]
    fn urls_follow_scope_and_namespace() {
        let cms = Api::<ConfigMap>::namespaced(client(), "prod");
        let url = cms.object(Method::GET, "c", Some("status")).unwrap().url();
        assert_eq!(url.unwrap(), "/api/v1/namespaces/prod/configmaps/c/status");
        let defaulted = Api::<ConfigMap>::default_namespaced(client());
        assert_eq!(defaulted.namespace(), Some("team-a"));
        let nodes = Api::<Node>::all(client());
        assert_eq!(
            nodes
                .object(Method::GET, "n1", None)
                .unwrap()
                .url()
                .unwrap(),
            "/api/v1/nodes/n1"
        );
        let all = Api::<ConfigMap>::all(client());
        assert_eq!(
            all.collection(Method::GET).url().unwrap(),
            "/api/v1/configmaps"
        );
        assert!(matches!(
            all.object(Method::GET, "c", None),
            Err(Error::Usage(_))
        ));
        assert!(matches!(all.create_request(), Err(Error::Usage(_))));
        let node_in_ns = Api::<Node>::namespaced_with(client(), "prod", &ApiResource::of::<Node>());
        assert_eq!(node_in_ns.namespace(), None);
    }

    #[test]
    fn an_empty_namespace_is_an_error_not_every_namespace() {
        let cms = Api::<ConfigMap>::namespaced(client(), "");
        let err = cms.collection(Method::GET).url().unwrap_err();
        assert!(
            err.to_string().contains("leave the namespace unset"),
            "{err}"
        );
    }
}
