//! What the modes share to set up and take down their clients: the configurations from the
//! kubeconfig the runner hands them, and a kinformer informer run on its own task.

use kinformer::informer::{Registration, SharedIndexInformer};
use kinformer_core::Object;
use kinformer_rest::{Config, Kubeconfig, KubeconfigOptions};
use tokio::task::JoinHandle;

/// kinformer's configuration for the server in the kubeconfig at `path`.
pub(crate) fn kinformer_config(path: &str) -> Result<Config, String> {
    Kubeconfig::read_from(path)
        .and_then(|k| Config::from_custom_kubeconfig(k, &KubeconfigOptions::default()))
        .map_err(|e| e.to_string())
}

/// A kube-rs client for the server in the kubeconfig at `path`.
pub(crate) async fn kube_client(path: &str) -> Result<kube::Client, String> {
    let kubeconfig = kube::config::Kubeconfig::read_from(path).map_err(|e| e.to_string())?;
    let config = kube::Config::from_custom_kubeconfig(
        kubeconfig,
        &kube::config::KubeConfigOptions::default(),
    )
    .await
    .map_err(|e| e.to_string())?;
    kube::Client::try_from(config).map_err(|e| e.to_string())
}

/// Runs `informer` on its own task and waits until its cache and `registration`'s handler have
/// synced; the task, for [`stop`].
pub(crate) async fn run_until_synced<K: Object + Clone>(
    informer: &SharedIndexInformer<K>,
    registration: &Registration,
) -> Result<JoinHandle<kinformer::informer::Result<()>>, String> {
    let running = tokio::spawn({
        let informer = informer.clone();
        async move { informer.run().await }
    });
    informer
        .wait_for_cache_sync()
        .await
        .map_err(|e| e.to_string())?;
    registration
        .wait_synced()
        .await
        .map_err(|e| e.to_string())?;
    Ok(running)
}

/// Shuts `informer` down and waits for its task to end; what made it fail, if anything.
pub(crate) async fn stop<K: Object + Clone>(
    informer: &SharedIndexInformer<K>,
    running: JoinHandle<kinformer::informer::Result<()>>,
) -> Result<(), String> {
    informer.shutdown();
    running
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
}
