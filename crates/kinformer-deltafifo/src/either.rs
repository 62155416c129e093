//! [`EitherQueue`]: a queue chosen at run time.

use std::sync::Arc;

use kinformer_core::{Cached, Object, Store, StoreError};

use crate::{DeltaFifo, DeltaQueue, Error, Popped, RealFifo};

/// Either queue, so a program can pick one from configuration without being generic over it.
///
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_core::Store;
/// use kinformer_deltafifo::{EitherQueue, DeltaQueue, RealFifo, RealFifoConfig};
///
/// let queue: EitherQueue<ConfigMap> = RealFifo::new(RealFifoConfig::default()).into();
/// queue.add(Arc::new(ConfigMap::default()))?;
/// assert_eq!(queue.queued(), 1);
/// # Ok::<(), kinformer_core::StoreError>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum EitherQueue<K> {
    /// client-go's DeltaFIFO.
    DeltaFifo(DeltaFifo<K>),
    /// The in-order queue.
    RealFifo(RealFifo<K>),
}

impl<K> From<DeltaFifo<K>> for EitherQueue<K> {
    fn from(queue: DeltaFifo<K>) -> Self {
        Self::DeltaFifo(queue)
    }
}

impl<K> From<RealFifo<K>> for EitherQueue<K> {
    fn from(queue: RealFifo<K>) -> Self {
        Self::RealFifo(queue)
    }
}

macro_rules! both {
    ($self:ident, $queue:ident => $body:expr) => {
        match $self {
            Self::DeltaFifo($queue) => $body,
            Self::RealFifo($queue) => $body,
        }
    };
}

impl<K: Object> Store<K> for EitherQueue<K> {
    fn add(&self, obj: Arc<K>) -> Result<(), StoreError> {
        both!(self, q => q.add(obj))
    }

    fn update(&self, obj: Arc<K>) -> Result<(), StoreError> {
        both!(self, q => q.update(obj))
    }

    fn delete(&self, obj: Arc<K>) -> Result<(), StoreError> {
        both!(self, q => q.delete(obj))
    }

    fn replace(&self, list: Vec<Arc<K>>, resource_version: &str) -> Result<(), StoreError> {
        both!(self, q => q.replace(list, resource_version))
    }

    fn replace_admitted(
        &self,
        list: Vec<Cached<K>>,
        resource_version: &str,
    ) -> Result<(), StoreError> {
        both!(self, q => q.replace_admitted(list, resource_version))
    }

    fn resync(&self) -> Result<(), StoreError> {
        both!(self, q => q.resync())
    }

    fn update_resource_version(&self, resource_version: &str) {
        both!(self, q => q.update_resource_version(resource_version))
    }
}

impl<K: Object> DeltaQueue<K> for EitherQueue<K> {
    async fn pop<R, F>(&self, process: F) -> Result<R, Error>
    where
        F: FnOnce(Popped<K>) -> R + Send,
        R: Send,
    {
        both!(self, q => q.pop(process).await)
    }

    async fn synced(&self) {
        both!(self, q => q.synced().await)
    }

    fn has_synced(&self) -> bool {
        both!(self, q => q.has_synced())
    }

    fn close(&self) {
        both!(self, q => q.close())
    }

    fn is_closed(&self) -> bool {
        both!(self, q => q.is_closed())
    }

    fn queued(&self) -> usize {
        both!(self, q => q.queued())
    }
}
