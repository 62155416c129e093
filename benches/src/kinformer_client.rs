//! kinformer: a shared pod informer with one handler and the default queue.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kinformer::informer::{Config, HandlerFns, SharedIndexInformer, trim_pod_capacity};
use kinformer_core::{
    ApiResource, DeletedState, Fields, Holding, Object, ObjectShape, Projection, StoreRead as _,
};
use kinformer_listwatch::ListWatch;
use kinformer_reflector::{Config as ReflectorConfig, Counters};
use kinformer_rest::{Client, ContentType, RestClient};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::time::{Instant, sleep};

use crate::control::Control;
use crate::lag::{self, LagSamples};
use crate::measure::{Report, peak_rss, report_burst, report_sync, reset_peak, rss};
use crate::{Options, setup};

pub(crate) async fn run(options: &Options, report: &mut Report) -> Result<(), String> {
    let started = Instant::now();
    let mut config = setup::kinformer_config(&options.kubeconfig)?;
    if options.mode == "kinformer-json" {
        // The defaults on a client that asks for JSON (protobuf is the default).
        config = config.with_content_type(ContentType::Json);
    }
    let client = Client::from_config(&config).map_err(|e| e.to_string())?;
    let counters = Arc::new(Counters::default());
    let reflector =
        ReflectorConfig::default().with_streaming_list(options.mode != "kinformer-paged");
    let metrics = Arc::clone(&counters) as Arc<dyn kinformer::informer::Metrics>;
    // The headline row (`kinformer`) is the library's defaults: the reflector's name and the
    // counters the bench reads are its only settings. Other modes change one thing each.
    let default = ObjectShape::default();
    if options.mode == "kinformer-metadata" {
        // A metadata-only informer of the same pods.
        let pods = ApiResource::of::<Pod>();
        let source = ListWatch::metadata(RestClient::for_resource(client, &pods), pods);
        let informer = SharedIndexInformer::new(source, base(reflector, metrics, default))
            .map_err(|e| e.to_string())?;
        return drive(informer, &counters, options, report, started).await;
    }
    let config = |shape| base(reflector.clone(), Arc::clone(&metrics), shape);
    let config = match options.mode.as_str() {
        "kinformer-keep" => config(default.with_fields(Fields::All)),
        "kinformer-compact" => config(default.with_holding(Holding::Compact)),
        "kinformer-tiered" => config(default.with_holding(Holding::tiered())),
        "kinformer-compressed" => config(default.with_holding(Holding::Compact))
            .with_compression(kinformer::indexer::Compression::default()),
        // Metadata, the node, the phase, and the containers' names and images.
        "kinformer-projected" => config(
            default.with_fields(Fields::projected(
                Projection::keep([
                    "spec.nodeName",
                    "status.phase",
                    "spec.containers[].name",
                    "spec.containers[].image",
                ])
                .map_err(|e| e.to_string())?,
            )),
        ),
        // Each pod as decoded, its lists trimmed in place, instead of copied exactly sized.
        "kinformer-trim" => {
            config(default.with_holding(Holding::AsDecoded)).with_transform(trim_pod_capacity())
        }
        _ => config(default),
    };
    let informer = SharedIndexInformer::new(ListWatch::<Pod, _>::for_type(client), config)
        .map_err(|e| e.to_string())?;
    drive(informer, &counters, options, report, started).await
}

/// The config every mode starts from: the library's defaults, named, reporting to the bench.
fn base<K: Object + Serialize + DeserializeOwned>(
    reflector: ReflectorConfig,
    metrics: Arc<dyn kinformer::informer::Metrics>,
    shape: ObjectShape,
) -> Config<K> {
    Config::default()
        .with_reflector(reflector)
        .with_name("pods")
        .with_metrics(metrics)
        .with_shape(shape)
}

/// Syncs `informer`, then (unless sync only) takes the burst, the lag phase and the relist.
async fn drive<K: Object + Clone>(
    informer: SharedIndexInformer<K>,
    counters: &Counters,
    options: &Options,
    report: &mut Report,
    started: Instant,
) -> Result<(), String> {
    let handled = Arc::new(AtomicU64::new(0));
    let lags = Arc::new(LagSamples::default());
    let registration = informer
        .add_event_handler(counting(&handled, &lags))
        .map_err(|e| e.to_string())?;
    let running = setup::run_until_synced(&informer, &registration).await?;
    let sync = started.elapsed();
    let pods = informer.indexer().len();
    report_sync(options, report, sync, pods).await;
    crate::reads::measure(informer.indexer(), report);
    if options.sync_only {
        return setup::stop(&informer, running).await;
    }

    let control = Control::new(&options.control)?;
    let before = handled.load(Ordering::Relaxed);
    let burst_started = Instant::now();
    control.burst(options.burst).await?;
    let deadline = burst_started + Duration::from_secs(120);
    while handled.load(Ordering::Relaxed) - before < options.burst && Instant::now() < deadline {
        sleep(Duration::from_millis(2)).await;
    }
    let seen = handled.load(Ordering::Relaxed) - before;
    report_burst(report, seen, burst_started);
    sleep(Duration::from_millis(500)).await;
    lag::measure(options, &control, &lags, report).await?;

    if options.relist {
        sleep(Duration::from_millis(500)).await;
        let lists_before = counters.snapshot().lists;
        report.set("steady_rss_before_relist", rss());
        reset_peak();
        control.force_relist().await?;
        sleep(options.relist_window(sync)).await;
        report.set("relist_peak_rss", peak_rss());
        report.set("relists", counters.snapshot().lists - lists_before);
    }
    setup::stop(&informer, running).await
}

/// The one handler: counts events, and records the lag of stamped writes.
fn counting<K: Object>(handled: &Arc<AtomicU64>, lags: &Arc<LagSamples>) -> HandlerFns<K> {
    let (a, u, d) = (
        Arc::clone(handled),
        Arc::clone(handled),
        Arc::clone(handled),
    );
    let (add_lags, update_lags) = (Arc::clone(lags), Arc::clone(lags));
    HandlerFns::new()
        .add_fn(move |obj: &Arc<K>, initial| {
            if !initial {
                a.fetch_add(1, Ordering::Relaxed);
                add_lags.record(obj.meta());
            }
        })
        .update_fn(move |_: &Arc<K>, obj: &Arc<K>| {
            u.fetch_add(1, Ordering::Relaxed);
            update_lags.record(obj.meta());
        })
        .delete_fn(move |_: &DeletedState<K>| {
            d.fetch_add(1, Ordering::Relaxed);
        })
}
