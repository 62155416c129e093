//! Lag from the simulator's write to the handler, at a fixed churn rate.
//!
//! The simulator stamps each churn write with its wall-clock time (annotation
//! `kinformer.dev/written-at`, unix nanoseconds); the handler subtracts it from its own clock.
//! Both processes share the machine's clock.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use tokio::time::{Instant, sleep};

use crate::Options;
use crate::control::Control;
use crate::measure::Report;

/// The annotation the simulator's churn stamps when asked to.
pub(crate) const WRITTEN_AT: &str = "kinformer.dev/written-at";

/// Lag samples, recorded only while a lag phase runs and only for writes made during it.
#[derive(Debug, Default)]
pub(crate) struct LagSamples {
    /// Unix nanoseconds the phase started at; 0 while no phase runs.
    since: AtomicU64,
    nanos: Mutex<Vec<u64>>,
}

fn unix_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

impl LagSamples {
    /// Records the lag of `pod`'s write, if it was stamped during the running phase.
    pub(crate) fn record(&self, metadata: &ObjectMeta) {
        let since = self.since.load(Ordering::Relaxed);
        if since == 0 {
            return;
        }
        let Some(written) = metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(WRITTEN_AT))
            .and_then(|s| s.parse::<u64>().ok())
        else {
            return;
        };
        if written < since {
            return;
        }
        let lag = unix_nanos().saturating_sub(written);
        if let Ok(mut nanos) = self.nanos.lock() {
            nanos.push(lag);
        }
    }

    fn len(&self) -> usize {
        self.nanos.lock().map_or(0, |n| n.len())
    }

    fn take(&self) -> Vec<u64> {
        self.nanos
            .lock()
            .map(|mut n| std::mem::take(&mut *n))
            .unwrap_or_default()
    }
}

/// The `q` quantile (0..=1) of sorted `values`, nearest rank.
fn quantile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// Churns `--lag-rate` stamped updates per second for `--lag-secs` and reports the lag's p50,
/// p99 and max. The client's handler runs on its own task meanwhile.
pub(crate) async fn measure(
    options: &Options,
    control: &Control,
    samples: &LagSamples,
    report: &mut Report,
) -> Result<(), String> {
    if options.lag_rate <= 0.0 {
        return Ok(());
    }
    let count = (options.lag_rate * options.lag_secs).round() as u64;
    let _ = samples.take();
    samples.since.store(unix_nanos(), Ordering::Relaxed);
    let started = Instant::now();
    control.churn_stamped(options.lag_rate, count).await?;
    let deadline = started + Duration::from_secs_f64(options.lag_secs + 15.0);
    while (samples.len() as u64) < count && Instant::now() < deadline {
        sleep(Duration::from_millis(5)).await;
    }
    samples.since.store(0, Ordering::Relaxed);
    let elapsed = started.elapsed().as_secs_f64();
    let mut lags = samples.take();
    lags.sort_unstable();
    let ms = |n: u64| n as f64 / 1e6;
    report.set("lag_samples", lags.len());
    report.set("lag_rate", lags.len() as f64 / elapsed);
    report.set("lag_p50_ms", ms(quantile(&lags, 0.50)));
    report.set("lag_p99_ms", ms(quantile(&lags, 0.99)));
    report.set("lag_max_ms", ms(quantile(&lags, 1.0)));
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn stamped(nanos: u64) -> ObjectMeta {
        ObjectMeta {
            annotations: Some(BTreeMap::from([(WRITTEN_AT.to_owned(), nanos.to_string())])),
            ..ObjectMeta::default()
        }
    }

    #[test]
    fn records_only_writes_stamped_during_the_phase() {
        let samples = LagSamples::default();
        samples.record(&stamped(unix_nanos()));
        assert_eq!(samples.len(), 0, "no phase running");
        let since = unix_nanos();
        samples.since.store(since, Ordering::Relaxed);
        samples.record(&stamped(since - 1));
        samples.record(&ObjectMeta::default());
        samples.record(&stamped(since));
        let lags = samples.take();
        assert_eq!(lags.len(), 1);
        assert!(lags[0] < 10_000_000_000, "{lags:?}");
    }

    #[test]
    fn nearest_rank_quantiles() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(
            (quantile(&v, 0.5), quantile(&v, 0.99), quantile(&v, 1.0)),
            (50, 99, 100)
        );
        assert_eq!(quantile(&[], 0.5), 0);
        assert_eq!(quantile(&[7], 0.99), 7);
    }
}
