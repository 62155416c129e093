//! [`RestClient`] (one group-version) and [`Getter`] (anything that yields a GET request).

use std::sync::Arc;

use http::Method;
use kinformer_core::ApiResource;

use crate::client::Client;
use crate::request::Request;

/// The content type of a PATCH request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PatchType {
    /// RFC 6902 JSON patch.
    Json,
    /// RFC 7386 merge patch.
    Merge,
    /// Kubernetes strategic merge patch.
    StrategicMerge,
    /// Server-side apply.
    Apply,
}

impl PatchType {
    /// The `Content-Type` of this patch type.
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Json => "application/json-patch+json",
            Self::Merge => "application/merge-patch+json",
            Self::StrategicMerge => "application/strategic-merge-patch+json",
            Self::Apply => "application/apply-patch+yaml",
        }
    }
}

/// A REST client for one API group-version (client-go `RESTClient`): every request it builds
/// starts at `/api/v1` or `/apis/<group>/<version>`.
///
/// # Examples
/// ```
/// use k8s_openapi::api::apps::v1::Deployment;
/// use kinformer_core::ApiResource;
/// use kinformer_rest::{Client, RestClient};
///
/// # let client = Client::new(tower::service_fn(|_r: http::Request<kinformer_rest::Body>| async {
/// #     Ok::<_, std::convert::Infallible>(http::Response::new(kinformer_rest::Body::empty()))
/// # }));
/// let apps = RestClient::for_resource(client, &ApiResource::of::<Deployment>());
/// assert_eq!(apps.base_path(), "/apis/apps/v1");
/// let url = apps.delete().namespace("ns").resource("deployments").name("web").url()?;
/// assert_eq!(url, "/apis/apps/v1/namespaces/ns/deployments/web");
/// # Ok::<(), kinformer_rest::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct RestClient {
    client: Client,
    base_path: Arc<str>,
}

impl RestClient {
    /// A client for `group`/`version`; the empty group is the core group (`/api/v1`).
    pub fn new(client: Client, group: &str, version: &str) -> Self {
        let base_path = if group.is_empty() {
            format!("/api/{version}")
        } else {
            format!("/apis/{group}/{version}")
        };
        Self {
            client,
            base_path: base_path.into(),
        }
    }

    /// A client for the group-version of `resource`.
    pub fn for_resource(client: Client, resource: &ApiResource) -> Self {
        Self::new(client, &resource.group, &resource.version)
    }

    /// The group-version path, e.g. `/apis/apps/v1`.
    pub fn base_path(&self) -> &str {
        &self.base_path
    }

    /// The underlying client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// A request with the given method.
    pub fn verb(&self, method: Method) -> Request {
        Request::new(self.client.clone(), method, &*self.base_path)
    }

    /// A GET request.
    pub fn get(&self) -> Request {
        self.verb(Method::GET)
    }

    /// A POST request.
    pub fn post(&self) -> Request {
        self.verb(Method::POST)
    }

    /// A PUT request.
    pub fn put(&self) -> Request {
        self.verb(Method::PUT)
    }

    /// A DELETE request.
    pub fn delete(&self) -> Request {
        self.verb(Method::DELETE)
    }

    /// A PATCH request with the patch type's content type.
    pub fn patch(&self, patch: PatchType) -> Request {
        self.verb(Method::PATCH)
            .header("content-type", patch.content_type())
    }
}

/// Anything that yields a GET [`Request`] rooted at one group-version (client-go `Getter`,
/// what `ListWatch` is built on).
///
/// ```
/// use kinformer_rest::{Getter, RestClient};
///
/// fn pods_url(getter: &impl Getter) -> String {
///     getter.get().resource("pods").url().unwrap()
/// }
/// # let client = kinformer_rest::Client::new(tower::service_fn(|_r: http::Request<kinformer_rest::Body>| async {
/// #     Ok::<_, std::convert::Infallible>(http::Response::new(kinformer_rest::Body::empty()))
/// # }));
/// assert_eq!(pods_url(&RestClient::new(client, "", "v1")), "/api/v1/pods");
/// ```
pub trait Getter: Send + Sync {
    /// A new GET request.
    fn get(&self) -> Request;
}

impl Getter for RestClient {
    fn get(&self) -> Request {
        Self::get(self)
    }
}

impl<T: Getter + ?Sized> Getter for &T {
    fn get(&self) -> Request {
        (**self).get()
    }
}

impl<T: Getter + ?Sized> Getter for Box<T> {
    fn get(&self) -> Request {
        (**self).get()
    }
}

impl<T: Getter + ?Sized> Getter for Arc<T> {
    fn get(&self) -> Request {
        (**self).get()
    }
}
