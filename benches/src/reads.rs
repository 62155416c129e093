//! Reads from a synced cache: `get` of single objects by key and the list of one namespace,
//! the reads a compact cache pays a decode for.

use std::time::Instant;

use kinformer::indexer::IndexRead;
use kinformer::indexer::{NAMESPACE_INDEX, ReadOnlyIndexer};
use kinformer_core::{Object, StoreRead as _};

use crate::measure::Report;

/// Objects read one by one by key.
const GETS: usize = 2_000;

/// Objects read again right after a first read: a controller's working set, smaller than a
/// tiered cache's default hot set.
const HOT_GETS: usize = 500;

/// Times `GETS` gets spread over the cache's keys, the last `HOT_GETS` of them again, and one
/// namespace's list; reports the get p50/p99 (and the repeated gets' p99) in microseconds and
/// the list's milliseconds and length.
pub(crate) fn measure<K: Object>(cache: &ReadOnlyIndexer<K>, report: &mut Report) {
    let mut keys = cache.list_keys();
    keys.sort_unstable();
    if keys.is_empty() {
        return;
    }
    let step = (keys.len() / GETS).max(1);
    let spread: Vec<&String> = keys.iter().step_by(step).take(GETS).collect();
    let cold = timed_gets(cache, &spread);
    report.set("get_p50_us", percentile(&cold, 0.50));
    report.set("get_p99_us", percentile(&cold, 0.99));
    // The last keys read, read again: what a tiered cache keeps decoded.
    let hot = timed_gets(cache, &spread[spread.len().saturating_sub(HOT_GETS)..]);
    report.set("hot_get_p99_us", percentile(&hot, 0.99));

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

/// Each of `keys` read by `get`, in microseconds, sorted.
fn timed_gets<K: Object>(cache: &ReadOnlyIndexer<K>, keys: &[&String]) -> Vec<f64> {
    let mut micros: Vec<f64> = keys
        .iter()
        .map(|key| {
            let started = Instant::now();
            let found = cache.get_by_key(key).is_some();
            let elapsed = started.elapsed().as_secs_f64() * 1e6;
            debug_assert!(found);
            elapsed
        })
        .collect();
    micros.sort_by(f64::total_cmp);
    micros
}

/// The `q` quantile of sorted `micros`.
fn percentile(micros: &[f64], q: f64) -> f64 {
    micros[((micros.len() - 1) as f64 * q).round() as usize]
}
