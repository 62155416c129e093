//! Deleting a custom resource's definition: [`SimHandle::unregister`].

use crate::handle::SimHandle;
use crate::resource::CustomResource;

impl SimHandle {
    /// Stops serving a custom resource, as deleting its CustomResourceDefinition does: every
    /// object of it is deleted (open watches see each delete), then its paths answer 404.
    /// Registering it again serves it anew, empty. Returns false when no such custom resource
    /// was served (built-in resources stay).
    ///
    /// Unlike kube-apiserver, open watches of it are not closed: they stay open and quiet.
    ///
    /// # Examples
    /// ```
    /// use kinformer_core::Scope;
    /// use kinformer_sim::{CustomResource, Sim};
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let sim = Sim::builder().start().await?;
    /// let widgets = CustomResource::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced);
    /// sim.register(widgets.clone()).await?;
    /// assert!(sim.unregister(&widgets).await);
    /// assert!(sim.state("widgets", true).await.is_err());
    /// assert!(!sim.unregister(&widgets).await);
    /// # Ok(()) }
    /// ```
    pub async fn unregister(&self, cr: &CustomResource) -> bool {
        let removed = self
            .shared
            .registry
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .unregister(cr);
        let Some(def) = removed else {
            return false;
        };
        super::delete_all(&self.shared, &def);
        true
    }
}
