//! The peer: kube-rs `watcher()` + `reflector()` into a `Store`, at its defaults, or with
//! `.modify()` stripping managedFields.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt as _;
use k8s_openapi::api::core::v1::Pod;
use kube::runtime::{WatchStreamExt as _, reflector, watcher};
use kube::{Api, ResourceExt as _};
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep};

use crate::control::Control;
use crate::lag::{self, LagSamples};
use crate::measure::{Report, peak_rss, report_burst, report_sync, reset_peak, rss};
use crate::{Options, setup};

/// What the stream consumer tells the measuring side.
enum Seen {
    Synced,
    Event,
    Relisted,
}

pub(crate) async fn run(options: &Options, report: &mut Report) -> Result<(), String> {
    let started = Instant::now();
    let client = setup::kube_client(&options.kubeconfig).await?;
    let api: Api<Pod> = Api::all(client);
    let (reader, writer) = reflector::store();
    let strip = options.mode == "kube-strip";
    let (tx, mut rx) = mpsc::unbounded_channel();
    let lags = Arc::new(LagSamples::default());
    let consumer_lags = Arc::clone(&lags);
    let consumer = tokio::spawn(async move {
        let stream = watcher(api, watcher::Config::default()).modify(move |pod| {
            if strip {
                pod.managed_fields_mut().clear();
            }
        });
        let mut stream = std::pin::pin!(reflector(writer, stream));
        let mut synced = false;
        while let Some(event) = stream.next().await {
            let seen = match event {
                Ok(watcher::Event::InitDone) if !synced => {
                    synced = true;
                    Seen::Synced
                }
                Ok(watcher::Event::InitDone) => Seen::Relisted,
                Ok(watcher::Event::Apply(pod)) => {
                    // The reflector has stored the object: this is kube-rs's handler point.
                    consumer_lags.record(&pod.metadata);
                    Seen::Event
                }
                Ok(watcher::Event::Delete(_)) => Seen::Event,
                Ok(_) | Err(_) => continue,
            };
            if tx.send(seen).is_err() {
                break;
            }
        }
    });
    loop {
        match rx.recv().await {
            Some(Seen::Synced) => break,
            Some(_) => {}
            None => return Err("watcher ended before syncing".into()),
        }
    }
    let sync = started.elapsed();
    report_sync(options, report, sync, reader.state().len()).await;
    if options.sync_only {
        consumer.abort();
        return Ok(());
    }

    let control = Control::new(&options.control)?;
    let burst_started = Instant::now();
    control.burst(options.burst).await?;
    let mut seen = 0;
    let deadline = burst_started + Duration::from_secs(120);
    while seen < options.burst {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(Seen::Event)) => seen += 1,
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => break,
        }
    }
    report_burst(report, seen, burst_started);
    // The consumer records lag itself; its few thousand channel messages wait for the relist loop.
    sleep(Duration::from_millis(500)).await;
    lag::measure(options, &control, &lags, report).await?;

    if options.relist {
        sleep(Duration::from_millis(500)).await;
        while rx.try_recv().is_ok() {}
        report.set("steady_rss_before_relist", rss());
        reset_peak();
        control.force_relist().await?;
        let window = tokio::time::sleep(options.relist_window(sync));
        tokio::pin!(window);
        let mut relists = 0;
        loop {
            tokio::select! {
                () = &mut window => break,
                seen = rx.recv() => match seen {
                    Some(Seen::Relisted) => relists += 1,
                    Some(_) => {}
                    None => break,
                },
            }
        }
        report.set("relist_peak_rss", peak_rss());
        report.set("relists", relists);
    }
    consumer.abort();
    Ok(())
}
