//! Reads from a synced cache: `get` of single objects by key and the list of one namespace,
//! the reads a compact cache pays a decode for.

use std::time::Instant;

use kinformer::indexer::IndexRead;
use kinformer::indexer::{NAMESPACE_INDEX, ReadOnlyIndexer};
use kinformer_core::{Object, StoreRead as _};

use crate::measure::Report;

/// Objects read one by one by key.
const GETS: usize = 2_000;

/// Times `GETS` gets spread over the cache's keys and one namespace's list; reports the get
/// p50/p99 in microseconds and the list's milliseconds and length.
pub(crate) fn measure<K: Object>(cache: &ReadOnlyIndexer<K>, report: &mut Report) {
    let mut keys = cache.list_keys();
    keys.sort_unstable();
    if keys.is_empty() {
        return;
    }
    let step = (keys.len() / GETS).max(1);
    let mut micros: Vec<f64> = keys
        .iter()
        .step_by(step)
        .take(GETS)
        .map(|key| {
            let started = Instant::now();
            let found = cache.get_by_key(key).is_some();
            let elapsed = started.elapsed().as_secs_f64() * 1e6;
            debug_assert!(found);
            elapsed
        })
        .collect();
    micros.sort_by(f64::total_cmp);
    let at = |q: f64| micros[((micros.len() - 1) as f64 * q).round() as usize];
    report.set("get_p50_us", at(0.50));
    report.set("get_p99_us", at(0.99));

    let namespace = cache
        .list_index_func_values(NAMESPACE_INDEX)
        .into_iter()
        .next()
        .unwrap_or_default();
    let started = Instant::now();
    let listed = cache
        .by_index(NAMESPACE_INDEX, &namespace)
        .unwrap_or_default();
    report.set("list_ns_ms", started.elapsed().as_secs_f64() * 1e3);
    report.set("list_ns_pods", listed.len());
}
