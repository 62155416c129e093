//! [`Metrics`]: what an informer reports as it works, beside its reflector's hooks.

use std::time::Duration;

use kinformer_reflector::{Counters, NoMetrics};

/// Hooks an informer reports to (client-go's informer metrics provider): its reflector's
/// lists and watches through the [`ReflectorMetrics`](kinformer_reflector::ReflectorMetrics)
/// supertrait, and its own loop through [`processed`](Self::processed). Every method has a
/// no-op default, and nothing is measured unless hooks are set.
///
/// `InformerMetrics` (feature `prometheus`) exports them under
/// client-go's names; [`Counters`] counts the reflector's part.
pub trait Metrics: kinformer_reflector::ReflectorMetrics {
    /// One popped item was applied to the cache and handed to the handlers in `latency`.
    /// `queued` items wait in the queue behind it; the cache holds `stored` objects and its
    /// last resourceVersion is `resource_version` (client-go's `informer_queued_items`,
    /// `informer_processing_latency_seconds` and `informer_store_resource_version`).
    fn processed(
        &self,
        _latency: Duration,
        _queued: usize,
        _stored: usize,
        _resource_version: &str,
    ) {
    }

    /// A handler could not be given an object: a compact cache's copy of it failed to decode,
    /// and the handler got [`Error::Decode`](crate::Error::Decode) in place of the call.
    /// Counted once per handler that missed it.
    fn decode_failed(&self) {}
}

impl Metrics for Counters {}

impl Metrics for NoMetrics {}
