//! The `status` and `scale` subresources.

use http::Method;
use k8s_openapi::api::autoscaling::v1::Scale;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::api::{Api, send};
use crate::error::Result;
use crate::params::{PatchParams, PostParams};
use crate::patch::Patch;

impl<K> Api<K>
where
    K: Serialize + DeserializeOwned + Send + Sync + 'static,
{
    /// Reads object `name` through its `status` subresource.
    ///
    /// # Errors
    /// [`Error::NotFound`](crate::Error::NotFound) when the object, or the resource's status
    /// subresource, does not exist.
    pub async fn get_status(&self, name: &str) -> Result<K> {
        send(self.object(Method::GET, name, Some("status"))?).await
    }

    /// Writes the status of object `name`: only `status` changes (a change of `spec` in
    /// `object` is ignored by the server), so a controller reports what it observed without
    /// touching what users asked for. Optimistic concurrency holds as for
    /// [`replace`](Self::replace).
    ///
    /// ```
    /// use k8s_openapi::api::apps::v1::{Deployment, DeploymentStatus};
    /// use kinformer_api::{Api, PostParams};
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let sim = kinformer_sim::Sim::builder().start().await?;
    /// # let client = kinformer_rest::Client::new(sim.service());
    /// # let deployments: Api<Deployment> = Api::namespaced(client, "default");
    /// # let web: Deployment = serde_json::from_value(serde_json::json!({
    /// #     "metadata": {"name": "web"},
    /// #     "spec": {"selector": {"matchLabels": {"app": "web"}},
    /// #              "template": {"metadata": {"labels": {"app": "web"}},
    /// #                           "spec": {"containers": [{"name": "c", "image": "nginx"}]}}},
    /// # }))?;
    /// # deployments.create(&PostParams::default(), &web).await?;
    /// let mut web = deployments.get_status("web").await?;
    /// web.status = Some(DeploymentStatus {
    ///     observed_generation: web.metadata.generation,
    ///     ..Default::default()
    /// });
    /// let web = deployments.replace_status("web", &PostParams::default(), &web).await?;
    /// assert_eq!(web.status.unwrap().observed_generation, web.metadata.generation);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`replace`](Self::replace).
    pub async fn replace_status(&self, name: &str, params: &PostParams, object: &K) -> Result<K> {
        self.put(name, Some("status"), params, object).await
    }

    /// Patches the status of object `name` (the server ignores anything outside `status`).
    ///
    /// # Errors
    /// As [`patch`](Self::patch).
    pub async fn patch_status<P: Serialize>(
        &self,
        name: &str,
        params: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<K> {
        self.patch_at(name, Some("status"), params, patch).await
    }

    /// Reads the `scale` subresource of object `name` (deployments, replica sets, stateful
    /// sets, custom resources that declare one).
    ///
    /// # Errors
    /// [`Error::NotFound`](crate::Error::NotFound) when the object, or the resource's scale
    /// subresource, does not exist.
    pub async fn get_scale(&self, name: &str) -> Result<Scale> {
        send(self.object(Method::GET, name, Some("scale"))?).await
    }

    /// Sets the replicas of object `name` through its `scale` subresource.
    ///
    /// ```no_run
    /// use k8s_openapi::api::apps::v1::Deployment;
    /// use kinformer_api::{Api, Patch, PatchParams, PostParams};
    /// use serde_json::json;
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let sim = kinformer_sim::Sim::builder().start().await?;
    /// # let client = kinformer_rest::Client::new(sim.service());
    /// # let deployments: Api<Deployment> = Api::namespaced(client, "default");
    /// # let web: Deployment = serde_json::from_value(json!({
    /// #     "metadata": {"name": "web"},
    /// #     "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
    /// #              "template": {"metadata": {"labels": {"app": "web"}},
    /// #                           "spec": {"containers": [{"name": "c", "image": "nginx"}]}}},
    /// # }))?;
    /// # deployments.create(&PostParams::default(), &web).await?;
    /// let mut scale = deployments.get_scale("web").await?;
    /// scale.spec.get_or_insert_default().replicas = Some(3);
    /// deployments.replace_scale("web", &PostParams::default(), &scale).await?;
    ///
    /// let patch = Patch::Merge(json!({"spec": {"replicas": 5}}));
    /// let scale = deployments.patch_scale("web", &PatchParams::default(), &patch).await?;
    /// assert_eq!(scale.spec.unwrap().replicas, Some(5));
    /// assert_eq!(deployments.get("web").await?.spec.replicas, Some(5));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`replace`](Self::replace).
    pub async fn replace_scale(
        &self,
        name: &str,
        params: &PostParams,
        scale: &Scale,
    ) -> Result<Scale> {
        self.put(name, Some("scale"), params, scale).await
    }

    /// Patches the `scale` subresource of object `name`.
    ///
    /// # Errors
    /// As [`patch`](Self::patch).
    pub async fn patch_scale<P: Serialize>(
        &self,
        name: &str,
        params: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<Scale> {
        self.patch_at(name, Some("scale"), params, patch).await
    }
}
