//! The many-informers run on kube-rs: one `kube::Client`, a `watcher()` + `reflector()` of
//! ConfigMaps per namespace and one of every namespace's, each polled on its own task (the
//! kube-rs counterpart of an informer: a watch feeding a store).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::StreamExt as _;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::Api;
use kube::runtime::{reflector, watcher};
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::control::Control;
use crate::informers::{self, SYNC_DEADLINE};
use crate::measure::Report;
use crate::{Options, setup};

pub(crate) async fn run(options: &Options, report: &mut Report) -> Result<(), String> {
    let control = Control::from_kubeconfig(&options.kubeconfig)?;
    let client = setup::kube_client(&options.kubeconfig).await?;
    let synced = Arc::new(AtomicUsize::new(0));
    let progress = Arc::new(Notify::new());
    let mut stores = Vec::new();
    let mut start = |api: Api<ConfigMap>| {
        let (reader, writer) = reflector::store();
        stores.push(reader);
        let (synced, progress) = (Arc::clone(&synced), Arc::clone(&progress));
        tokio::spawn(async move {
            let stream = reflector(writer, watcher(api, watcher::Config::default()));
            let mut stream = std::pin::pin!(stream);
            let mut counted = false;
            while let Some(event) = stream.next().await {
                if !counted && matches!(event, Ok(watcher::Event::InitDone)) {
                    counted = true;
                    synced.fetch_add(1, Ordering::Relaxed);
                    progress.notify_one();
                }
            }
        })
    };
    let wait_for = |count: usize| {
        let (synced, progress) = (Arc::clone(&synced), Arc::clone(&progress));
        async move {
            let deadline = Instant::now() + SYNC_DEADLINE;
            while synced.load(Ordering::Relaxed) < count && Instant::now() < deadline {
                // Woken by each sync; the timeout bounds a missed wake-up.
                let _ = tokio::time::timeout(Duration::from_millis(50), progress.notified()).await;
            }
        }
    };
    // The cluster-wide reflector starts with the client's first request (see `informers`).
    let mut running = Vec::new();
    let (before, ()) = informers::before(&control, async {
        get(&client).await?;
        running.push(start(Api::all(client.clone())));
        wait_for(1).await;
        Ok(())
    })
    .await?;

    let apis: Vec<Api<ConfigMap>> = informers::namespaces(options)
        .iter()
        .map(|ns| Api::namespaced(client.clone(), ns))
        .collect();
    let total = apis.len() + 1;
    running.extend(apis.into_iter().map(&mut start));
    wait_for(total).await;
    let synced = synced.load(Ordering::Relaxed);
    informers::report_synced(options, &control, report, &before, synced, total).await?;
    informers::measure_gets(options, report, || {
        let client = client.clone();
        async move { get(&client).await }
    })
    .await?;
    drop(stores);
    for task in running {
        task.abort();
    }
    Ok(())
}

async fn get(client: &kube::Client) -> Result<(), String> {
    Api::<Namespace>::all(client.clone())
        .get("default")
        .await
        .map(drop)
        .map_err(|e| format!("GET namespace default: {e}"))
}
