//! [`Handlers`]: the tracked handlers' backlogs, read at each scrape, and their call durations.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::histogram::Histogram;

use super::hooks::Labels;
use crate::Registration;

/// A tracked handler: its labels, its registration, and its call-duration histogram.
type Tracked = (Labels, Registration);

/// The handlers reported at each scrape; a removed handler is dropped from the report.
pub(super) struct Handlers {
    tracked: Mutex<Vec<Tracked>>,
    durations: Family<Labels, Histogram, fn() -> Histogram>,
}

impl Handlers {
    pub(super) fn new(histogram: fn() -> Histogram) -> Self {
        Self {
            tracked: Mutex::default(),
            durations: Family::new_with_constructor(histogram),
        }
    }

    /// Reports `registration` under `labels` from now on.
    pub(super) fn track(&self, labels: Labels, registration: &Registration) {
        let histogram = self.durations.get_or_create(&labels).clone();
        let observed = registration
            .shared
            .observe_calls(Arc::new(move |took| histogram.observe(took.as_secs_f64())));
        if !observed {
            tracing::warn!("handler already tracked; its call durations keep their first labels");
        }
        self.tracked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((labels, registration.clone()));
    }
}

impl fmt::Debug for Handlers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tracked = self.tracked.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("Handlers")
            .field("tracked", &tracked.len())
            .finish_non_exhaustive()
    }
}

impl Collector for Handlers {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), fmt::Error> {
        let mut tracked = self.tracked.lock().unwrap_or_else(PoisonError::into_inner);
        tracked.retain(|(labels, registration)| {
            let live = !registration.is_removed();
            if !live {
                self.durations.remove(labels);
            }
            live
        });
        if tracked.is_empty() {
            return Ok(());
        }
        let mut pending = encoder.encode_descriptor(
            "informer_pending_notifications",
            "Number of pending notifications in an event handler's buffer",
            None,
            MetricType::Gauge,
        )?;
        for (labels, registration) in tracked.iter() {
            let backlog = i64::try_from(registration.pending()).unwrap_or(i64::MAX);
            ConstGauge::new(backlog).encode(pending.encode_family(labels)?)?;
        }
        let durations = encoder.encode_descriptor(
            "informer_event_process_duration_seconds",
            "Duration of event processing for each event handler in the informer",
            None,
            MetricType::Histogram,
        )?;
        self.durations.encode(durations)
    }
}
