//! [`AnyInformer`]: a factory's view of an informer whatever its object type.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;

use kinformer_core::Object;

use crate::SharedIndexInformer;

/// The type-independent operations a factory runs on its informers.
pub(crate) trait AnyInformer: Send + Sync {
    /// The typed informer, for downcasting.
    fn as_any(&self) -> &dyn Any;
    /// Runs the informer until it is shut down.
    fn run(&self) -> Pin<Box<dyn Future<Output = ()> + Send>>;
    fn has_synced(&self) -> bool;
    fn wait_for_cache_sync(&self) -> Pin<Box<dyn Future<Output = bool> + Send>>;
    fn shutdown(&self);
}

impl<K: Object + Clone> AnyInformer for SharedIndexInformer<K> {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn run(&self) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let informer = self.clone();
        Box::pin(async move {
            if let Err(error) = informer.run().await {
                // Started twice or shut down first: nothing to run.
                tracing::debug!(error = &error as &dyn std::error::Error, "informer not run");
            }
        })
    }

    fn has_synced(&self) -> bool {
        Self::has_synced(self)
    }

    fn wait_for_cache_sync(&self) -> Pin<Box<dyn Future<Output = bool> + Send>> {
        let informer = self.clone();
        Box::pin(async move { informer.wait_for_cache_sync().await.is_ok() })
    }

    fn shutdown(&self) {
        Self::shutdown(self);
    }
}
