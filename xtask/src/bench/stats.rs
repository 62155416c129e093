//! Medians, minima and maxima of a metric across runs.

use super::clients::Run;

/// Median, min and max of one metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Summary {
    pub(crate) median: f64,
    pub(crate) min: f64,
    pub(crate) max: f64,
}

/// A metric derived from one run's raw fields.
pub(crate) type Metric = fn(&Run) -> Option<f64>;

/// A run's numeric field `key`.
pub(crate) fn field(run: &Run, key: &str) -> Option<f64> {
    run.get(key)?.parse().ok()
}

pub(crate) fn sync_secs(run: &Run) -> Option<f64> {
    field(run, "sync_secs")
}

pub(crate) fn steady_mib(run: &Run) -> Option<f64> {
    field(run, "steady_rss").map(|b| b / 1_048_576.0)
}

pub(crate) fn sync_peak_mib(run: &Run) -> Option<f64> {
    field(run, "sync_peak_rss").map(|b| b / 1_048_576.0)
}

/// RSS the cache added, per cached pod.
pub(crate) fn bytes_per_pod(run: &Run) -> Option<f64> {
    let grown = field(run, "steady_rss")? - field(run, "baseline_rss")?;
    let pods = field(run, "pods")?;
    (pods > 0.0).then(|| grown / pods)
}

pub(crate) fn events_per_sec(run: &Run) -> Option<f64> {
    field(run, "events_per_sec")
}

/// Lag from the server's write to the handler at the fixed churn rate, median and 99th percentile.
pub(crate) fn lag_p50_ms(run: &Run) -> Option<f64> {
    field(run, "lag_p50_ms")
}

pub(crate) fn lag_p99_ms(run: &Run) -> Option<f64> {
    field(run, "lag_p99_ms")
}

/// Stamped events per second the handler saw in the lag phase (should be the asked-for rate).
pub(crate) fn lag_rate(run: &Run) -> Option<f64> {
    field(run, "lag_rate")
}

/// `get` of one object by key from the synced cache, 99th percentile, in microseconds.
pub(crate) fn get_p99_us(run: &Run) -> Option<f64> {
    field(run, "get_p99_us")
}

/// `get` of an object read just before (a controller's working set), 99th percentile, in
/// microseconds.
pub(crate) fn hot_get_p99_us(run: &Run) -> Option<f64> {
    field(run, "hot_get_p99_us")
}

/// Listing one namespace (1,000 pods at 50,000) from the synced cache, in milliseconds.
pub(crate) fn list_ns_ms(run: &Run) -> Option<f64> {
    field(run, "list_ns_ms")
}

/// The sim's CPU seconds while it served the sync (a stand-in for the API server's cost).
pub(crate) fn sim_sync_cpu_secs(run: &Run) -> Option<f64> {
    field(run, "sim_sync_cpu_secs")
}

/// Megabytes the sim wrote while it served the sync (the bytes on the wire).
pub(crate) fn sim_sync_mb(run: &Run) -> Option<f64> {
    field(run, "sim_sync_bytes").map(|b| b / 1e6)
}

/// Sync seconds per 1,000 pods.
pub(crate) fn sync_secs_per_kpod(run: &Run) -> Option<f64> {
    let pods = field(run, "pods")?;
    (pods > 0.0).then(|| field(run, "sync_secs").map(|s| s * 1000.0 / pods))?
}

/// The client's CPU seconds (user + system) up to the sync, per 1,000 pods.
pub(crate) fn sync_cpu_secs_per_kpod(run: &Run) -> Option<f64> {
    let pods = field(run, "pods")?;
    (pods > 0.0).then(|| field(run, "sync_cpu_secs").map(|s| s * 1000.0 / pods))?
}

/// Minor page faults (pages touched for the first time) up to the sync, per pod.
pub(crate) fn sync_faults_per_pod(run: &Run) -> Option<f64> {
    let pods = field(run, "pods")?;
    (pods > 0.0).then(|| field(run, "sync_minor_faults").map(|f| f / pods))?
}

/// Peak RSS during a forced relist, as a multiple of the RSS just before it.
pub(crate) fn relist_peak_ratio(run: &Run) -> Option<f64> {
    Some(field(run, "relist_peak_rss")? / field(run, "steady_rss_before_relist")?)
}

/// The summary of `metric` over `runs`; `None` when no run has it.
pub(crate) fn summarize(runs: &[Run], metric: Metric) -> Option<Summary> {
    let mut values: Vec<f64> = runs
        .iter()
        .filter_map(metric)
        .filter(|v| v.is_finite())
        .collect();
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    let median = if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    };
    Some(Summary {
        median,
        min: values[0],
        max: values[values.len() - 1],
    })
}

/// The median of `metric` over `client`'s runs.
pub(crate) fn median(runs: &super::clients::Runs, client: &str, metric: Metric) -> Option<f64> {
    Some(summarize(runs.get(client)?, metric)?.median)
}

/// A table cell of one number: whole above 100 or when whole, else two decimals.
pub(crate) fn number_cell(v: Option<f64>) -> String {
    v.map_or("–".to_owned(), |v| {
        if v.abs() >= 100.0 || v.fract() == 0.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.2}")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pairs: &[(&str, &str)]) -> Run {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn median_min_max_and_derived_metrics() {
        let runs = vec![
            run(&[
                ("sync_secs", "3"),
                ("pods", "10"),
                ("steady_rss", "2000"),
                ("baseline_rss", "1000"),
            ]),
            run(&[
                ("sync_secs", "1"),
                ("pods", "10"),
                ("steady_rss", "3000"),
                ("baseline_rss", "1000"),
            ]),
            run(&[("sync_secs", "2")]),
        ];
        let s = summarize(&runs, sync_secs).unwrap();
        assert_eq!((s.median, s.min, s.max), (2.0, 1.0, 3.0));
        let b = summarize(&runs, bytes_per_pod).unwrap();
        assert_eq!((b.median, b.min, b.max), (150.0, 100.0, 200.0));
        assert!(summarize(&runs, events_per_sec).is_none());
    }
}
