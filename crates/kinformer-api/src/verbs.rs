//! The verbs on the main resource: get, list, create, replace, patch, delete.

use either::Either;
use http::Method;
use kinformer_core::{ListOptions, Lister, ObjectList, Status};
use kinformer_pager::Pager;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::api::{Api, send, send_write, with_query};
use crate::error::{Error, Result};
use crate::params::{DeleteParams, PatchParams, PostParams};
use crate::patch::Patch;

impl<K> Api<K>
where
    K: Serialize + DeserializeOwned + Send + Sync + 'static,
{
    /// Reads one object.
    ///
    /// # Errors
    /// [`Error::NotFound`] when it does not exist; see [`get_opt`](Self::get_opt).
    pub async fn get(&self, name: &str) -> Result<K> {
        send(self.object(Method::GET, name, None)?).await
    }

    /// Reads one object; `None` when it does not exist.
    ///
    /// # Errors
    /// Anything but [`Error::NotFound`].
    pub async fn get_opt(&self, name: &str) -> Result<Option<K>> {
        match self.get(name).await {
            Ok(object) => Ok(Some(object)),
            Err(Error::NotFound(_)) => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// Lists the objects that match `options`, every page of them: the list is read in pages
    /// of 500 (or `options.limit`) through the pager, which follows continue tokens and falls
    /// back to one full list when a token expires. The items are shared (`Arc<K>`) and the list
    /// carries the resourceVersion it was read at.
    ///
    /// ```
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_api::Api;
    /// use kinformer_core::ListOptions;
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let sim = kinformer_sim::Sim::builder().pods(30).namespaces(1).seed(1).start().await?;
    /// # let client = kinformer_rest::Client::new(sim.service());
    /// let pods: Api<Pod> = Api::all(client);
    /// let list = pods.list(&ListOptions::default().limit(10)).await?; // three pages of 10
    /// assert_eq!(list.items.len(), 30);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// The first failing page's error.
    pub async fn list(&self, options: &ListOptions) -> Result<ObjectList<K>> {
        match Pager::new(Pages(self)).list(options).await {
            Ok(paged) => Ok(paged.list),
            Err(
                kinformer_pager::Error::Page { source, .. }
                | kinformer_pager::Error::FullList { source },
            ) => Err(Error::from_rest(source)),
            Err(other) => Err(Error::List(other)),
        }
    }

    /// Creates `object` (in this `Api`'s namespace) and answers it as stored.
    ///
    /// # Errors
    /// [`Error::AlreadyExists`], [`Error::Invalid`], [`Error::Forbidden`], ...
    pub async fn create(&self, params: &PostParams, object: &K) -> Result<K> {
        let request = self.create_request()?.json_body(object);
        send_write(with_query(request, params.query())).await
    }

    /// Replaces object `name` with `object` (client-go `Update`). When `object` carries a
    /// resourceVersion, the server refuses with [`Error::Conflict`] if the stored object has moved
    /// on since: read again and retry ([`retry_on_conflict`](crate::retry_on_conflict)).
    ///
    /// # Errors
    /// [`Error::Conflict`], [`Error::NotFound`], [`Error::Invalid`], ...
    pub async fn replace(&self, name: &str, params: &PostParams, object: &K) -> Result<K> {
        self.put(name, None, params, object).await
    }

    /// Patches object `name` and answers it as stored. A server-side apply
    /// ([`Patch::Apply`]) creates the object when it does not exist.
    ///
    /// ```
    /// use k8s_openapi::api::core::v1::ConfigMap;
    /// use kinformer_api::{Api, Patch, PatchParams};
    /// use serde_json::json;
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let sim = kinformer_sim::Sim::builder().start().await?;
    /// # let client = kinformer_rest::Client::new(sim.service());
    /// let configmaps: Api<ConfigMap> = Api::namespaced(client, "default");
    /// let desired = json!({
    ///     "apiVersion": "v1", "kind": "ConfigMap",
    ///     "metadata": {"name": "owned"},
    ///     "data": {"replicas": "3"},
    /// });
    /// let params = PatchParams::apply("my-controller")?.with_force(true);
    /// let cm = configmaps.patch("owned", &params, &Patch::Apply(&desired)).await?;
    /// assert_eq!(cm.data.unwrap()["replicas"], "3");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::Usage`] for an apply without a field manager or `force` without an apply (not
    /// sent); [`Error::Conflict`] for an apply that would take another manager's fields (with
    /// them listed) or a failed `test` operation's precondition; [`Error::NotFound`] (except
    /// apply), [`Error::Invalid`], ...
    pub async fn patch<P: Serialize>(
        &self,
        name: &str,
        params: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<K> {
        self.patch_at(name, None, params, patch).await
    }

    /// Deletes object `name`. The server answers the object while its deletion is under way
    /// (finalizers, a foreground deletion, a pod's grace period): `Left(object)`, with its
    /// `deletionTimestamp` set; or a `Status` once it is gone: `Right(status)`. Some resources
    /// answer the deleted object even then.
    ///
    /// ```
    /// use k8s_openapi::api::core::v1::ConfigMap;
    /// use kinformer_api::{Api, DeleteParams, PostParams};
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let sim = kinformer_sim::Sim::builder().start().await?;
    /// # let client = kinformer_rest::Client::new(sim.service());
    /// let configmaps: Api<ConfigMap> = Api::namespaced(client, "default");
    /// # let mut cm = ConfigMap::default();
    /// # cm.metadata.name = Some("old".into());
    /// let cm = configmaps.create(&PostParams::default(), &cm).await?;
    /// // Delete only the object that was read, not a namesake created since.
    /// let params = DeleteParams::background().with_uid(cm.metadata.uid.unwrap());
    /// configmaps.delete("old", &params).await?;
    /// assert!(configmaps.get_opt("old").await?.is_none());
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::Conflict`] when a precondition does not hold.
    pub async fn delete(&self, name: &str, params: &DeleteParams) -> Result<Either<K, Status>> {
        let request = self.object(Method::DELETE, name, None)?;
        let bytes = with_query(request.json_body(&params.body()), params.query())
            .do_raw()
            .await?;
        object_or_status(&bytes, |b| serde_json::from_slice(b).map_err(Error::Decode))
    }

    /// Deletes every object that matches `options` (in this `Api`'s namespace, or cluster-wide
    /// for a cluster-scoped resource). The server answers the list of objects it deleted or is
    /// deleting (`Left`), or a `Status` (`Right`).
    ///
    /// # Errors
    /// [`Error::Forbidden`], [`Error::Api`], ...
    pub async fn delete_collection(
        &self,
        params: &DeleteParams,
        options: &ListOptions,
    ) -> Result<Either<ObjectList<K>, Status>> {
        let request = self
            .collection(Method::DELETE)
            .versioned_params(options)
            .json_body(&params.body());
        let bytes = with_query(request, params.query()).do_raw().await?;
        object_or_status(&bytes, |b| {
            kinformer_rest::decoders::decode_list(b).map_err(Error::from_rest)
        })
    }

    /// PUT to the object or a subresource.
    pub(crate) async fn put<T: Serialize + DeserializeOwned>(
        &self,
        name: &str,
        subresource: Option<&str>,
        params: &PostParams,
        object: &T,
    ) -> Result<T> {
        let request = self
            .object(Method::PUT, name, subresource)?
            .json_body(object);
        send_write(with_query(request, params.query())).await
    }

    /// PATCH of the object or a subresource.
    pub(crate) async fn patch_at<P: Serialize, T: DeserializeOwned>(
        &self,
        name: &str,
        subresource: Option<&str>,
        params: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<T> {
        patch.check(params)?;
        let request = self
            .object(Method::PATCH, name, subresource)?
            .header("content-type", patch.patch_type().content_type())
            .body(patch.body()?);
        send_write(with_query(request, params.query())).await
    }
}

/// Decodes a `Status` as `Right`, anything else with `decode` as `Left`.
fn object_or_status<T>(
    bytes: &[u8],
    decode: impl FnOnce(&[u8]) -> Result<T>,
) -> Result<Either<T, Status>> {
    #[derive(serde::Deserialize)]
    struct Kind<'a> {
        #[serde(borrow)]
        kind: Option<std::borrow::Cow<'a, str>>,
    }
    let kind: Kind<'_> = serde_json::from_slice(bytes).map_err(Error::Decode)?;
    if kind.kind.as_deref() == Some("Status") {
        let status = serde_json::from_slice(bytes).map_err(Error::Decode)?;
        return Ok(Either::Right(status));
    }
    decode(bytes).map(Either::Left)
}

/// The list requests of one `Api`, for the pager.
struct Pages<'a, K>(&'a Api<K>);

impl<K> Lister<K> for Pages<'_, K>
where
    K: DeserializeOwned + Send + Sync + 'static,
{
    type Error = kinformer_rest::Error;

    fn list(
        &self,
        options: &ListOptions,
    ) -> impl Future<Output = Result<ObjectList<K>, Self::Error>> + Send {
        self.0
            .collection(Method::GET)
            .versioned_params(options)
            .list::<K>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_is_told_from_an_object() {
        let status =
            br#"{"kind":"Status","apiVersion":"v1","status":"Success","details":{"name":"a"}}"#;
        let answer = object_or_status(status, |_| -> Result<()> { panic!("not an object") });
        let status = answer.unwrap().right().unwrap();
        assert_eq!(status.status.as_deref(), Some("Success"));
        let object = br#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}"#;
        let answer = object_or_status(object, |b| {
            serde_json::from_slice::<serde_json::Value>(b).map_err(Error::Decode)
        });
        assert_eq!(answer.unwrap().left().unwrap()["metadata"]["name"], "a");
        assert!(matches!(
            object_or_status(b"not json", |_| Ok(())),
            Err(Error::Decode(_))
        ));
    }
}
