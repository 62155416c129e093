//! The many-informers run on kinformer: one `Client`, a `SharedIndexInformer` of ConfigMaps per
//! namespace and one of every namespace's, each run on its own task.

use http::Method;
use k8s_openapi::api::core::v1::ConfigMap;
use kinformer::informer::{Config, SharedIndexInformer};
use kinformer_listwatch::ListWatch;
use kinformer_rest::{Client, Request};
use tokio::time::{Instant, timeout_at};

use crate::control::Control;
use crate::informers::{self, SYNC_DEADLINE};
use crate::measure::Report;
use crate::{Options, setup};

/// The namespace the GETs read (one object, as a user's `kubectl get ns default` would).
const GET_PATH: &str = "/api/v1/namespaces/default";

pub(crate) async fn run(options: &Options, report: &mut Report) -> Result<(), String> {
    let control = Control::from_kubeconfig(&options.kubeconfig)?;
    let mut config = setup::kinformer_config(&options.kubeconfig)?;
    // kube-rs has no client-side rate limiter; at client-go's 5 QPS, 1,002 lists and watches
    // alone would take minutes.
    config = config.with_rate_limit(kinformer_rest::RateLimit::Unlimited);
    let client = Client::from_config(&config).map_err(|e| e.to_string())?;
    let cluster_wide = SharedIndexInformer::new(
        ListWatch::<ConfigMap, _>::for_type(client.clone()),
        Config::default(),
    )
    .map_err(|e| e.to_string())?;
    let first = {
        let (client, informer) = (client.clone(), cluster_wide.clone());
        async move {
            get(&client).await?;
            let running = tokio::spawn({
                let informer = informer.clone();
                async move { informer.run().await }
            });
            timeout_at(
                Instant::now() + SYNC_DEADLINE,
                informer.wait_for_cache_sync(),
            )
            .await
            .map_err(|_| "the cluster-wide informer did not sync".to_owned())?
            .map_err(|e| e.to_string())?;
            Ok(running)
        }
    };
    let (before, first_running) = informers::before(&control, first).await?;

    let mut all: Vec<SharedIndexInformer<ConfigMap>> = informers::namespaces(options)
        .into_iter()
        .map(|ns| {
            let source = ListWatch::<ConfigMap, _>::for_type(client.clone())
                .with_namespace(ns)
                .expect("the bench namespaces are DNS-1123 labels");
            SharedIndexInformer::new(source, Config::default()).map_err(|e| e.to_string())
        })
        .collect::<Result<_, _>>()?;
    let mut running: Vec<_> = all
        .iter()
        .map(|informer| {
            let informer = informer.clone();
            tokio::spawn(async move { informer.run().await })
        })
        .collect();
    running.push(first_running);
    let deadline = Instant::now() + SYNC_DEADLINE;
    for informer in &all {
        if timeout_at(deadline, informer.wait_for_cache_sync())
            .await
            .is_err()
        {
            break;
        }
    }
    all.push(cluster_wide);
    let synced = all.iter().filter(|i| i.has_synced()).count();
    informers::report_synced(options, &control, report, &before, synced, all.len()).await?;
    informers::measure_gets(options, report, || {
        let client = client.clone();
        async move { get(&client).await }
    })
    .await?;

    for informer in &all {
        informer.shutdown();
    }
    for task in running {
        task.await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

async fn get(client: &Client) -> Result<(), String> {
    Request::new(client.clone(), Method::GET, GET_PATH)
        .into::<k8s_openapi::api::core::v1::Namespace>()
        .await
        .map(drop)
        .map_err(|e| format!("GET {GET_PATH}: {e}"))
}
