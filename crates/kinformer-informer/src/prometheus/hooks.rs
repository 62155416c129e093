//! [`Hooks`]: one informer's metrics, as its [`Metrics`] hooks.

use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;

use crate::Metrics;

/// A metric's labels, in order.
pub(super) type Labels = Vec<(String, String)>;

/// A histogram of seconds with `buckets` as upper bounds.
pub(super) fn seconds_histogram(buckets: &[f64]) -> Histogram {
    Histogram::new(buckets.iter().copied())
}

/// client-go's `informer_store_resource_version` keeps a resourceVersion's 15 least significant
/// digits, so it fits a float's exact range; resourceVersions are opaque, and only integer ones
/// (etcd's) make a gauge.
fn low_digits(resource_version: &str) -> Option<i64> {
    let digits = resource_version.as_bytes();
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    resource_version[digits.len().saturating_sub(15)..]
        .parse()
        .ok()
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The metric handles of one informer.
pub(super) struct Hooks {
    pub(super) lists: Counter,
    pub(super) relists: Counter,
    pub(super) list_duration: Histogram,
    pub(super) listed_items: Gauge,
    pub(super) watches: Counter,
    pub(super) short_watches: Counter,
    pub(super) watch_duration: Histogram,
    pub(super) watched_objects: Gauge,
    pub(super) events: Counter,
    pub(super) last_resource_version: Gauge,
    pub(super) queued_items: Gauge,
    pub(super) processing_latency: Histogram,
    pub(super) store_resource_version: Gauge,
    pub(super) store_items: Gauge,
    pub(super) decode_failures: Counter,
}

impl kinformer_reflector::ReflectorMetrics for Hooks {
    fn list_started(&self, relist: bool) {
        self.lists.inc();
        if relist {
            self.relists.inc();
        }
    }

    fn list_done(&self, took: Duration, items: usize) {
        self.list_duration.observe(took.as_secs_f64());
        self.listed_items.set(count(items));
    }

    fn watch_started(&self) {
        self.watches.inc();
    }

    fn short_watch(&self) {
        self.short_watches.inc();
    }

    fn watch_done(&self, took: Duration, objects: u64) {
        self.watch_duration.observe(took.as_secs_f64());
        self.watched_objects
            .set(i64::try_from(objects).unwrap_or(i64::MAX));
    }

    fn event(&self) {
        self.events.inc();
    }

    fn last_resource_version(&self, resource_version: &str) {
        if let Ok(rv) = resource_version.parse::<i64>() {
            self.last_resource_version.set(rv);
        }
    }
}

impl Metrics for Hooks {
    fn processed(&self, latency: Duration, queued: usize, stored: usize, resource_version: &str) {
        self.processing_latency.observe(latency.as_secs_f64());
        self.queued_items.set(count(queued));
        self.store_items.set(count(stored));
        if let Some(rv) = low_digits(resource_version) {
            self.store_resource_version.set(rv);
        }
    }

    fn decode_failed(&self) {
        self.decode_failures.inc();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_15_least_significant_digits_of_integer_versions() {
        assert_eq!(low_digits("42"), Some(42));
        assert_eq!(low_digits("1234567890123456789"), Some(567_890_123_456_789));
        assert_eq!(low_digits(""), None);
        assert_eq!(low_digits("abc"), None);
        assert_eq!(low_digits("-1"), None);
    }
}
