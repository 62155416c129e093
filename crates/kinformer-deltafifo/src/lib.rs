//! DeltaFifo and the in-order queue: client-go's delta queues, with typed tombstones.
