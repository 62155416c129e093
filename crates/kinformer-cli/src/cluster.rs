//! Connecting: a kubeconfig as kubectl reads it, or the in-cluster configuration.

use std::sync::Arc;

use kinformer_rest::stack::RequestMetrics;
use kinformer_rest::{Client, Config, Kubeconfig, KubeconfigOptions};

use crate::args::ClusterArgs;
use crate::error::CliError;

/// A client for the cluster the arguments name, reporting its requests to `metrics` when given.
///
/// `--kubeconfig` wins; else `$KUBECONFIG` / `~/.kube/config`; else in-cluster.
pub(crate) fn client(
    args: &ClusterArgs,
    metrics: Option<Arc<dyn RequestMetrics>>,
) -> Result<Client, CliError> {
    let options = args
        .context
        .as_ref()
        .map_or_else(KubeconfigOptions::default, KubeconfigOptions::context);
    let config = match (&args.kubeconfig, &args.context) {
        (Some(path), _) => {
            Kubeconfig::read_from(path).and_then(|k| Config::from_custom_kubeconfig(k, &options))
        }
        (None, Some(_)) => Config::from_kubeconfig(&options),
        (None, None) => Config::infer(),
    }
    .map_err(CliError::Config)?;
    let config = match metrics {
        Some(metrics) => config.with_metrics(metrics),
        None => config,
    };
    Client::from_config(&config).map_err(CliError::Client)
}

/// A client for the embedded server, over real HTTP like any cluster.
pub(crate) fn sim_client(kubeconfig_yaml: &str) -> Result<Client, CliError> {
    let config = Kubeconfig::from_yaml(kubeconfig_yaml, None)
        .and_then(|k| Config::from_custom_kubeconfig(k, &KubeconfigOptions::default()))
        .map_err(CliError::Client)?;
    Client::from_config(&config).map_err(CliError::Client)
}
